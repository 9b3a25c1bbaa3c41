/* index.html in the reader's language: navigator.language (or ?lang=fr in the address)
   chooses English or French for the page's prose and, through <html lang>, for the explorer;
   the switch in the header changes both, and writes ?lang= into the address. A classic script of its own, as the page's
   Content-Security-Policy allows no inline script. */
(function () {
  var SUPPORTED = ['en', 'fr'];
  function base(tag) { return String(tag || '').toLowerCase().split(/[-_]/)[0]; }
  function pick() {
    var asked = base(new URLSearchParams(location.search).get('lang'));
    if (SUPPORTED.indexOf(asked) >= 0) return asked;
    var languages = navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language];
    for (var i = 0; i < languages.length; i++) if (SUPPORTED.indexOf(base(languages[i])) >= 0) return base(languages[i]);
    return 'en';
  }
  function show(lang) {
    document.documentElement.lang = lang;
    var blocks = document.querySelectorAll('[data-lang]');
    for (var i = 0; i < blocks.length; i++) blocks[i].hidden = blocks[i].getAttribute('data-lang') !== lang;
    var buttons = document.querySelectorAll('.language-switch button');
    for (var j = 0; j < buttons.length; j++) buttons[j].setAttribute('aria-pressed', String(buttons[j].value === lang));
    var title = document.querySelector('meta[name="title-' + lang + '"]');
    if (title) document.title = title.content;
  }
  // The chosen language in the address (?lang=fr, the hash kept), so that a shared link opens in it.
  function keepInAddress(lang) {
    var address = new URL(location.href);  // absolute: a <base> of the page must not move it
    address.searchParams.set('lang', lang);
    try {
      history.replaceState(history.state, '', address.href);
    } catch (error) {
      // A browser that refuses to change a file:// address: the language still changes.
    }
  }
  var chosen = pick();
  document.documentElement.lang = chosen;  // before the explorer starts: it speaks it from its first word
  document.addEventListener('DOMContentLoaded', function () {
    var buttons = document.querySelectorAll('.language-switch button');
    for (var i = 0; i < buttons.length; i++) {
      buttons[i].addEventListener('click', function (event) {
        show(event.currentTarget.value);
        keepInAddress(event.currentTarget.value);
      });
    }
    show(chosen);
  });
})();
