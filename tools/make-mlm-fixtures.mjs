// Writes tests/fixtures/bert-mini-int8/mlm-more.json: masked-word golden cases in the format of
// mlm.json, computed independently of the engine — token ids from npm `tokenizers` (BERT
// uncased WordPiece on the checkpoint's vocab.txt) and the top-10 predictions from the float64
// reference forward pass (weights/reference.mjs mlmTopK).
//
//   node tools/make-mlm-fixtures.mjs [CHECKPOINT_DIR] [OUT.json]
//   defaults: ../shared/checkpoints/bert-mini-int8, tests/fixtures/bert-mini-int8/mlm-more.json
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadCheckpoint, mlmTopK, referenceForward } from '../weights/reference.mjs';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const checkpoint = process.argv[2] ?? path.join(root, '../shared/checkpoints/bert-mini-int8');
const out = process.argv[3] ?? path.join(root, 'tests/fixtures/bert-mini-int8/mlm-more.json');
const TOP = 10;

// Masks at the start, middle and end of short and long texts, one to four per text, on
// function words, nouns, verbs, adjectives, numbers and punctuation.
const TEXTS = [
  '[MASK] is the largest city in France.',
  'The children played in the [MASK] until it got dark.',
  'She [MASK] her keys on the kitchen table.',
  'The river flows from the mountains to the [MASK].',
  'My favourite colour is [MASK].',
  'He bought three [MASK] of bread at the bakery.',
  'The doctor told him to [MASK] more water.',
  'We waited for the [MASK] at the station for an hour.',
  'The book was so [MASK] that I read it twice.',
  'Water boils at one hundred degrees [MASK].',
  'The [MASK] of the story is that honesty pays.',
  'They [MASK] married in the spring of that year.',
  'The teacher asked the [MASK] to open their books.',
  'A [MASK] has four legs and a long tail.',
  'The old man walked slowly [MASK] the hill.',
  'I will call you when I [MASK] home.',
  'The meeting was moved to [MASK] morning.',
  'She speaks English, French and [MASK].',
  'The [MASK] was full of stars that night.',
  'He plays the [MASK] in a small band.',
  'The [MASK] sat on the [MASK].',
  'The [MASK] of the [MASK] was closed for repairs.',
  '[MASK] you like some more tea?',
  'The war ended in [MASK], after six long years.',
  'The cat chased the mouse [MASK] the garden.',
  'It is [MASK] to swim in this lake [MASK] the winter.',
  'The train to London leaves at six [MASK] the morning [MASK]',
  'Why did you [MASK] the door open?',
  'The soup was too hot, so he let it [MASK].',
  'The company [MASK] a new phone last week.',
  'The girl smiled and [MASK] her hand.',
  'Most birds can [MASK], but penguins cannot.',
  'The museum is open every day except [MASK].',
  'After dinner we went for a [MASK] along the beach.',
  'Her brother is a [MASK] at the local hospital.',
  'The [MASK] rang twice before anyone answered.',
  'They built a small [MASK] at the edge of the forest, where the ground was dry and the wind '
    + 'could not reach them, and every evening they sat by the [MASK] and talked about the '
    + 'long journey that still lay ahead of them, the rivers they would have to [MASK] and the '
    + 'mountains beyond, until one by one they fell [MASK].',
  'In the morning the village was quiet; the [MASK] had gone to the fields, the children were at '
    + '[MASK], and only the old dog lay in the [MASK] of the church, watching the road.',
  'The first rule of the club is that you do not [MASK] about the club.',
  'Two plus two [MASK] four.',
  'The letter was signed by the [MASK] himself.',
  'If it rains tomorrow, the match will be [MASK].',
  'She looked out of the [MASK] and saw the snow.',
  'The price of [MASK] has doubled since last year.',
];

const { Tokenizer, WordPiece, bertNormalizer, bertPreTokenizer, bertProcessing } =
  createRequire(import.meta.url)('tokenizers');

async function referenceTokenizer(vocabFile) {
  const tokenizer = new Tokenizer(await WordPiece.fromFile(vocabFile,
    { unkToken: '[UNK]', continuingSubwordPrefix: '##', maxInputCharsPerWord: 100 }));
  tokenizer.setNormalizer(bertNormalizer({ cleanText: true, handleChineseChars: true, stripAccents: true, lowercase: true }));
  tokenizer.setPreTokenizer(bertPreTokenizer());
  tokenizer.setPostProcessor(bertProcessing(['[SEP]', tokenizer.tokenToId('[SEP]')], ['[CLS]', tokenizer.tokenToId('[CLS]')]));
  tokenizer.addSpecialTokens(['[CLS]', '[SEP]', '[MASK]', '[PAD]', '[UNK]']);
  return tokenizer;
}

const model = loadCheckpoint(checkpoint);
const tokenizer = await referenceTokenizer(path.join(checkpoint, 'vocab.txt'));
const maskId = model.vocab.indexOf('[MASK]');
const cases = [];
for (const text of TEXTS) {
  const ids = (await tokenizer.encode(text)).getIds();
  const result = referenceForward(model, ids);
  const masks = [];
  ids.forEach((id, position) => {
    if (id !== maskId) return;
    const top = mlmTopK(model, result, position, TOP).map(({ id: t, probability }) => [t, model.vocab[t], probability]);
    masks.push({ position, top });
  });
  if (masks.length === 0) throw new Error(`${JSON.stringify(text)}: no [MASK] after tokenization`);
  cases.push({ text, ids, masks });
}
writeFileSync(out, JSON.stringify(cases, null, 1) + '\n');
const count = cases.reduce((sum, c) => sum + c.masks.length, 0);
console.log(`${path.relative(process.cwd(), out)}: ${count} masks in ${cases.length} texts`);
