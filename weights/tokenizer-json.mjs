// tokenizer.json (Hugging Face `tokenizers`) read as the vocab.txt it stands for and the
// settings it runs: the engine's tokenizer (c/tokenizer.c) is BERT WordPiece — BertNormalizer
// with clean_text, and lowercase, strip_accents and handle_chinese_chars as the file says,
// BertPreTokenizer, WordPiece with its continuing-subword prefix and 100 characters per word, the
// special tokens [CLS] [SEP] [MASK] [PAD] [UNK] matched on the raw text. A tokenizer.json that
// says so gives the same tokens through the vocab.txt built here (its ids in order) and those
// settings (weights/tokenizer-settings.mjs); one that says anything else is refused by the
// setting's name.
import { fail, quoteValue } from './convert-error.mjs';
import { checkSubwordPrefix } from './tokenizer-settings.mjs';
import { SPECIAL } from '../c/spec.mjs';

const LABEL = 'tokenizer.json';
export const TOKENIZER_JSON_MAX_BYTES = 64 << 20;

const isBoolean = (value) => value === true || value === false;

/** The normalizer's settings: { lowercase, stripAccents, chineseChars }. */
function normalizerSettings(normalizer) {
  if (!normalizer || normalizer.type !== 'BertNormalizer') {
    fail('convert.refusal.tokenizerJson.normalizer', { value: quoteValue(normalizer?.type ?? normalizer ?? null) });
  }
  if (normalizer.clean_text !== true) {
    fail('convert.refusal.tokenizerJson.cleanText', { value: quoteValue(normalizer.clean_text) });
  }
  for (const key of ['lowercase', 'handle_chinese_chars']) {
    if (!isBoolean(normalizer[key])) fail('convert.refusal.tokenizerJson.normalizerBoolean', { key, value: quoteValue(normalizer[key]) });
  }
  const strip = normalizer.strip_accents;
  if (strip !== null && strip !== undefined && !isBoolean(strip)) {
    fail('convert.refusal.tokenizerJson.stripAccents', { value: quoteValue(strip) });
  }
  // strip_accents null follows lowercase, as in BertNormalizer.
  return { lowercase: normalizer.lowercase, stripAccents: isBoolean(strip) ? strip : normalizer.lowercase, chineseChars: normalizer.handle_chinese_chars };
}

function checkModel(model) {
  if (!model || model.type !== 'WordPiece') fail('convert.refusal.tokenizerJson.model', { value: quoteValue(model?.type ?? null) });
  const settings = { unk_token: SPECIAL.unk, max_input_chars_per_word: 100 };
  for (const [key, wanted] of Object.entries(settings)) {
    if (model[key] !== undefined && model[key] !== wanted) fail('convert.refusal.tokenizerJson.modelSetting', { key, value: quoteValue(model[key]), wanted: quoteValue(wanted) });
  }
  if (!model.vocab || typeof model.vocab !== 'object' || Array.isArray(model.vocab)) fail('convert.refusal.tokenizerJson.vocabNotObject');
  const prefix = model.continuing_subword_prefix ?? '##';
  checkSubwordPrefix(prefix, `${LABEL}: model continuing_subword_prefix`);
  return prefix;
}

function checkPreTokenizer(pre) {
  if (pre === null || pre === undefined) fail('convert.refusal.tokenizerJson.noPreTokenizer');
  if (pre.type !== 'BertPreTokenizer') fail('convert.refusal.tokenizerJson.preTokenizer', { value: quoteValue(pre.type) });
}

export const TOKENIZER_JSON_MAX_DEPTH = 64;

// The file's bytes: its size is checked before anything is decoded (the page and the command
// line pass the bytes; a string is encoded first).
function tokenizerBytes(input) {
  const size = input.length;
  if (size > TOKENIZER_JSON_MAX_BYTES) fail('convert.refusal.tokenizerJson.tooLarge', { size, most: TOKENIZER_JSON_MAX_BYTES });
  return typeof input === 'string' ? new TextEncoder().encode(input) : input;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN = new Set([0x7b, 0x5b]);
const CLOSE = new Set([0x7d, 0x5d]);
const COMMA = 0x2c;

/**
 * One pass over the bytes before JSON.parse: no object or list holds more than `most` entries
 * (the vocabulary, the largest a WordPiece tokenizer.json holds, has at most config.json's
 * vocab_size) and nothing nests deeper than TOKENIZER_JSON_MAX_DEPTH. Parsing is what costs
 * (seconds for millions of entries), so what is too large is refused before it is parsed.
 */
function checkContainers(bytes, most) {
  const commas = new Float64Array(TOKENIZER_JSON_MAX_DEPTH + 1);
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (inString) {
      if (b === BACKSLASH) i++;
      else if (b === QUOTE) inString = false;
    } else if (b === QUOTE) inString = true;
    else if (OPEN.has(b)) {
      if (++depth > TOKENIZER_JSON_MAX_DEPTH) fail('convert.refusal.tokenizerJson.nesting', { most: TOKENIZER_JSON_MAX_DEPTH, offset: i });
      commas[depth] = 0;
    } else if (CLOSE.has(b)) depth = Math.max(0, depth - 1);
    else if (b === COMMA && depth > 0 && ++commas[depth] >= most) {
      fail('convert.refusal.tokenizerJson.tooManyEntries', { most, offset: i });
    }
  }
}

function tokenizerText(input, vocabSize) {
  const bytes = tokenizerBytes(input);
  checkContainers(bytes, vocabSize);
  if (typeof input === 'string') return input;
  try { return new TextDecoder('utf-8', { fatal: true }).decode(bytes); } catch { return fail('convert.refusal.tokenizerJson.utf8'); }
}

// The vocabulary's size, counted without collecting it and stopping past `limit`.
function vocabCount(vocab, limit) {
  let count = 0;
  for (const key in vocab) if (Object.hasOwn(vocab, key) && ++count > limit) break;
  return count;
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function checkToken(token, id) {
  const lone = LONE_SURROGATE.exec(token);
  if (lone) {
    const unit = lone[0].charCodeAt(0).toString(16).toUpperCase();
    fail('convert.refusal.tokenizerJson.loneSurrogate', { token: quoteValue(token), id, unit });
  }
  if (/[\n\r]/.test(token)) fail('convert.refusal.tokenizerJson.lineBreak', { token: quoteValue(token), id });
  if (token !== token.trimEnd() || token === '') fail('convert.refusal.tokenizerJson.trailingSpace', { token: quoteValue(token), id });
}

// Token by id, each id 0…count − 1 given once.
function tokensById(vocab, count) {
  const byId = new Array(count);
  for (const token in vocab) {
    if (!Object.hasOwn(vocab, token)) continue;
    const id = vocab[token];
    if (!Number.isInteger(id) || id < 0 || id >= count) {
      fail('convert.refusal.tokenizerJson.idRange', { token: quoteValue(token), id: quoteValue(id), count, last: count - 1 });
    }
    if (byId[id] !== undefined) fail('convert.refusal.tokenizerJson.sharedId', { first: quoteValue(byId[id]), second: quoteValue(token), id });
    checkToken(token, id);
    byId[id] = token;
  }
  return byId;
}

// added_tokens: a list of objects, each an integer id of the vocabulary with that entry's content.
function checkAddedTokens(added, vocab, count) {
  if (added === undefined || added === null) return;
  if (!Array.isArray(added)) fail('convert.refusal.tokenizerJson.addedNotList', { value: quoteValue(added) });
  added.forEach((entry, i) => {
    if (!entry || typeof entry !== 'object' || Array.isArray(entry)) fail('convert.refusal.tokenizerJson.addedNotObject', { index: i, value: quoteValue(entry) });
    const { id, content } = entry;
    if (typeof content !== 'string') fail('convert.refusal.tokenizerJson.addedContent', { index: i, value: quoteValue(content) });
    if (!Number.isInteger(id) || id < 0 || id >= count) {
      const params = { index: i, token: quoteValue(content), id: quoteValue(id), last: count - 1 };
      if (id === undefined) fail('convert.refusal.tokenizerJson.addedNoId', params);
      fail('convert.refusal.tokenizerJson.addedIdRange', params);
    }
    if (!Object.hasOwn(vocab, content) || vocab[content] !== id) {
fail('convert.refusal.tokenizerJson.addedNotVocab', { index: i, token: quoteValue(content), id });
    }
  });
}

/**
 * The vocab.txt bytes a WordPiece tokenizer.json stands for (entry of id i on line i + 1).
 * input: the file's bytes (or its text); vocabSize: config.json's vocab_size, the most entries
 * read (a larger vocabulary is refused before it is collected).
 */
export function vocabFromTokenizerJson(input, options = {}) {
  return readTokenizerJson(input, options).vocab;
}

/**
 * A WordPiece tokenizer.json: { vocab (the vocab.txt bytes, entry of id i on line i + 1),
 * settings ({ lowercase, stripAccents, chineseChars, subwordPrefix }) }.
 */
export function readTokenizerJson(input, { vocabSize = Infinity } = {}) {
  const text = tokenizerText(input, vocabSize);
  let json;
  try { json = JSON.parse(text); } catch (e) { fail('convert.refusal.tokenizerJson.json', { error: e.message }); }
  if (!json || typeof json !== 'object' || Array.isArray(json)) fail('convert.refusal.tokenizerJson.notObject');
  const subwordPrefix = checkModel(json.model);
  const settings = { ...normalizerSettings(json.normalizer), subwordPrefix };
  checkPreTokenizer(json.pre_tokenizer);
  const count = vocabCount(json.model.vocab, vocabSize);
  if (count > vocabSize) {
    fail('convert.refusal.tokenizerJson.vocabTooLarge', { vocab: vocabSize });
  }
  const byId = tokensById(json.model.vocab, count);
  checkAddedTokens(json.added_tokens, json.model.vocab, count);
  return { vocab: new TextEncoder().encode(`${byId.join('\n')}\n`), settings };
}

/** When a folder has both: null when they agree, else the refusal ([code, params]) naming the first line that differs. */
export function vocabDisagreement(vocabTxt, fromJson) {
  const a = new TextDecoder().decode(vocabTxt).split('\n');
  const b = new TextDecoder().decode(fromJson).split('\n');
  if (a.at(-1) === '') a.pop();
  b.pop();
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i]?.trimEnd();
    if (x !== b[i]) {
      const params = { line: i + 1, id: i, vocabTxt: quoteValue(x), json: quoteValue(b[i]) };
      if (x === undefined) return ['convert.refusal.tokenizerJson.disagreeNoLine', params];
      if (b[i] === undefined) return ['convert.refusal.tokenizerJson.disagreeNoToken', params];
      return ['convert.refusal.tokenizerJson.disagree', params];
    }
  }
  return null;
}
