// How numbers and tokens are written on the page.
import { SPECIAL, SPECIAL_TOKENS } from '../../c/spec.mjs';

export function isSpecialToken(token) {
  return SPECIAL_TOKENS.includes(token);
}

/** [CLS] or [SEP], the tokens the tokenizer puts around a text. */
export function isBoundaryToken(token) {
  return token === SPECIAL.cls || token === SPECIAL.sep;
}

export function isMaskToken(token) {
  return token === SPECIAL.mask;
}

/** The indices of the run's [MASK] tokens. */
export function maskPositions(tokens) {
  const masks = [];
  tokens.forEach((token, i) => { if (isMaskToken(token)) masks.push(i); });
  return masks;
}

/** Fixed decimals, with a real minus sign (machine-facing text; people get t.number). */
export function fixed(value, digits = 3) {
  if (!Number.isFinite(value)) return String(value);
  const text = value.toFixed(digits);
  return text.startsWith('-') && Number(text) !== 0 ? '\u2212' + text.slice(1) : text.replace(/^-/, '');
}

/** "layer 2 · head 3" from 0-based indices, in the reader's language. */
export function headName(t, layer, head) {
  return t('name.head', { layer: layer + 1, head: head + 1 });
}

/** "“cat” (token 2)" */
export function tokenPhrase(t, token, index) {
  return t('name.tokenPhrase', { token: t.quote(token), index });
}

/**
 * The one definition of how concentrated a row is, for every n: its normalised entropy
 * h = entropy / ln n (0 = all weight on one token, 1 = uniform), so that effective tokens
 * = e^entropy = n^h. Focused below FOCUSED, uniform-like from UNIFORM_LIKE, spread between.
 */
export const SPREAD_BANDS = Object.freeze({ FOCUSED: 0.4, UNIFORM_LIKE: 0.85 });

/** How a row is read (the definition under the Row view). */
export function readingDefinition(t) {
  return t('reading.definition', { focused: t.number(SPREAD_BANDS.FOCUSED, 1), uniformLike: t.number(SPREAD_BANDS.UNIFORM_LIKE, 2) });
}

/** {kind: 'focused' | 'spread' | 'uniform-like' | 'single', text} for a row's statistics. */
export function spreadReading(t, { normalized, effective, max, argmax }, n, tokens) {
  if (n <= 1) return { kind: 'single', text: t('reading.single') };
  const h = normalized;
  const kind = h < SPREAD_BANDS.FOCUSED ? 'focused' : h >= SPREAD_BANDS.UNIFORM_LIKE ? 'uniform-like' : 'spread';
  const measure = t('reading.measure', { effective: t.number(effective, 1), n, h: t.number(h, 2) });
  const top = t('reading.top', { token: t.quote(tokens[argmax]), max: t.number(max), times: t.times(max * n, 1), n });
  return { kind, text: t(`reading.${kind}`, { measure, top }) };
}

const WORD_SWAPS = new Map(Object.entries({
  cat: 'dog', dog: 'cat', he: 'she', she: 'he', his: 'her', her: 'his', him: 'her',
  man: 'woman', woman: 'man', boy: 'girl', girl: 'boy', big: 'small', small: 'big',
  good: 'bad', bad: 'good', tired: 'hungry', hungry: 'tired', river: 'road', bank: 'shop',
  it: 'she', they: 'we', we: 'they', mat: 'sofa', sat: 'slept', king: 'queen', queen: 'king',
  happy: 'sad', sad: 'happy', old: 'young', young: 'old', red: 'blue', blue: 'red',
  is: 'was', was: 'is', not: 'also', on: 'under', under: 'on',
}));

/** The sentence with one word changed, for the Compare view's default second sentence. */
export function changeOneWord(sentence) {
  const words = [...sentence.matchAll(/[A-Za-z]+/g)];
  const swappable = words.find((m) => WORD_SWAPS.has(m[0].toLowerCase()));
  const target = swappable ?? words.filter((m) => m[0].length > 2).pop() ?? words.pop();
  if (!target) return sentence ? `${sentence} too` : 'The dog sat on the mat.';
  let replacement = WORD_SWAPS.get(target[0].toLowerCase()) ?? 'thing';
  if (/^[A-Z]/.test(target[0])) replacement = replacement[0].toUpperCase() + replacement.slice(1);
  return sentence.slice(0, target.index) + replacement + sentence.slice(target.index + target[0].length);
}

/** Mean and (population) standard deviation of a vector, for the layer walkthrough. */
export function meanAndDeviation(values) {
  let sum = 0;
  for (const v of values) sum += v;
  const mean = sum / values.length;
  let squares = 0;
  for (const v of values) squares += (v - mean) * (v - mean);
  return { mean, deviation: Math.sqrt(squares / values.length) };
}

/** Index and value of the largest entry. */
export function largest(values) {
  let index = 0;
  for (let i = 1; i < values.length; i++) if (values[i] > values[index]) index = i;
  return { index, value: values[index] };
}

export function total(values) {
  let sum = 0;
  for (const v of values) sum += v;
  return sum;
}

export function fileSafe(text) {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 40) || 'token';
}

export function megabytes(bytes) {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}
