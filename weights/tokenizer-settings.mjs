// The tokenizer's settings a checkpoint asks for, as the weights file stores them (format
// version 3, c/spec.mjs TOKENIZER_FIELDS): { lowercase, stripAccents, chineseChars,
// subwordPrefix }. They come from tokenizer.json's BertNormalizer and WordPiece model
// (weights/tokenizer-json.mjs), from tokenizer_config.json, or from config.json (`do_lower_case`,
// `strip_accents`, `tokenize_chinese_chars`, as BertTokenizer takes them); without any, BERT
// uncased. strip_accents unset follows lowercase, as in BertNormalizer. A setting the engine's
// tokenizer cannot honour is refused by name.
import { fail, quoteValue } from './convert-error.mjs';
import { SUBWORD_PREFIX_SIZE, TOKENIZER_FLAGS, UNCASED_TOKENIZER } from '../c/spec.mjs';

const isBoolean = (value) => value === true || value === false;

/** Refuses a continuing-subword prefix the file cannot hold (label names where it was read). */
export function checkSubwordPrefix(prefix, label) {
  if (typeof prefix !== 'string') fail('convert.refusal.tokenizer.prefixType', { label, value: quoteValue(prefix) });
  const bytes = new TextEncoder().encode(prefix);
  if (bytes.length > SUBWORD_PREFIX_SIZE - 1 || prefix.includes('\0') || prefix.isWellFormed?.() === false) {
    fail('convert.refusal.tokenizer.prefixSize', { label, value: quoteValue(prefix), most: SUBWORD_PREFIX_SIZE - 1 });
  }
}

/**
 * The settings a tokenizer_config.json or config.json gives through BertTokenizer's keys, or null
 * when it names none of them. label: the file's name, for refusals.
 */
export function settingsFromKeys(json, label) {
  const keys = ['do_lower_case', 'strip_accents', 'tokenize_chinese_chars', 'do_basic_tokenize'];
  if (!keys.some((k) => json[k] !== undefined)) return null;
  for (const key of ['do_lower_case', 'tokenize_chinese_chars', 'do_basic_tokenize']) {
    if (json[key] !== undefined && !isBoolean(json[key])) fail('convert.refusal.tokenizer.boolean', { label, key, value: quoteValue(json[key]) });
  }
  if (json.do_basic_tokenize === false) {
    fail('convert.refusal.tokenizer.basicTokenize', { label });
  }
  const strip = json.strip_accents;
  if (strip !== undefined && strip !== null && !isBoolean(strip)) fail('convert.refusal.tokenizer.stripAccents', { label, value: quoteValue(strip) });
  const lowercase = json.do_lower_case ?? true;
  return { lowercase, stripAccents: isBoolean(strip) ? strip : lowercase, chineseChars: json.tokenize_chinese_chars ?? true };
}

/** A JSON file's object (text in), or a refusal naming the file. */
export function parseJsonObject(text, label) {
  let json;
  try { json = JSON.parse(text); } catch (e) { fail('convert.refusal.tokenizer.json', { label, error: e.message }); }
  if (!json || typeof json !== 'object' || Array.isArray(json)) fail('convert.refusal.tokenizer.notObject', { label });
  return json;
}

const NORMALIZER_KEYS = [['lowercase', 'do_lower_case / lowercase'], ['stripAccents', 'strip_accents'], ['chineseChars', 'tokenize_chinese_chars / handle_chinese_chars']];

/**
 * The settings of a checkpoint from what its files give (each null when absent): fromJson
 * (tokenizer.json's, with its prefix), fromTokenizerConfig and fromConfig (settingsFromKeys).
 * tokenizer.json and tokenizer_config.json must agree where both speak (transformers would make
 * the latter win over the former; a converter should not guess); config.json speaks only when
 * neither does. Returns { settings, source }.
 */
export function chooseTokenizerSettings({ fromJson = null, fromTokenizerConfig = null, fromConfig = null }) {
  if (fromJson && fromTokenizerConfig) {
    for (const [key, name] of NORMALIZER_KEYS) {
      if (fromJson[key] !== fromTokenizerConfig[key]) {
fail('convert.refusal.tokenizer.disagree', { name, json: fromJson[key], config: fromTokenizerConfig[key] });
      }
    }
  }
  const normalizer = fromJson ?? fromTokenizerConfig ?? fromConfig;
  const source = fromJson ? 'tokenizer.json' : fromTokenizerConfig ? 'tokenizer_config.json' : fromConfig ? 'config.json' : null;
  const settings = { ...UNCASED_TOKENIZER, ...(normalizer ?? {}), subwordPrefix: fromJson?.subwordPrefix ?? UNCASED_TOKENIZER.subwordPrefix };
  return { settings: Object.freeze(settings), source };
}

/** True for BERT uncased with "##", the settings a version-2 file implies. */
export function isUncased(settings) {
  return Object.keys(UNCASED_TOKENIZER).every((k) => settings[k] === UNCASED_TOKENIZER[k]);
}

/** The header's tokenizerFlags of the settings. */
export function tokenizerFlags(settings) {
  return Object.entries(TOKENIZER_FLAGS).reduce((flags, [key, bit]) => (settings[key] ? flags | bit : flags), 0);
}

/** The settings of a tokenizerFlags value and prefix (the inverse of tokenizerFlags). */
export function settingsOfFlags(flags, subwordPrefix) {
  return { ...Object.fromEntries(Object.entries(TOKENIZER_FLAGS).map(([k, bit]) => [k, (flags & bit) !== 0])), subwordPrefix };
}
