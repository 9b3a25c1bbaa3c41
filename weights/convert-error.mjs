// The converter's refusal: a message for the command line, and a reason the page words itself.
// Its own module, so that the converter core and its readers (torch-checkpoint.mjs,
// tokenizer-json.mjs) all import it without importing each other.
//
// Every reader failure is a ConvertError naming the file and the field; anything else that
// reaches the command line or the page is a bug in the converter (reportableBug).
// A refusal is a code with parameters (convert-messages.mjs): its message is the code's English
// text, its reason the code the page phrases in the reader's language.

import { phrase } from './convert-messages.mjs';

// reason: [message catalogue key, placeholders] for a refusal the page words itself (web/src/i18n).
export class ConvertError extends Error {
  constructor(message, reason = null) {
    super(message);
    this.reason = reason;
  }
}

/** Refuses the input: code (a key of CONVERT_REFUSALS_EN) and its parameters. */
export const fail = (code, params = {}) => { throw new ConvertError(phrase(code, params), [code, params]); };

// The longest quotation of an input value in a message, in characters.
export const QUOTE_MAX_CHARS = 80;

const ELLIPSIS = '…';

function quoteString(s, max) {
  const cut = s.length > max ? `${s.slice(0, max)}` : s;
  // JSON.stringify escapes control characters and lone surrogates; the cut string is short.
  return s.length > max ? `${JSON.stringify(cut).slice(0, -1)}${ELLIPSIS}"` : JSON.stringify(cut);
}

function quoteScalar(v, max) {
  if (typeof v === 'string') return quoteString(v, max);
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  if (v === null) return 'null';
  if (v === undefined) return '(absent)';
  if (v instanceof Uint8Array) return `bytes[${v.length}]`;
  if (v instanceof Map) return `dict[${v.size}]`;
  return null;
}

/**
 * An input value (a JSON value, an unpickled value) quoted for a message: at most `max`
 * characters, lists and objects shown one level deep ([…] for anything nested), no recursion,
 * so a value nested a million deep or a string of a gigabyte costs no more than a short one.
 */
export function quoteValue(v, max = QUOTE_MAX_CHARS) {
  const scalar = quoteScalar(v, max);
  if (scalar !== null) return scalar;
  const items = Array.isArray(v) ? v : Array.isArray(v?.items) ? v.items : null;
  const parts = [];
  let length = 2;
  const add = (text) => {
    if (length + text.length + 2 > max) return false;
    parts.push(text);
    length += text.length + 2;
    return true;
  };
  let complete = true;
  if (items) {
    for (let i = 0; i < items.length && complete; i++) {
      complete = add(quoteScalar(items[i], max >> 2) ?? '[…]');
    }
    if (!complete || parts.length < items.length) parts.push(ELLIPSIS);
    return `[${parts.join(', ')}]`;
  }
  if (typeof v === 'object') {
    let count = 0;
    for (const key in v) {
      if (!Object.hasOwn(v, key)) continue;
      if (!add(`${quoteString(key, max >> 2)}: ${quoteScalar(v[key], max >> 2) ?? '{…}'}`)) { complete = false; break; }
      if (++count > max) break;
    }
    if (!complete) parts.push(ELLIPSIS);
    return `{${parts.join(', ')}}`;
  }
  return typeof v;
}

/** The message for a failure that is not a refusal: a bug, to be reported with its stack. */
export function reportableBug(error) {
  const stack = error instanceof Error ? (error.stack || `${error.name}: ${error.message}`) : String(error);
  return `internal error: please report it with this text (the converter refuses bad input with a named reason; this is not one)\n${stack}`;
}
