// The explorer's state, where it comes from (attributes, the URL hash) and how it is
// validated. Layers and heads are 1-based outside (attributes, hash, labels) and 0-based
// inside; token indices are 0-based everywhere ([CLS] = 0).

export const VIEWS = [
  { id: 'row', label: 'Row' },
  { id: 'grid', label: 'All heads' },
  { id: 'rollout', label: 'Rollout' },
  { id: 'matrix', label: 'Matrix' },
  { id: 'entropy', label: 'Entropy' },
  { id: 'contributions', label: 'Contribution' },
  { id: 'mlm', label: '[MASK]' },
  { id: 'compare', label: 'Compare' },
  { id: 'layer', label: 'Inside a layer' },
  { id: 'scaling', label: 'Why \u221ad' },
];
export const VIEW_IDS = VIEWS.map((v) => v.id);

export const MAX_SENTENCE_CHARS = 20000;
export const DEFAULT_SENTENCE = 'The cat sat on the mat because it was tired.';

/** An integer in [1, max] from text, or null. */
export function oneBasedIndex(text, max) {
  if (typeof text !== 'string' || !/^\d{1,3}$/.test(text.trim())) return null;
  const value = Number(text);
  return value >= 1 && value <= max ? value : null;
}

/** A token index in [0, 511] from text, or null (the run decides the real upper bound). */
export function tokenIndex(text) {
  if (typeof text !== 'string' || !/^\d{1,3}$/.test(text.trim())) return null;
  const value = Number(text);
  return value <= 511 ? value : null;
}

export function viewId(text) {
  return VIEW_IDS.includes(text) ? text : null;
}

export function cleanSentence(text) {
  if (typeof text !== 'string') return null;
  return [...text].slice(0, MAX_SENTENCE_CHARS).join('');
}

/**
 * Reads the settings an attribute or hash gives. Unknown or invalid values are dropped,
 * never echoed. `get(name)` returns the raw text or null.
 */
export function readSettings(get, { layers = 4, heads = 4 } = {}) {
  const settings = {};
  const sentence = cleanSentence(get('sentence'));
  if (sentence !== null) settings.sentence = sentence;
  const layer = oneBasedIndex(get('layer'), layers);
  if (layer !== null) settings.layer = layer - 1;
  const head = oneBasedIndex(get('head'), heads);
  if (head !== null) settings.head = head - 1;
  const token = tokenIndex(get('token'));
  if (token !== null) settings.token = token;
  const view = viewId(get('view'));
  if (view !== null) settings.view = view;
  return settings;
}

export function readHash(hash, shape) {
  const params = new URLSearchParams(String(hash || '').replace(/^#/, ''));
  return readSettings((name) => params.get(name), shape);
}

export function writeHash(state) {
  const params = new URLSearchParams();
  params.set('sentence', state.sentence);
  params.set('layer', String(state.layer + 1));
  params.set('head', String(state.head + 1));
  params.set('token', String(state.token));
  params.set('view', state.view);
  return '#' + params.toString().replace(/\+/g, '%20');
}
