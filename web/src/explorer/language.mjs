// The explorer's language: its own `lang` attribute, else the nearest ancestor's (so
// <html lang="fr"> is enough), else English. A change of any lang attribute above it is seen.

/** {tag(), stop()} for `element`; onChange() is called when a lang attribute in the document changes. */
export function languageWatcher(element, onChange) {
  const tag = () => element.closest('[lang]')?.getAttribute('lang') || document.documentElement.getAttribute('lang') || '';
  const observer = new MutationObserver(onChange);
  observer.observe(document.documentElement, { subtree: true, attributes: true, attributeFilter: ['lang'] });
  return { tag, stop: () => observer.disconnect() };
}
