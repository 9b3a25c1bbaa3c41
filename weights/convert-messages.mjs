// The converter's notes as codes with parameters: the command line prints the English text of
// a code (phrase), the page phrases the same code from its catalogue in the reader's language
// (web/src/i18n/en.mjs takes these English texts, fr.mjs has its own for every code).

export const CONVERT_NOTES_EN = {
  'convert.note.tokenizerSettings': 'tokenizer: lowercase {lowercase}, strip_accents {stripAccents}, handle_chinese_chars {chineseChars}, continuing_subword_prefix {prefix} (from {source})',
  'convert.note.tokenizerSettingsDefault': 'tokenizer: lowercase {lowercase}, strip_accents {stripAccents}, handle_chinese_chars {chineseChars}, continuing_subword_prefix {prefix} (no file gives them: BERT uncased)',
  'convert.note.configDefaults': "config.json: {keys} not given: BertConfig's defaults used",
  'convert.note.tokenizerVocab': 'note: no vocab.txt: the vocabulary of tokenizer.json (WordPiece, BertNormalizer, uncased) used',
  'convert.note.finalNewline': 'note: vocab.txt has no final newline: one added',
  'convert.note.padding': 'note: vocab.txt has {lines} lines, config.json vocab_size is {vocab}: rows {lines}\u2026{last} are padding, '
    + 'stored as {entry}\u2026 (the tokenizer never produces them)',
  'convert.note.repeat': 'note: vocab.txt line {line} repeats line {earlier} ({entry}): the later id is used, as Hugging Face does',
  'convert.note.repeats': 'note: vocab.txt repeats {count} entries in all',
  'convert.note.control': 'note: vocab.txt line {lines} holds control characters: kept (the ids stay in place), though no text produces them (the tokenizer removes control characters)',
  'convert.note.controls': 'note: vocab.txt lines {lines} hold control characters: kept (the ids stay in place), though no text produces them (the tokenizer removes control characters)',
  'convert.note.controlsMore': 'note: vocab.txt lines {lines} and {more} more hold control characters: kept (the ids stay in place), though no text produces them (the tokenizer removes control characters)',
  'convert.note.bare': 'note: tensor names without the "bert." prefix (a BertModel checkpoint): read as bert.*',
  'convert.note.gammaBeta': 'note: {count} LayerNorm tensors named gamma/beta: read as weight/bias',
  'convert.note.pretraining': 'note: the pooler and the next-sentence head ({names}) of a BertForPreTraining checkpoint: not used by the explorer, left out',
  'convert.note.decoderBias': 'note: no {bias}: {decoder} used as the output bias',
  'convert.note.noMlm': 'note: no masked-LM head (no cls.predictions.* tensors): attention works, [MASK] predictions are off',
  'convert.note.ignoring': 'note: ignoring tensor {name}',
  'convert.note.ignoringMore': 'note: ignoring {count} more tensors the engine does not use ({all} in all)',
};

// Refusals the page phrases itself (ConvertError's reason); the others show the English message.
export const CONVERT_REFUSALS_EN = {
  'convert.refusal.positiveInteger': 'config.json: {key} must be a positive integer, got {value}',
  'convert.refusal.atMost': 'config.json: {key} is {value}, the engine runs at most {limit}',
  'convert.refusal.modelType': 'config.json: model_type is {value}; this engine runs "bert"',
  'convert.refusal.hiddenAct': 'config.json: hidden_act is {value}; this engine runs "gelu" (exact erf)',
  'convert.refusal.positionType': 'config.json: position_embedding_type is {value}; this engine runs "absolute"',
  'convert.refusal.torchScript': '{label}: a TorchScript archive (torch.jit.save), not a state dict: save model.state_dict() with torch.save',
  'convert.refusal.torchTar': '{label}: a tar file (PyTorch < 0.4): save the model again with a current PyTorch',
  'convert.refusal.notTorch': '{label}: neither a zip nor a pickle file: not something torch.save wrote',
  'convert.refusal.headsDivide': 'config.json: hidden_size {hidden} is not a multiple of num_attention_heads {heads}',
};

const ENGLISH = { ...CONVERT_NOTES_EN, ...CONVERT_REFUSALS_EN };

/** The English text of a code with its parameters (numbers as digits, no grouping). */
export function phrase(code, params = {}) {
  const text = ENGLISH[code];
  if (text === undefined) return code;
  return text.replace(/\{(\w+)\}/g, (whole, name) => (params[name] === undefined ? whole : String(params[name])));
}

/** A note: { code, params, text } (text: its English phrasing, what the command line prints). */
export const note = (code, params = {}) => ({ code, params, text: phrase(code, params) });

/** A refusal's message and reason (ConvertError's two arguments) for a code. */
export const refusal = (code, params = {}) => [phrase(code, params), [code, params]];
