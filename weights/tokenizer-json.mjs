// tokenizer.json (Hugging Face `tokenizers`) read as the vocab.txt it stands for: the engine's
// tokenizer (c/tokenizer.c) is BERT uncased WordPiece — BertNormalizer with clean_text,
// handle_chinese_chars, lowercase and accents stripped, BertPreTokenizer, WordPiece with "##"
// and 100 characters per word, the special tokens [CLS] [SEP] [MASK] [PAD] [UNK] matched on the
// raw text. A tokenizer.json that says the same gives the same tokens through the vocab.txt
// built here (its ids in order); one that says anything else is refused by the setting's name.
import { ConvertError } from './convert-error.mjs';

const fail = (message) => { throw new ConvertError(message); };
const LABEL = 'tokenizer.json';
export const TOKENIZER_JSON_MAX_BYTES = 64 << 20;

const ENGINE_NORMALIZER = { clean_text: true, handle_chinese_chars: true, lowercase: true };

function checkNormalizer(normalizer) {
  if (!normalizer || normalizer.type !== 'BertNormalizer') {
    fail(`${LABEL}: normalizer is ${JSON.stringify(normalizer?.type ?? normalizer ?? null)}; the engine runs BertNormalizer (uncased)`);
  }
  for (const [key, wanted] of Object.entries(ENGINE_NORMALIZER)) {
    if (normalizer[key] !== wanted) {
      fail(`${LABEL}: normalizer ${key} is ${JSON.stringify(normalizer[key])}; the engine's tokenizer is uncased BERT and runs ${key}: ${wanted}`
        + (key === 'lowercase' ? ' (a cased model would be given lowercased text)' : ''));
    }
  }
  // strip_accents null follows lowercase (true here), as in BertNormalizer.
  if (normalizer.strip_accents !== null && normalizer.strip_accents !== undefined && normalizer.strip_accents !== true) {
    fail(`${LABEL}: normalizer strip_accents is ${JSON.stringify(normalizer.strip_accents)}; the engine always strips accents`);
  }
}

function checkModel(model) {
  if (!model || model.type !== 'WordPiece') fail(`${LABEL}: the model is ${JSON.stringify(model?.type ?? null)}; the engine runs WordPiece`);
  const settings = { unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100 };
  for (const [key, wanted] of Object.entries(settings)) {
    if (model[key] !== undefined && model[key] !== wanted) fail(`${LABEL}: model ${key} is ${JSON.stringify(model[key])}; the engine's WordPiece uses ${JSON.stringify(wanted)}`);
  }
  if (!model.vocab || typeof model.vocab !== 'object' || Array.isArray(model.vocab)) fail(`${LABEL}: model.vocab is not an object of token → id`);
}

function checkPreTokenizer(pre) {
  if (pre === null || pre === undefined) fail(`${LABEL}: no pre_tokenizer; the engine splits words as BertPreTokenizer does`);
  if (pre.type !== 'BertPreTokenizer') fail(`${LABEL}: pre_tokenizer is ${JSON.stringify(pre.type)}; the engine runs BertPreTokenizer`);
}

/** The vocab.txt bytes a WordPiece tokenizer.json stands for (entry of id i on line i + 1). */
export function vocabFromTokenizerJson(text) {
  if (text.length > TOKENIZER_JSON_MAX_BYTES) fail(`${LABEL}: ${text.length} bytes, more than the ${TOKENIZER_JSON_MAX_BYTES} read`);
  let json;
  try { json = JSON.parse(text); } catch (e) { fail(`${LABEL} is not valid JSON: ${e.message}`); }
  if (!json || typeof json !== 'object' || Array.isArray(json)) fail(`${LABEL} must hold a JSON object`);
  checkModel(json.model);
  checkNormalizer(json.normalizer);
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
  return new TextEncoder().encode(`${byId.join('\n')}\n`);
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
