// The explorer's words and numbers in the reader's language. Each language is one catalogue
// (en.mjs, fr.mjs): key → text, with {name} placeholders, or → {one, other, …} plural forms
// chosen by Intl.PluralRules from the `count` placeholder. translator(lang) returns t(key,
// vars) with the number formatting of that language beside it.

import en from './en.mjs';
import fr from './fr.mjs';

export const CATALOGUES = { en, fr };
export const DEFAULT_LANGUAGE = 'en';
const noted = new Set();

/** The supported language a BCP 47 tag asks for ('fr-CA' → 'fr'), or null. */
export function supportedLanguage(tag) {
  const base = String(tag ?? '').trim().toLowerCase().split(/[-_]/)[0];
  return Object.hasOwn(CATALOGUES, base) ? base : null;
}

/** The language to use for a tag: unsupported tags fall back to English with one console note each. */
export function languageFor(tag) {
  if (!tag) return DEFAULT_LANGUAGE;
  const lang = supportedLanguage(tag);
  if (lang) return lang;
  if (!noted.has(tag)) {
    noted.add(tag);
    console.info(`<attention-explorer>: language "${tag}" is not available (${Object.keys(CATALOGUES).join(', ')}); using English.`);
  }
  return DEFAULT_LANGUAGE;
}

/** Adds messages (a view's own, for instance) to a language's catalogue. */
export function addMessages(lang, messages) {
  if (!CATALOGUES[lang]) throw new Error(`addMessages: no catalogue for "${lang}"`);
  for (const [key, text] of Object.entries(messages)) CATALOGUES[lang][key] = text;
}

/** The {name} placeholders of a catalogue entry (all plural forms together), sorted. */
export function placeholdersOf(entry) {
  const texts = typeof entry === 'string' ? [entry] : Object.values(entry);
  const names = new Set();
  for (const text of texts) for (const match of text.matchAll(/\{(\w+)\}/g)) names.add(match[1]);
  return [...names].sort();
}

const formatters = new Map();
function numberFormat(lang, digits, style = 'decimal') {
  const key = `${lang}/${digits}/${style}`;
  if (!formatters.has(key)) {
    formatters.set(key, new Intl.NumberFormat(lang, {
      style, minimumFractionDigits: digits, maximumFractionDigits: digits, useGrouping: false,
    }));
  }
  return formatters.get(key);
}

/** French typography in a catalogue text: a narrow no-break space before ; : ! ? and %, and inside
 * guillemets (« mot »), so that no line ends between a mark and its word. (A multiplier keeps its
 * × attached, 12,24×, as a product a × b keeps its spaces.) */
export function frenchSpacing(text) {
  return text.replace(/\u00ab[ \u00a0\u202f]?/g, '\u00ab\u202f').replace(/[ \u00a0\u202f]?\u00bb/g, '\u202f\u00bb').replace(/[ \u00a0\u202f]?([;:!?%])(?!\/\/)/g, (match, mark, offset, whole) => {
    const before = whole[offset - 1];
    const opening = match[0] === mark && (offset === 0 || before === '(' || before === '\n' || before === '{' || before === '\u00ab');
    return opening ? match : `\u202f${mark}`;
  });
}

/** t(key, vars) for `lang`, with t.lang, t.number(value, digits), t.percent(value), t.times(value, digits). */
export function translator(lang = DEFAULT_LANGUAGE) {
  const catalogue = CATALOGUES[lang] ?? CATALOGUES[DEFAULT_LANGUAGE];
  const plural = new Intl.PluralRules(lang);
  const french = lang === 'fr';
  const spacedTexts = new Map();
  const spaced = (text) => {
    if (!spacedTexts.has(text)) spacedTexts.set(text, frenchSpacing(text));
    return spacedTexts.get(text);
  };
  const number = (value, digits = 3) => {
    if (!Number.isFinite(value)) return String(value);
    const text = numberFormat(lang, digits).format(value);
    return text.replace('-', '\u2212').replace(/^\u2212(?=[0.,]+$)/, '');
  };
  const integer = (value) => number(value, 0);
  // A placeholder's number: an integer as digits, any other (1.5e-12, 1.2e+39) in its shortest
  // form, with the reader's decimal mark.
  const numeral = (value) => (Number.isSafeInteger(value) || !Number.isFinite(value) ? integer(value)
    : String(value).replace('.', french ? ',' : '.').replace(/^-/, '\u2212'));
  const t = (key, vars = {}) => {
    let entry = catalogue[key] ?? CATALOGUES[DEFAULT_LANGUAGE][key];
    if (entry === undefined) return key;
    if (typeof entry !== 'string') entry = entry[plural.select(Number(vars.count ?? 0))] ?? entry.other;
    if (french) entry = spaced(entry);
    return entry.replace(/\{(\w+)\}/g, (whole, name) => {
      const value = vars[name];
      if (value === undefined) return whole;
      return typeof value === 'number' ? numeral(value) : String(value);
    });
  };
  t.lang = lang;
  t.number = number;
  t.integer = integer;
  /** "12.24×" / "12,24×" */
  t.times = (value, digits = 2) => `${number(value, digits)}\u00d7`;
  /** 0.42 → "42%" / "42 %" (one decimal below 10%). */
  t.percent = (value) => {
    const digits = value >= 0.0995 ? 0 : 1;
    return `${number(value * 100, digits)}${french ? '\u202f' : ''}%`;
  };
  /** A probability as shown on bars: 0.221, or 3e-4 style for tiny values. */
  t.probability = (value) => {
    if (value !== 0 && Math.abs(value) < 0.001) {
      const [mantissa, exponent] = value.toExponential(0).split('e');
      return `${number(Number(mantissa), 0)}e${exponent.replace('-', '\u2212').replace('+', '')}`;
    }
    return number(value, 3);
  };
  /** 1.78e−5 / 1,78e−5: a small error in scientific notation, the mantissa in the reader's format. */
  t.scientific = (value, digits = 2) => {
    const [mantissa, exponent] = value.toExponential(digits).split('e');
    return `${number(Number(mantissa), digits)}e${exponent.replace('-', '\u2212').replace('+', '')}`;
  };
  /** A token or word as quoted in running text: “cat” / « cat ». */
  t.quote = (text) => (french ? `\u00ab\u202f${text}\u202f\u00bb` : `\u201c${text}\u201d`);
  t.megabytes = (bytes) => (french ? `${number(bytes / 1e6, 1)}\u00a0Mo` : `${number(bytes / 1e6, 1)} MB`);
  return t;
}
