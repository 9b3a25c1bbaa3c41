// The converter's refusals as codes (weights/convert-messages.mjs): every reader refuses through
// a code with parameters, the command line prints its English text, a French page its French
// one. A static scan keeps an English-only refusal (a sentence given to fail) from coming back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { CONVERT_REFUSALS_EN, OVERFLOW_LAYER_NORMS, OVERFLOW_STAGES_EN, phrase } from '../weights/convert-messages.mjs';
import {
  CARD_KEY_TYPES, ConvertError, chooseCheckpointFiles, checkCard, checkFileSize, parseConfig, parseSafetensors, parseVocab,
} from '../weights/convert-core.mjs';
import { parseTorchCheckpoint } from '../weights/torch-checkpoint.mjs';
import { vocabFromTokenizerJson } from '../weights/tokenizer-json.mjs';
import { settingsFromKeys } from '../weights/tokenizer-settings.mjs';
import { placeholdersOf, translator } from '../web/src/i18n/index.mjs';
import en from '../web/src/i18n/en.mjs';
import fr from '../web/src/i18n/fr.mjs';
import { repoRoot } from './lib/node-engine.mjs';
import { codedRefusal } from './lib/refused.mjs';
import { global, int, str, tuple, valuePickle, LEGACY_MAGIC_OPS } from './lib/pickle.mjs';
import { writeZip } from './lib/zip.mjs';

const FIXTURES = path.join(repoRoot, 'tests/fixtures/torch');
const WEIGHTS = path.join(repoRoot, 'weights');
const CODE = /^convert\.refusal\.[\w.]+$/;
// Words of the English texts that French never uses.
const ENGLISH = /\b(the|is|are|used|not|with|without|of|has|have|holds?|needs?|must|got|more than|than|which|reads?|lines?|entry|entries|bytes|only|no|or|and|nothing)\b/;

/**
 * The refusal sites of a module's source that give fail (or new ConvertError) anything but a
 * code of `codes`: a sentence (string or template literal), an unknown code, or a template whose
 * fixed start names no code. `fail(...pair)` (a [code, params] returned by a reader) is allowed
 * only where `spreads` lists its variable. Returns [{ line, call }].
 */
function uncodedRefusals(source, codes, { spreads = [] } = {}) {
  const found = [];
  const keys = Object.keys(codes);
  for (const m of source.matchAll(/\b(?:fail|new ConvertError)\(\s*/g)) {
    const at = m.index + m[0].length;
    const rest = source.slice(at, at + 400);
    const line = source.slice(0, m.index).split('\n').length;
    const call = source.slice(m.index, m.index + 120).split('\n')[0];
    const quoted = /^'([^'\\]*)'/.exec(rest);
    const template = /^`([^`$]*)(\$\{)?/.exec(rest);
    const spread = /^\.\.\.(\w+)\)/.exec(rest);
    let coded = false;
    if (quoted) coded = Object.hasOwn(codes, quoted[1]) && CODE.test(quoted[1]);
    else if (template) coded = Boolean(template[2]) && template[1].startsWith('convert.refusal.') && keys.some((k) => k.startsWith(template[1]));
    else if (spread) coded = spreads.includes(spread[1]);
    else if (/^phrase\(code, params\), \[code, params\]\)/.test(rest)) coded = true;  // fail itself (convert-error.mjs)
    if (!coded) found.push({ line, call });
  }
  return found;
}

test('the scan finds a refusal given a sentence, an unknown code or a computed message, and passes coded ones', () => {
  const codes = { 'convert.refusal.x.one': 'one {a}', 'convert.refusal.y.two': 'two' };
  const bad = [
    "fail(`${label}: too short`);", "fail('config.json must hold a JSON object');", 'fail("a sentence");',
    "fail('convert.refusal.x.unknown');", 'fail(message);', "throw new ConvertError('words');", 'fail(`convert.refusal.z.${kind}`);',
    'fail(...pair);', "fail(`convert.refusal.x.one`);",
  ];
  for (const source of bad) assert.equal(uncodedRefusals(source, codes).length, 1, source);
  const good = ["fail('convert.refusal.x.one', { a: 1 });", 'fail(`convert.refusal.y.${what}`);', "  fail(\n    'convert.refusal.y.two');",
    'if (d) fail(...d);'];
  for (const source of good) assert.deepEqual(uncodedRefusals(source, codes, { spreads: ['d'] }), [], source);
});

test('no module of the converter refuses with an English sentence: every fail names a code', () => {
  const files = fs.readdirSync(WEIGHTS).filter((f) => f.endsWith('.mjs'));
  assert.ok(files.length >= 8, files.join());
  const sites = [];
  let calls = 0;
  for (const file of files) {
    const source = fs.readFileSync(path.join(WEIGHTS, file), 'utf8');
    calls += [...source.matchAll(/\bfail\(/g)].length;
    for (const site of uncodedRefusals(source, CONVERT_REFUSALS_EN, { spreads: ['disagreement'] })) sites.push(`${file}:${site.line}: ${site.call}`);
  }
  assert.deepEqual(sites, []);
  assert.ok(calls > 150, `the refusal sites were found (${calls})`);
});

test('every refusal code has an English text in the page (the converter\'s own) and a French text with the same placeholders', () => {
  const groups = new Set();
  for (const [code, english] of Object.entries(CONVERT_REFUSALS_EN)) {
    assert.match(code, CODE);
    groups.add(code.split('.')[2]);
    assert.equal(en[code], english, code);
    assert.equal(typeof fr[code], 'string', `${code}: no French text`);
    assert.deepEqual(placeholdersOf(fr[code]), placeholdersOf(english), code);
    if (english !== '{usage}') assert.notEqual(fr[code], english, `${code}: the French text is the English one`);
  }
  for (const group of ['config', 'vocab', 'tokenizerJson', 'tokenizer', 'files', 'safetensors', 'zip', 'pickle', 'legacy', 'torch', 'tensors', 'card', 'overflow']) {
    assert.ok(groups.has(group), group);
  }
  for (const stage of Object.keys(OVERFLOW_STAGES_EN)) assert.ok(CONVERT_REFUSALS_EN[`convert.refusal.overflow.${stage}`], stage);
  for (const stage of OVERFLOW_LAYER_NORMS) assert.ok(CONVERT_REFUSALS_EN[`convert.refusal.overflow.variance.${stage}`], stage);
  // The codes a refusal site completes at run time: a model card's value types, the pickle's tuples.
  for (const type of new Set(Object.values(CARD_KEY_TYPES))) assert.ok(CONVERT_REFUSALS_EN[`convert.refusal.card.${type}`], type);
  const torch = fs.readFileSync(path.join(WEIGHTS, 'torch-checkpoint.mjs'), 'utf8');
  const tuples = [...torch.matchAll(/\bitemsOf\(\w+, '([^']*)'\)/g)].map((m) => m[1]);
  assert.equal(tuples.length, [...torch.matchAll(/\bitemsOf\((?!v, what)/g)].length, 'every itemsOf names what it reads');
  for (const what of tuples) assert.ok(CONVERT_REFUSALS_EN[`convert.refusal.pickle.notTuple.${what}`], what);
});

const refusalOf = (fn, what = '') => {
  try { fn(); } catch (e) {
    if (e instanceof ConvertError) { codedRefusal(e); return e; }
    throw e;
  }
  return assert.fail(`not refused ${what}`);
};
const json = (value) => JSON.stringify(value);
const tokenizerJson = () => JSON.parse(fs.readFileSync(path.join(FIXTURES, 'tokenizer-json/tokenizer.json'), 'utf8'));
const zipOf = (pickle) => writeZip([['archive/data.pkl', pickle], ['archive/data/0', new Uint8Array(16)]]);
const damagedZip = () => {
  const zip = zipOf(valuePickle([0x7d]));
  zip[30 + 'archive/data.pkl'.length + 1] ^= 0xff;  // a byte of the pickle, after its local header
  return zip;
};

// One or more hostile inputs of each reader, with the code each is refused by.
const HOSTILE = [
  ['config.headsDivide', () => parseConfig(json({ hidden_size: 250, num_attention_heads: 4, intermediate_size: 64, num_hidden_layers: 2 }))],
  ['config.positiveInteger', () => parseConfig(json({ num_hidden_layers: 2.5 }))],
  ['config.vocabSpecial', () => parseConfig(json({ vocab_size: 4 }))],
  ['config.layerNormEps', () => parseConfig(json({ layer_norm_eps: -1 }))],
  ['config.notObject', () => parseConfig('[1]')],
  ['vocab.nul', () => parseVocab(new TextEncoder().encode('[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\na\0b\n'), { vocab: 10 })],
  ['vocab.missingSpecial', () => parseVocab(new TextEncoder().encode('[PAD]\n[UNK]\n'), { vocab: 10 })],
  ['tokenizerJson.normalizer', () => vocabFromTokenizerJson(json({ ...tokenizerJson(), normalizer: { type: 'Lowercase' } }))],
  ['tokenizerJson.noPreTokenizer', () => vocabFromTokenizerJson(json({ ...tokenizerJson(), pre_tokenizer: null }))],
  ['tokenizerJson.cleanText', () => vocabFromTokenizerJson(json({ ...tokenizerJson(), normalizer: { ...tokenizerJson().normalizer, clean_text: undefined } }))],
  ['tokenizerJson.addedContent', () => vocabFromTokenizerJson(json({ ...tokenizerJson(), added_tokens: [{ id: 0 }] }))],
  ['tokenizerJson.addedNoId', () => vocabFromTokenizerJson(json({ ...tokenizerJson(), added_tokens: [{ content: '[CLS]' }] }))],
  ['tokenizer.basicTokenize', () => settingsFromKeys({ do_basic_tokenize: false }, 'tokenizer_config.json')],
  ['files.missing', () => chooseCheckpointFiles(['config.json'])],
  ['files.sharded', () => chooseCheckpointFiles(['config.json', 'vocab.txt', 'model-00001-of-00002.safetensors'])],
  ['files.tooLarge', () => checkFileSize('config.json', 5e6)],
  ['safetensors.short', () => parseSafetensors(new Uint8Array(4))],
  ['safetensors.headerPastEnd', () => parseSafetensors(new Uint8Array([200, 0, 0, 0, 0, 0, 0, 0, 0x7b, 0x7d]))],
  ['zip.crc', () => parseTorchCheckpoint(damagedZip())],
  ['zip.noEnd', () => parseTorchCheckpoint(new Uint8Array([0x50, 0x4b, 0x03, 0x04, ...new Array(60).fill(0)]))],
  ['pickle.global', () => parseTorchCheckpoint(zipOf(valuePickle([...global('os', 'system'), ...tuple(str('true')), 0x52])))],
  ['pickle.opcode', () => parseTorchCheckpoint(zipOf(valuePickle([0xff])))],
  ['legacy.magic', () => parseTorchCheckpoint(valuePickle(int(7)))],
  ['legacy.protocol', () => parseTorchCheckpoint(new Uint8Array([...valuePickle(LEGACY_MAGIC_OPS), ...valuePickle(int(999))]))],
  ['torch.notTorch', () => parseTorchCheckpoint(new Uint8Array(300).fill(7))],
  ['card.unknownKey', () => checkCard(json({ colour: 'blue' }))],
];

test('hostile inputs of every reader: refused by a code; a French page phrases each in French, the command line in English', () => {
  const t = translator('fr');
  const english = translator('en');
  for (const [expected, fn] of HOSTILE) {
    const error = refusalOf(fn, expected);
    const [code, params] = error.reason;
    assert.equal(code, `convert.refusal.${expected}`, error.message);
    assert.equal(english(code, params), error.message, code);
    const shown = t(code, params);
    assert.notEqual(shown, error.message, code);
    // What French text remains once the values quoted from the input and the file names are set aside.
    const words = shown.replace(/"[^"]*"|«[^»]*»|\[[^\]]*\]|[\w-]+(\.[\w-]+)+|[\w.]+_[\w.]+|\S*-of-\S*/g, ' ');
    assert.doesNotMatch(words, ENGLISH, `${code}: ${shown}`);
  }
});

test('numbers in a French refusal follow the reader\'s language: no grouping by a comma, a decimal comma', () => {
  const t = translator('fr');
  const tooLarge = refusalOf(() => checkFileSize('tokenizer.json', 70123456));
  assert.match(t(...tooLarge.reason), /^tokenizer\.json\u202f: 70123456 octets, plus que les 67108864 lus$/);
  const overflow = ['convert.refusal.overflow.scores', { name: 'bert.x', layer: 3, value: 1.5e39, limit: 1.3e30 }];
  assert.match(phrase(...overflow), /layer 3's attention scores can reach 1\.5e\+39; the engine needs every activation under 1\.3e\+30\)/);
  assert.match(t(...overflow), /les scores d’attention de la couche 3\u202f: jusqu’à 1,5e\+39\u202f; le moteur demande que chaque activation reste sous 1,3e\+30\)/);
  assert.equal(t('convert.refusal.config.atMost', { key: 'hidden_size', value: 4096, limit: 2048 }), 'config.json\u202f: hidden_size vaut 4096, le moteur en accepte au plus 2048');
});
