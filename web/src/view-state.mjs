// The explorer's state, where it comes from (attributes, the URL hash) and how it is
// validated against the loaded model. Layers and heads are 1-based outside (attributes,
// hash, labels) and 0-based inside; token indices are 0-based everywhere ([CLS] = 0).
// A value that cannot be used is reported as a problem {name, given, used}, never dropped
// silently and never echoed into markup.

import { parseHeadList } from './head-list.mjs';

export const MAX_SENTENCE_CHARS = 20000;
export const DEFAULT_SENTENCE = 'The cat sat on the mat because it was tired.';

/** The controls every view has; each view adds its own (its `params`, see views/index.mjs). */
export const BASE_CONTROL_NAMES = ['sentence', 'layer', 'head', 'token', 'view'];
const SWITCH = { on: true, off: false, 1: true, 0: false, true: true, false: false };

/** The state every view shares: the sentence, the chosen layer, head and token, the view. */
export const BASE_STATE = Object.freeze({ sentence: null, layer: 0, head: 0, token: 1, view: null });

/**
 * A hash/attribute parameter naming one of `values` (case-insensitive) for state[key]:
 * `toState(word)` and `fromState(state)` map between the word and the state's value; the
 * default value is not written to the hash. `used(state)` is the message ([key, vars]) of
 * what is shown instead of a value that cannot be used.
 */
export function enumParam(name, { values, toState = (word) => word, fromState, isDefault, used }) {
  return {
    name,
    read(text, context) {
      const word = values.find((v) => v === String(text).trim().toLowerCase());
      return word === undefined ? { used: used(context.current, context) } : { set: toState(word) };
    },
    write: (state) => (isDefault(state) ? null : fromState(state)),
  };
}

/** An on/off parameter (on, off, 1, 0, true, false) for the boolean state[key]. */
export function switchParam(name, key, used) {
  return {
    name,
    read(text, context) {
      const value = SWITCH[String(text).trim().toLowerCase()];
      return value === undefined ? { used: used(context.current, context) } : { set: { [key]: value } };
    },
    write: (state) => (state[key] ? 'on' : null),
  };
}

/** A 1-based layer number in the hash for the 0-based state[key]; null state = not written. */
export function layerParam(name, key, used) {
  return {
    name,
    read(text, context) {
      const value = oneBasedIndex(text, context.layers);
      return value === null ? { used: used(context.current, context) } : { set: { [key]: value - 1 } };
    },
    write: (state) => (state[key] === null ? null : String(state[key] + 1)),
  };
}

/**
 * The element's own controls, which no view declares: the heads switched off (`off=2.1,3.4`)
 * hold for every view, each showing the model without them. Declared as a view's controls are
 * ({name, state, params}), and read and written with theirs.
 */
export const ELEMENT_CONTROLS = Object.freeze([{
  name: 'removed-heads',
  state: { off: [] },
  params: [headListParam('off', 'off', (s) => ['problem.usedOff', { count: s.off.length, heads: writeHeadList(s.off) ?? '' }])],
}]);

/** What declares state and parameters: each view, then the controls it shows, then the element's own controls. */
export function controlSources(views) {
  return [...views.flatMap((view) => [view, ...(view.controls ?? [])]), ...ELEMENT_CONTROLS];
}

/** Every parameter of these views (and of the controls they show) and of the element, each once, in view order. */
export function paramsOf(views) {
  const seen = new Map();
  for (const source of controlSources(views)) {
    for (const param of source.params ?? []) if (!seen.has(param.name)) seen.set(param.name, param);
  }
  return [...seen.values()];
}

/** The names an attribute or the hash can set, for these views. */
export function controlNames(views) {
  return [...BASE_CONTROL_NAMES, ...paramsOf(views).map((p) => p.name)];
}

/** The initial state: the shared state, then each view's, each control's and the element's own keys. */
export function initialState(views) {
  const state = { ...BASE_STATE, sentence: DEFAULT_SENTENCE, view: views[0].id };
  for (const source of controlSources(views)) Object.assign(state, structuredClone(source.state ?? {}));
  return state;
}

/** Whether head (layer, head) (from 0) is switched off in `state`. */
export function isHeadOff(state, layer, head) {
  return state.off.some(([l, h]) => l === layer && h === head);
}

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
export function readControls(get, names) {
  const raw = {};
  for (const name of names) {
    const value = get(name);
    if (value !== null && value !== undefined) raw[name] = String(value);
  }
  return raw;
}

export function readHashControls(hash, names) {
  const params = new URLSearchParams(String(hash || '').replace(/^#/, ''));
  return readControls((name) => params.get(name), names);
}

/** A short, safe rendering of a value the reader gave, for notices. */
export function quoteGiven(text, quote = (inner) => `\u201c${inner}\u201d`) {
  const chars = [...String(text)];
  return quote(`${chars.slice(0, 40).join('')}${chars.length > 40 ? '\u2026' : ''}`);
}

/**
 * Settings from raw control texts, checked against the model's shape and the views
 * (`findView(name)` gives the view a name or alias means). Returns {settings, problems};
 * `token` stays a spec (see parseTokenSpec) until a run exists. A problem's `used` is the
 * message [key, vars] of what is shown instead.
 */
export function resolveControls(raw, { layers, heads, views, findView, current }) {
  const settings = {}, problems = [];
  const problem = (name, used) => problems.push({ name, given: raw[name], used });
  if ('sentence' in raw) settings.sentence = cleanSentence(raw.sentence);
  const pick = (name, key, max, used) => {
    if (!(name in raw)) return;
    const value = oneBasedIndex(raw[name], max);
    if (value === null) problem(name, used(current[key]));
    else settings[key] = value - 1;
  };
  pick('layer', 'layer', layers, (v) => ['problem.usedLayer', { layer: v + 1, layers }]);
  pick('head', 'head', heads, (v) => ['problem.usedHead', { head: v + 1, heads }]);
  if ('view' in raw) {
    const view = findView(raw.view);
    if (view) settings.view = view.id;
    else problem('view', ['problem.usedView', { view: current.view, views: views.map((v) => v.id).join(', ') }]);
  }
  const context = { layers, heads, current };
  for (const param of paramsOf(views)) {
    if (!(param.name in raw)) continue;
    const result = param.read(raw[param.name], context);
    if (result.set) Object.assign(settings, result.set);
    else problem(param.name, result.used);
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
  // Counted as findSameToken finds it, without regard to case: a cased model's "Le" and "le"
  // are two occurrences of one word here.
  const word = target.toLowerCase();
  let occurrence = 0;
  for (let i = 0; i <= index; i++) if (tokens[i].toLowerCase() === word) occurrence++;
  return { word, occurrence, exact: true };
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

/** The URL hash of a state: the shared controls, then every view's parameters not at their default. */
export function writeHash(state, views) {
  const params = new URLSearchParams();
  params.set('sentence', state.sentence);
  params.set('layer', String(state.layer + 1));
  params.set('head', String(state.head + 1));
  params.set('token', String(state.token));
  params.set('view', state.view);
  for (const param of paramsOf(views)) {
    const value = param.write(state);
    if (value !== null && value !== undefined) params.set(param.name, value);
  }
  return '#' + params.toString().replace(/\+/g, '%20');
}

/** "2.1,3.4": the removed heads [[layer, head], …] (from 0) as 1-based layer.head pairs, or null for none. */
export function writeHeadList(heads) {
  return heads.length ? heads.map(([l, h]) => `${l + 1}.${h + 1}`).join(',') : null;
}

/**
 * The heads switched off (state.off, [[layer, head], …] from 0, layer-major, each once) as a
 * hash/attribute parameter "2.1,3.4" (1-based layer.head), read by the grammar of head-list.mjs
 * (the command line's --ablate reads the same); an empty text switches none off.
 */
export function headListParam(name, key, used) {
  return {
    name,
    read(text, context) {
      const { heads, error } = parseHeadList(text);
      const inModel = ([layer, head]) => layer >= 1 && layer <= context.layers && head >= 1 && head <= context.heads;
      if (error || !heads.every(inModel)) return { used: used(context.current, context) };
      const pairs = heads.map(([layer, head]) => [layer - 1, head - 1]);
      return { set: { [key]: pairs.sort((a, b) => a[0] - b[0] || a[1] - b[1]) } };
    },
    write: (state) => writeHeadList(state[key]),
  };
}
