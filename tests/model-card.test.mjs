// The model card as facts: the head roles the converter stores in web/dist/bert-mini.int8.bin
// agree with the float64 reference's attention on the same calibration text (computed here,
// independently of weights/head-roles.mjs), and the page phrases every fact from the catalogue
// in English and French, "what it cannot show" following the roles; cards written before
// (English sentences) are still shown.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { loadCheckpoint, referenceForward } from '../weights/reference.mjs';
import { CALIBRATION_SENTENCES, tokenizeAscii } from '../weights/calibration.mjs';
import { createEngine } from '../web/src/engine.mjs';
import { cardLimits, cardRoles } from '../web/src/model-card.mjs';
import { translator } from '../web/src/i18n/index.mjs';
import { defaultWasm, repoRoot } from './lib/node-engine.mjs';

const CHECKPOINT = path.join(repoRoot, '../shared/checkpoints/bert-mini-int8');
const weights = new Uint8Array(fs.readFileSync(path.join(repoRoot, 'web/dist/bert-mini.int8.bin')));
const wasm = new WebAssembly.Module(fs.readFileSync(defaultWasm));

/** Per head: share of words with their largest weight on the next / previous word, mean weight on [CLS] / [SEP]. */
function referenceRoles(model) {
  const { layers, heads } = model.shape;
  const H = layers * heads;
  const sums = { next: new Float64Array(H), previous: new Float64Array(H), cls: new Float64Array(H), sep: new Float64Array(H) };
  let words = 0, pairs = 0;
  for (const sentence of CALIBRATION_SENTENCES) {
    const ids = tokenizeAscii(model.vocab, sentence);
    const n = ids.length;
    const { attention } = referenceForward(model, ids);
    for (let h = 0; h < H; h++) {
      for (let i = 1; i < n - 1; i++) {
        const row = Array.from(attention.subarray((h * n + i) * n, (h * n + i + 1) * n));
        const top = row.indexOf(Math.max(...row));
        if (i + 1 < n - 1 && top === i + 1) sums.next[h]++;
        if (i > 1 && top === i - 1) sums.previous[h]++;
        sums.cls[h] += row[0];
        sums.sep[h] += row[n - 1];
      }
    }
    words += n - 2;
    pairs += n - 3;
  }
  return { next: [...sums.next].map((v) => v / pairs), previous: [...sums.previous].map((v) => v / pairs),
    cls: [...sums.cls].map((v) => v / words), sep: [...sums.sep].map((v) => v / words) };
}

test('the default weights\' head roles are the float64 reference\'s on the calibration text (within 0.02)', { skip: !fs.existsSync(CHECKPOINT) && 'no checkpoint' }, async () => {
  const engine = await createEngine({ wasm, weights });
  const card = engine.modelCard();
  const stored = cardRoles(card, engine.shape);
  assert.ok(stored, 'the card holds the four per-head lists, one value per head');
  const model = loadCheckpoint(CHECKPOINT);
  assert.ok(CALIBRATION_SENTENCES.every((s) => tokenizeAscii(model.vocab, s).length <= model.shape.maxPositions), 'no sentence cut');
  const reference = referenceRoles(model);
  for (const key of ['next', 'previous', 'cls', 'sep']) {
    const worst = Math.max(...stored[key].map((v, h) => Math.abs(v - reference[key][h])));
    assert.ok(worst <= 0.02, `${key}: card ${stored[key].join(' ')} vs reference ${reference[key].map((v) => v.toFixed(3)).join(' ')} (worst ${worst})`);
  }
});

const shape = { layers: 2, heads: 2 };
const engine = { shape, hasMlm: () => true };
const roles = { head_next: [0.01, 0.02, 0.03, 0.04], head_previous: [0.02, 0.01, 0.01, 0.02], head_cls: [0.6, 0.1, 0.1, 0.3], head_sep: [0.05, 0.1, 0.1, 0.3] };

test('the page phrases the card in the reader\'s language: no positional head → said, with the recipe', () => {
  const card = { name: 'm', heldout_mlm_accuracy: 0.14, masked_word_head: true, ...roles };
  const en = cardLimits(card, translator('en'), engine).join(' ');
  assert.match(en, /frequent words[^]*14%[^]*No positional head[^]*Show Google's bert-mini in your course[^]*2 heads \(1\.1, 2\.2\) put at least 50% of their weight on \[CLS\] and \[SEP\]/);
  const fr = cardLimits(card, translator('fr'), engine).join(' ');
  assert.match(fr, /mot fréquent[^]*14\u202f%[^]*Aucune tête positionnelle[^]*bert-mini de Google[^]*2 têtes \(1\.1, 2\.2\) mettent au moins 50\u202f%/);
  assert.doesNotMatch(fr, /the model|attention weights|No positional/, 'no English sentence in French');
});

test('positional heads are named; roles not measured and no masked-word head are said; a card written before keeps its sentences', () => {
  const positional = { ...roles, head_previous: [0.02, 0.93, 0.01, 0.02], head_next: [0.01, 0.02, 0.71, 0.6] };
  const en = cardLimits({ name: 'g', heldout_mlm_accuracy: 0.5, masked_word_head: true, ...positional }, translator('en'), engine).join(' ');
  assert.match(en, /2 heads look at the next word \(2\.1, 2\.2\)[^]*1 head looks at the previous word \(1\.2\)/);
  assert.doesNotMatch(en, /No positional head|frequent words/);
  const fr = cardLimits({ name: 'g', masked_word_head: false }, translator('fr'), engine).join(' ');
  assert.match(fr, /Pas de tête de prédiction des mots masqués[^]*n’a pas mesuré le rôle des têtes/);
  assert.equal(cardRoles({ ...roles, head_cls: [0.1] }, shape), null, 'lists of another shape are not used');
  const legacy = { name: 'old', limits: 'No masked-word head: attention only' };
  assert.deepEqual(cardLimits(legacy, translator('fr'), engine), ['No masked-word head: attention only']);
});
