// The converter's notes as codes (weights/convert-messages.mjs): the command line prints their
// English text, the page phrases each code in the reader's language. A French page after a
// panel conversion (web/src/convert-run.mjs, what the panel's worker runs) shows no English note.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { runConversion } from '../web/src/convert-run.mjs';
import { translator } from '../web/src/i18n/index.mjs';
import fr from '../web/src/i18n/fr.mjs';
import { CONVERT_NOTES_EN, CONVERT_REFUSALS_EN, phrase } from '../weights/convert-messages.mjs';
import { ConvertError, parseConfig } from '../weights/convert-core.mjs';
import { repoRoot } from './lib/node-engine.mjs';

const FIXTURES = path.join(repoRoot, 'tests/fixtures/torch');
const read = (...parts) => new Uint8Array(fs.readFileSync(path.join(FIXTURES, ...parts)));
const text = (...parts) => fs.readFileSync(path.join(FIXTURES, ...parts), 'utf8');
// Words of the English notes that French never uses.
const ENGLISH = /\b(the|is|are|used|not|with|without|of|ignoring|holds?|lines?)\b/;

function notesOf(files) {
  const answer = runConversion({ config: text(files.dir, 'config.json'), ...files.more }, 'model');
  assert.ok(answer.notes, JSON.stringify(answer.refused ?? answer.bug));
  return answer.notes;
}

test('every note and refusal code has a French text with the same placeholders', () => {
  for (const [code, english] of Object.entries({ ...CONVERT_NOTES_EN, ...CONVERT_REFUSALS_EN })) {
    const french = fr[code];
    assert.ok(french, code);
    const names = (v) => [...JSON.stringify(v).matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort().join();
    assert.equal(names(french), names(english), code);
  }
});

test('after a panel conversion, a French page shows every note in French; the command line\'s text is the English', () => {
  const t = translator('fr');
  const cases = [
    { dir: 'google-zip', more: { vocab: read('google-zip', 'vocab.txt'), pytorch: read('google-zip', 'pytorch_model.bin') } },
    { dir: 'tokenizer-json', more: { tokenizer: read('tokenizer-json', 'tokenizer.json'), pytorch: read('tokenizer-json', 'pytorch_model.bin') } },
  ];
  const seen = new Set();
  for (const c of cases) {
    for (const note of notesOf(c)) {
      assert.ok(note.code, `a note without a code: ${note.text}`);
      seen.add(note.code);
      assert.equal(note.text, phrase(note.code, note.params));
      const shown = t(note.code, note.params);
      assert.doesNotMatch(shown.replace(/\(([^)]*\.)+[^)]*\)|[\w.]+\.\w+/g, ''), ENGLISH, `${note.code}: ${shown}`);
    }
  }
  assert.ok(['convert.note.gammaBeta', 'convert.note.pretraining', 'convert.note.tokenizerVocab'].every((c) => seen.has(c)), [...seen].join());
});

test('numbers in a French note follow the reader\'s language', () => {
  const t = translator('fr');
  assert.equal(t('convert.note.ignoringMore', { count: 98995, all: 99000 }), `note\u202f: ${t.integer(98995)} autres tenseurs inutiles au moteur ignorés (${t.integer(99000)} en tout)`);
  assert.equal(t('convert.maxError', { error: t.scientific(1.78e-5) }).replace(/\u202f/g, ' '), t('convert.maxError', { error: '1,78e\u22125' }).replace(/\u202f/g, ' '));
  assert.equal(t.scientific(1.78e-5), '1,78e\u22125');
  assert.equal(translator('en').scientific(1.78e-5), '1.78e\u22125');
});

test('a config.json refusal: the English message is the code\'s English text; a French page phrases it in French', () => {
  let error;
  try { parseConfig(JSON.stringify({ hidden_act: 'relu' })); } catch (e) { error = e; }
  assert.ok(error instanceof ConvertError);
  assert.equal(error.message, 'config.json: hidden_act is "relu"; this engine runs "gelu" (exact erf)');
  assert.deepEqual(error.reason, ['convert.refusal.config.hiddenAct', { value: '"relu"' }]);
  assert.equal(translator('en')(...error.reason), error.message);
  assert.match(translator('fr')(...error.reason), /^config\.json\u202f: hidden_act vaut "relu"\u202f; ce moteur exécute «\u202fgelu\u202f» \(erf exacte\)$/);
});
