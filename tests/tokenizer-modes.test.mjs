// node --test tests/tokenizer-modes.test.mjs
// The engine's tokenizer against the reference (npm `tokenizers`) in each BertNormalizer
// setting the weights file stores (format version 3): uncased, cased (bert-base-cased,
// bert-base-multilingual-cased), lowercased with accents kept, cased with accents stripped, and
// cased without Chinese-character spacing; ids and offsets exactly, each code point alone and in
// four contexts. A sample of the code points (every one below U+0600, the unusual ones, one in
// 97 of the rest), so that it runs in `make test`; tests/tokenizer-exhaustive.test.mjs runs every
// code point uncased, cased and lowercased with accents kept (`make test-all`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  Differences, MODES, compareAlone, compareInContexts, defaultEngine, engineFor, referenceTokenizer, sampledValues,
} from './lib/tokenizer-sweep.mjs';

const codes = sampledValues();

for (const [mode, settings] of Object.entries(MODES)) {
  test(`${mode}: a sample of ${codes.length} code points, alone and in context, as the reference tokenizes them`, async () => {
    const { engine, vocabulary } = await engineFor(settings);
    const reference = await referenceTokenizer(vocabulary, settings);
    const differences = new Differences();
    await compareAlone(engine, reference, codes, differences);
    await compareInContexts(engine, reference, codes, differences);
    assert.equal(differences.byCode.size, 0, differences.report(mode));
    engine.destroy();
  });
}

test('the modes differ where they should: cased keeps "É" and "The", uncased does not', async () => {
  const cased = await engineFor(MODES.cased);
  const tokens = (engine, text) => engine.tokenize(text).tokens.slice(1, -1).join(' ');
  assert.equal(tokens(cased.engine, "The CAFÉ s'est Élève"), "The CAFÉ s ' est Élève");
  const kept = await engineFor(MODES['lowercased, accents kept']);
  assert.equal(tokens(kept.engine, 'The CAFÉ Élève'), 'the café élève');
  const stripped = await engineFor(MODES['cased, accents stripped']);
  assert.equal(tokens(stripped.engine, 'CAFÉ Élève'), 'C ##A ##F ##E E ##lev ##e', 'capitals kept, accents gone');
  const uncased = await defaultEngine();
  assert.equal(tokens(uncased.engine, 'The CAFÉ'), 'the cafe');
});
