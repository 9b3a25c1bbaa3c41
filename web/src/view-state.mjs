// The explorer's state, where it comes from (attributes, the URL hash) and how it is
// validated against the loaded model. Layers and heads are 1-based outside (attributes,
// hash, labels) and 0-based inside; token indices are 0-based everywhere ([CLS] = 0).
// A value that cannot be used is reported as a problem {name, given, used}, never dropped
// silently and never echoed into markup.

export const MAX_SENTENCE_CHARS = 20000;
export const DEFAULT_SENTENCE = 'The cat sat on the mat because it was tired.';

/** Every control an attribute or the hash can set. */
export const CONTROL_NAMES = ['sentence', 'compare', 'layer', 'head', 'token', 'view', 'rollout', 'whatif', 'scale', 'special', 'zoom'];
const SCALES = ['auto', 'fixed'];
const SPECIAL_MODES = ['show', 'hide'];
const SWITCH = { on: true, off: false, 1: true, 0: false, true: true, false: false };

export function cleanSentence(text) {
  if (typeof text !== 'string') return null;
  return [...text].slice(0, MAX_SENTENCE_CHARS).join('');
}

/** An integer in [1, max] from text, or null. */
export function oneBasedIndex(text, max) {
  if (typeof text !== 'string' || !/^\d{1,4}$/.test(text.trim())) return null;
  const value = Number(text);
  return value >= 1 && value <= max ? value : null;
}

/** The raw text of every control that `get(name)` has, as {name: text}. */
export function readControls(get) {
  const raw = {};
  for (const name of CONTROL_NAMES) {
    const value = get(name);
    if (value !== null && value !== undefined) raw[name] = String(value);
  }
  return raw;
}

export function readHashControls(hash) {
  const params = new URLSearchParams(String(hash || '').replace(/^#/, ''));
  return readControls((name) => params.get(name));
}

/** A short, safe rendering of a value the reader gave, for notices. */
export function quoteGiven(text) {
  const chars = [...String(text)];
  return `\u201c${chars.slice(0, 40).join('')}${chars.length > 40 ? '\u2026' : ''}\u201d`;
}

/**
 * Settings from raw control texts, checked against the model's shape and the view ids.
 * Returns {settings, problems}; `token` stays a spec (see parseTokenSpec) until a run exists.
 */
export function resolveControls(raw, { layers, heads, viewIds, current }) {
  const settings = {}, problems = [];
  const problem = (name, used) => problems.push({ name, given: raw[name], used });
  if ('sentence' in raw) settings.sentence = cleanSentence(raw.sentence);
  if ('compare' in raw) settings.compareSentence = cleanSentence(raw.compare);
  const pick = (name, key, max, usedText) => {
    if (!(name in raw)) return;
    const value = oneBasedIndex(raw[name], max);
    if (value === null) problem(name, usedText(current[key]));
    else settings[key] = value - 1;
  };
  pick('layer', 'layer', layers, (v) => `layer ${v + 1} (this model has layers 1\u2013${layers})`);
  pick('head', 'head', heads, (v) => `head ${v + 1} (this model has heads 1\u2013${heads})`);
  pick('rollout', 'rolloutLayer', layers, (v) => `rollout through layer ${(v ?? layers - 1) + 1} (1\u2013${layers})`);
  if ('view' in raw) {
    if (viewIds.includes(raw.view)) settings.view = raw.view;
    else problem('view', `the ${current.view} view (views: ${viewIds.join(', ')})`);
  }
  if ('whatif' in raw) {
    const value = SWITCH[raw.whatif.trim().toLowerCase()];
    if (value === undefined) problem('whatif', `what-if ${current.whatIf ? 'on' : 'off'} (use on or off)`);
    else settings.whatIf = value;
  }
  if ('scale' in raw) {
    if (SCALES.includes(raw.scale)) settings.scale = raw.scale;
    else problem('scale', `scale ${current.scale} (use auto or fixed)`);
  }
  if ('special' in raw) {
    if (SPECIAL_MODES.includes(raw.special)) settings.hideSpecial = raw.special === 'hide';
    else problem('special', `[CLS]/[SEP] ${current.hideSpecial ? 'hidden' : 'shown'} (use show or hide)`);
  }
  if ('zoom' in raw) {
    if (/^\d{1,2}$/.test(raw.zoom.trim())) settings.matrixZoom = Number(raw.zoom);
    else problem('zoom', `zoom ${current.matrixZoom} (steps out from readable cells: 0, 1, 2, \u2026)`);
  }
  if ('token' in raw) settings.tokenSpec = raw.token;
  return { settings, problems };
}

/**
 * A token spec: an index ("3"), a word ("cat") or the k-th occurrence of a word ("it#2").
 * Returns {index} or {word, occurrence}, or null when the text is neither.
 */
export function parseTokenSpec(text) {
  const spec = String(text ?? '').trim();
  if (/^\d{1,5}$/.test(spec)) return { index: Number(spec) };
  const match = /^(.+?)(?:#(\d{1,4}))?$/u.exec(spec);
  if (!match || /\s/.test(match[1]) || match[1].length > 100) return null;
  const occurrence = match[2] === undefined ? 1 : Number(match[2]);
  return occurrence >= 1 ? { word: match[1].toLowerCase(), occurrence } : null;
}

/** The words of a run: each starts at a token that is not a ## continuation. */
export function wordsOf(tokens) {
  const words = [];
  tokens.forEach((token, i) => {
    if (token.startsWith('##') && words.length) {
      const last = words.at(-1);
      last.text += token.slice(2);
      last.end = i + 1;
    } else words.push({ start: i, end: i + 1, text: token, first: token });
  });
  return words;
}

/** The token index a spec names in this run, or null. Words match whole or by first piece. */
export function resolveTokenSpec(spec, tokens) {
  if (!spec) return null;
  if ('index' in spec) return spec.index < tokens.length ? spec.index : null;
  let seen = 0;
  for (const word of wordsOf(tokens)) {
    if (word.text.toLowerCase() !== spec.word && word.first.toLowerCase() !== spec.word) continue;
    if (++seen === spec.occurrence) return word.start;
  }
  return null;
}

/** "cat", or "it#2" for the second "it": the spec that names token `index` in `tokens`. */
export function tokenSpecOf(index, tokens) {
  const target = tokens[index];
  if (target === undefined) return null;
  let occurrence = 0;
  for (let i = 0; i <= index; i++) if (tokens[i] === target) occurrence++;
  return { word: target.toLowerCase(), occurrence, exact: true };
}

/** The index of the same token (same text, same occurrence) in a new run, or null. */
export function findSameToken(identity, tokens) {
  if (!identity) return null;
  let seen = 0;
  for (let i = 0; i < tokens.length; i++) {
    if (tokens[i].toLowerCase() === identity.word && ++seen === identity.occurrence) return i;
  }
  return null;
}

export function writeHash(state) {
  const params = new URLSearchParams();
  params.set('sentence', state.sentence);
  if (state.compareSentence !== null) params.set('compare', state.compareSentence);
  params.set('layer', String(state.layer + 1));
  params.set('head', String(state.head + 1));
  params.set('token', String(state.token));
  params.set('view', state.view);
  if (state.rolloutLayer !== null) params.set('rollout', String(state.rolloutLayer + 1));
  if (state.whatIf) params.set('whatif', 'on');
  if (state.scale !== 'auto') params.set('scale', state.scale);
  if (state.hideSpecial) params.set('special', 'hide');
  if (state.matrixZoom) params.set('zoom', String(state.matrixZoom));
  return '#' + params.toString().replace(/\+/g, '%20');
}
