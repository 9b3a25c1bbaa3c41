// How numbers and tokens are written on the page.
import { SPECIAL_TOKENS } from '../../c/spec.mjs';

export { SPECIAL_TOKENS };

export function isSpecialToken(token) {
  return SPECIAL_TOKENS.includes(token);
}

/** Fixed decimals, with a real minus sign. */
export function fixed(value, digits = 3) {
  if (!Number.isFinite(value)) return String(value);
  const text = value.toFixed(digits);
  return text.startsWith('-') && Number(text) !== 0 ? '\u2212' + text.slice(1) : text.replace(/^-/, '');
}

/** A probability as shown on bars: 0.221, or 3e-4 style for tiny values. */
export function probability(value) {
  if (value !== 0 && Math.abs(value) < 0.001) return value.toExponential(0).replace('-', '\u2212');
  return fixed(value, 3);
}

export function percent(value) {
  return value >= 0.0995 ? `${(value * 100).toFixed(0)}%` : `${(value * 100).toFixed(1)}%`;
}

/** "layer 2 · head 3" from 0-based indices. */
export function headName(layer, head) {
  return `layer ${layer + 1} \u00b7 head ${head + 1}`;
}

/** The token as shown in labels: WordPiece pieces keep their ## prefix. */
export function tokenLabel(token) {
  return token;
}

/** "“cat” (token 2)" */
export function tokenPhrase(token, index) {
  return `\u201c${token}\u201d (token ${index})`;
}

/**
 * The one definition of how concentrated a row is, for every n: its normalised entropy
 * h = entropy / ln n (0 = all weight on one token, 1 = uniform), so that effective tokens
 * = e^entropy = n^h. Focused below FOCUSED, uniform-like from UNIFORM_LIKE, spread between.
 */
export const SPREAD_BANDS = Object.freeze({ FOCUSED: 0.4, UNIFORM_LIKE: 0.85 });

export const READING_DEFINITION =
  `How a row is read: normalised entropy h = entropy \u00f7 ln n is 0 when all the weight is on one token and ` +
  `1 when it is spread evenly, whatever the number of tokens n (effective tokens = e^entropy = n^h). ` +
  `The row is focused when h < ${SPREAD_BANDS.FOCUSED}, uniform-like when h \u2265 ${SPREAD_BANDS.UNIFORM_LIKE}, spread in between.`;

export const SOFTMAX_SENTENCE =
  'Why \u03a3 = 1: each row is a softmax \u2014 every score becomes exp(score) divided by the sum of exp over all n tokens \u2014 ' +
  'so the weights are shares of one whole. The ratio to uniform compares the largest share with 1/n, the share every ' +
  'token would get from a head with no preference.';

/** {kind: 'focused' | 'spread' | 'uniform-like' | 'single', text} for a row's statistics. */
export function spreadReading({ normalized, effective, max, argmax }, n, tokens) {
  if (n <= 1) return { kind: 'single', text: 'Only one token: the row is trivially 1.0.' };
  const h = normalized;
  const kind = h < SPREAD_BANDS.FOCUSED ? 'focused' : h >= SPREAD_BANDS.UNIFORM_LIKE ? 'uniform-like' : 'spread';
  const measure = `${effective.toFixed(1)} effective tokens of ${n} (normalised entropy ${h.toFixed(2)})`;
  const top = `\u201c${tokens[argmax]}\u201d gets ${fixed(max)}, ${(max * n).toFixed(1)}\u00d7 its uniform share 1/${n}`;
  const text = {
    focused: `Focused: ${measure}; ${top}.`,
    spread: `Spread: ${measure}; the largest weight, on ${top}.`,
    'uniform-like': `Uniform-like: ${measure} \u2014 close to an even spread; the largest weight, on ${top}.`,
  }[kind];
  return { kind, text };
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

/** exp(entropy) of a probability row: the "effective number of tokens" of a what-if row. */
export function effectiveTokens(values) {
  let entropy = 0;
  for (const p of values) if (p > 0) entropy -= p * Math.log(p);
  return Math.exp(entropy);
}

export function fileSafe(text) {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 40) || 'token';
}

export function megabytes(bytes) {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}
