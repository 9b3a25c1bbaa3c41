// How numbers and tokens are written on the page.

export const SPECIAL_TOKENS = ['[CLS]', '[SEP]', '[MASK]', '[PAD]', '[UNK]'];

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

/** One line reading the ratio to uniform (max × n). */
export function ratioReading(ratio, n, topToken) {
  const r = ratio.toFixed(1);
  if (n <= 1) return 'Only one token: every row is trivially 1.0.';
  if (ratio < 1.25) return `${r}: no better than uniform \u2014 the weight is spread evenly over all ${n} tokens.`;
  if (ratio < 2.5) return `${r}: a mild preference \u2014 the top token \u201c${topToken}\u201d gets ${r}\u00d7 its uniform share of 1/${n}.`;
  if (ratio < 0.6 * n) return `${r}: focused \u2014 the top token \u201c${topToken}\u201d gets ${r}\u00d7 its uniform share of 1/${n}.`;
  return `${r} of a possible ${n}: almost all the weight is on \u201c${topToken}\u201d.`;
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
