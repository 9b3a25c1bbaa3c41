// bench/first-row.html: one explorer in the Row view on ?weights= (page-relative or absolute)
// and ?sentence=, for bench/first-row.mjs. The text goes in as attributes, never as markup.
(() => {
  const params = new URLSearchParams(location.search);
  const explorer = document.createElement('attention-explorer');
  explorer.setAttribute('weights', params.get('weights') || '../web/dist/bert-mini.int8.bin');
  explorer.setAttribute('sentence', params.get('sentence') || 'The cat sat on the mat because it was tired.');
  explorer.setAttribute('view', 'row');
  document.body.append(explorer);
})();
