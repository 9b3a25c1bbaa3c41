// Defines <attention-explorer> from the bundle a one-file page or a notebook output carries
// (web/notebook/), once: every output carries it, the first one run defines the element.
(() => {
  if (customElements.get('attention-explorer')) return;
  const holder = document.querySelector('script[data-attention-bundle]');
  const script = document.createElement('script');
  script.textContent = new TextDecoder().decode(Uint8Array.from(atob(holder.textContent), (c) => c.charCodeAt(0)));
  document.head.append(script);
})();
