// tokenizer.json (Hugging Face `tokenizers`) read as the vocab.txt it stands for and the
// settings it runs: the engine's tokenizer (c/tokenizer.c) is BERT WordPiece — BertNormalizer
// with clean_text, and lowercase, strip_accents and handle_chinese_chars as the file says,
// BertPreTokenizer, WordPiece with its continuing-subword prefix and 100 characters per word, the
// special tokens [CLS] [SEP] [MASK] [PAD] [UNK] matched on the raw text. A tokenizer.json that
// says so gives the same tokens through the vocab.txt built here (its ids in order) and those
// settings (weights/tokenizer-settings.mjs); one that says anything else is refused by the
// setting's name.
import { ConvertError } from './convert-error.mjs';
import { checkSubwordPrefix } from './tokenizer-settings.mjs';

const fail = (message) => { throw new ConvertError(message); };
const LABEL = 'tokenizer.json';
export const TOKENIZER_JSON_MAX_BYTES = 64 << 20;

const isBoolean = (value) => value === true || value === false;

/** The normalizer's settings: { lowercase, stripAccents, chineseChars }. */
function normalizerSettings(normalizer) {
  if (!normalizer || normalizer.type !== 'BertNormalizer') {
    fail(`${LABEL}: normalizer is ${JSON.stringify(normalizer?.type ?? normalizer ?? null)}; the engine runs BertNormalizer`);
  }
  if (normalizer.clean_text !== true) {
    fail(`${LABEL}: normalizer clean_text is ${JSON.stringify(normalizer.clean_text)}; the engine's tokenizer always runs clean_text: true`);
  }
  for (const key of ['lowercase', 'handle_chinese_chars']) {
    if (!isBoolean(normalizer[key])) fail(`${LABEL}: normalizer ${key} is ${JSON.stringify(normalizer[key])}; expected true or false`);
  }
  const strip = normalizer.strip_accents;
  if (strip !== null && strip !== undefined && !isBoolean(strip)) {
    fail(`${LABEL}: normalizer strip_accents is ${JSON.stringify(strip)}; expected true, false or null`);
  }
  // strip_accents null follows lowercase, as in BertNormalizer.
  return { lowercase: normalizer.lowercase, stripAccents: isBoolean(strip) ? strip : normalizer.lowercase, chineseChars: normalizer.handle_chinese_chars };
}

function checkModel(model) {
  if (!model || model.type !== 'WordPiece') fail(`${LABEL}: the model is ${JSON.stringify(model?.type ?? null)}; the engine runs WordPiece`);
  const settings = { unk_token: '[UNK]', max_input_chars_per_word: 100 };
  for (const [key, wanted] of Object.entries(settings)) {
    if (model[key] !== undefined && model[key] !== wanted) fail(`${LABEL}: model ${key} is ${JSON.stringify(model[key])}; the engine's WordPiece uses ${JSON.stringify(wanted)}`);
  }
  if (!model.vocab || typeof model.vocab !== 'object' || Array.isArray(model.vocab)) fail(`${LABEL}: model.vocab is not an object of token → id`);
  const prefix = model.continuing_subword_prefix ?? '##';
  checkSubwordPrefix(prefix, `${LABEL}: model continuing_subword_prefix`);
  return prefix;
}

function checkPreTokenizer(pre) {
  if (pre === null || pre === undefined) fail(`${LABEL}: no pre_tokenizer; the engine splits words as BertPreTokenizer does`);
  if (pre.type !== 'BertPreTokenizer') fail(`${LABEL}: pre_tokenizer is ${JSON.stringify(pre.type)}; the engine runs BertPreTokenizer`);
}

/** The vocab.txt bytes a WordPiece tokenizer.json stands for (entry of id i on line i + 1). */
export function vocabFromTokenizerJson(text) {
  return readTokenizerJson(text).vocab;
}

/**
 * A WordPiece tokenizer.json: { vocab (the vocab.txt bytes, entry of id i on line i + 1),
 * settings ({ lowercase, stripAccents, chineseChars, subwordPrefix }) }.
 */
export function readTokenizerJson(text) {
  if (text.length > TOKENIZER_JSON_MAX_BYTES) fail(`${LABEL}: ${text.length} bytes, more than the ${TOKENIZER_JSON_MAX_BYTES} read`);
  let json;
  try { json = JSON.parse(text); } catch (e) { fail(`${LABEL} is not valid JSON: ${e.message}`); }
  if (!json || typeof json !== 'object' || Array.isArray(json)) fail(`${LABEL} must hold a JSON object`);
  const subwordPrefix = checkModel(json.model);
  const settings = { ...normalizerSettings(json.normalizer), subwordPrefix };
  checkPreTokenizer(json.pre_tokenizer);
  const entries = Object.entries(json.model.vocab);
  const byId = new Array(entries.length);
  for (const [token, id] of entries) {
    if (!Number.isInteger(id) || id < 0 || id >= entries.length) {
      fail(`${LABEL}: token ${JSON.stringify(token)} has id ${JSON.stringify(id)}; the ${entries.length} ids must be 0…${entries.length - 1}`);
    }
    if (byId[id] !== undefined) fail(`${LABEL}: tokens ${JSON.stringify(byId[id])} and ${JSON.stringify(token)} share id ${id}`);
    if (/[\n\r]/.test(token)) fail(`${LABEL}: token ${JSON.stringify(token)} (id ${id}) holds a line break, which vocab.txt cannot`);
    if (token !== token.trimEnd() || token === '') fail(`${LABEL}: token ${JSON.stringify(token)} (id ${id}) ends in white space, which the engine's vocabulary drops`);
    byId[id] = token;
  }
  for (const added of Array.isArray(json.added_tokens) ? json.added_tokens : []) {
    if (json.model.vocab[added?.content] !== added?.id) {
      fail(`${LABEL}: added token ${JSON.stringify(added?.content)} (id ${added?.id}) is not the vocabulary's entry of that id; `
        + 'the engine matches only [CLS] [SEP] [MASK] [PAD] [UNK] from the vocabulary');
    }
  }
  return { vocab: new TextEncoder().encode(`${byId.join('\n')}\n`), settings };
}

/** When a folder has both: null when they agree, else the first line that differs, named. */
export function vocabDisagreement(vocabTxt, fromJson) {
  const a = new TextDecoder().decode(vocabTxt).split('\n');
  const b = new TextDecoder().decode(fromJson).split('\n');
  if (a.at(-1) === '') a.pop();
  b.pop();
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i]?.trimEnd();
    if (x !== b[i]) {
      return `vocab.txt and tokenizer.json disagree at line ${i + 1} (id ${i}): vocab.txt has ${x === undefined ? 'no line' : JSON.stringify(x)}, `
        + `tokenizer.json ${b[i] === undefined ? 'no token' : JSON.stringify(b[i])}: remove the one that is not the model's`;
    }
  }
  return null;
}
