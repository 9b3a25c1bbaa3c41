// The notebook helper (web/notebook/attention_explorer.py, run by Python without site-packages:
// the standard library only) and its command line (tools/explorer-html.mjs): the same bytes for the
// same explorers, each asset carried once and before the explorers, every text escaped, and each
// input that cannot be used refused with a message naming it (a weights file missing, too large,
// not a converted .bin; a layer, head, token, controls or attribute out of range). Drawing the
// pages is tests/browser/notebook.test.mjs's and the browser suite's testOneFile (tests/browser/topics/loading.mjs).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, truncateSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { repoRoot } from './lib/node-engine.mjs';
import { compactConfig, randomTensors, writeCheckpoint } from './lib/checkpoints.mjs';
import { MAX_WEIGHTS_BYTES } from '../tools/explorer-html.mjs';

const HELPER = path.join(repoRoot, 'web/notebook');
const CLI = path.join(repoRoot, 'tools/explorer-html.mjs');
const HOSTILE = 'He said "<script>alert(1)</script>" & left\'s é';
let dir, tiny;

before(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'attn-notebook-test-'));
  const config = compactConfig({ layers: 2, hidden: 128, vocab: 200, positions: 64 });
  const checkpoint = writeCheckpoint(path.join(dir, 'tiny'), { config, ...randomTensors(config, 7) });
  tiny = path.join(dir, 'tiny model.bin');
  execFileSync('node', [path.join(repoRoot, 'weights/convert.mjs'), checkpoint, tiny], { stdio: 'pipe' });
});
after(() => rmSync(dir, { recursive: true, force: true }));

/** Runs Python code with the helper importable and no site-packages; its stdout, parsed as JSON. */
function python(code) {
  const run = spawnSync('python3', ['-S', '-c', `import sys, json; sys.path.insert(0, ${JSON.stringify(HELPER)})\n${code}`],
    { encoding: 'utf8', maxBuffer: 1 << 28 });
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout);
}

/** The error each Python call raises: [class name, message]. */
function pythonRefusals(calls) {
  return python(`import attention_explorer as a
out = []
for call in ${JSON.stringify(calls)}:
    try:
        eval(call, {"a": a})
        out.append(None)
    except Exception as error:
        out.append([type(error).__name__, str(error)])
print(json.dumps(out))`);
}

const cli = (args) => spawnSync('node', [CLI, ...args], { encoding: 'utf8' });
const holders = (page) => [...page.matchAll(/<script type="application\/x-attention-asset" data-src="([^"]+)"/g)].map((m) => m[1]);

test('save() and the command line write the same bytes: each asset once, before the explorers, every text escaped', () => {
  const fromPython = path.join(dir, 'python.html'), fromCli = path.join(dir, 'cli.html');
  const size = python(`import attention_explorer as a
print(a.save(${JSON.stringify(fromPython)}, a.explorer(${JSON.stringify(HOSTILE)}, layer=2, head=3, token="it", view="Matrix", lang="fr", controls="None", theme="dark"),
  a.explorer("the cat sat.", weights=${JSON.stringify(tiny)}, token=1), "The cat sat on the mat.", title="Ça & <b>", lang="fr"))`);
  const run = cli([fromCli, HOSTILE, '--layer', '2', '--head', '3', '--token', 'it', '--view', 'Matrix', '--lang', 'fr', '--controls', 'None',
    '--theme', 'dark', 'the cat sat.', '--weights', tiny, '--token', '1', 'The cat sat on the mat.', '--title', 'Ça & <b>', '--page-lang', 'fr']);
  assert.equal(run.status, 0, run.stderr);
  const page = readFileSync(fromPython, 'utf8');
  assert.ok(readFileSync(fromPython).equals(readFileSync(fromCli)), 'save() and tools/explorer-html.mjs differ');
  assert.equal(size, Buffer.byteLength(page));
  const sources = holders(page);
  assert.deepEqual(sources.map((s) => s.split('/').pop()), ['attention-explorer.js', 'attn.wasm.js', 'bert-mini.int8.weights.js', 'tiny_model.weights.js']);
  const elements = [...page.matchAll(/<attention-explorer ([^>]*)><\/attention-explorer>/g)];
  assert.equal(elements.length, 3);
  assert.ok(page.lastIndexOf('data-attention-bundle') < elements[0].index, 'an explorer before the assets it reads');
  assert.match(page, /^<!doctype html>\n<html lang="fr">\n[\s\S]*<title>Ça &amp; &lt;b&gt;<\/title>/);
  assert.equal(page.match(/customElements\.get\('attention-explorer'\)/g).length, 1, 'the defining script once');
  const attributes = Object.fromEntries([...elements[0][1].matchAll(/([a-z]+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
  assert.equal(attributes.sentence, 'He said &quot;&lt;script&gt;alert(1)&lt;/script&gt;&quot; &amp; left&#x27;s é');
  assert.deepEqual(Object.keys(attributes), ['assets', 'weights', 'sentence', 'layer', 'head', 'token', 'view', 'lang', 'controls', 'theme']);
  assert.equal(attributes.controls, 'none');
  assert.ok(sources.includes(attributes.weights) && attributes.assets === sources[0].replace(/attention-explorer\.js$/, ''));
  assert.doesNotMatch(page, /sourceMappingURL/);
});

test('show() displays the explorer and its assets as HTML through IPython', () => {
  const shown = python(`import types
shown = []
display = types.ModuleType("IPython.display")
display.HTML = lambda data: {"html": data}
display.display = lambda value: shown.append(value["html"])
sys.modules["IPython"] = types.ModuleType("IPython")
sys.modules["IPython.display"] = display
import attention_explorer as a
a.show("The cat sat on the mat because it was tired.", token="it", lang="fr")
print(json.dumps({"shown": shown, "repr": a.explorer("The cat sat on the mat because it was tired.", token="it", lang="fr")._repr_html_()}))`);
  assert.equal(shown.shown.length, 1);
  assert.equal(shown.shown[0], shown.repr);
  assert.deepEqual(holders(shown.shown[0]).map((s) => s.split('/').pop()), ['attention-explorer.js', 'attn.wasm.js', 'bert-mini.int8.weights.js']);
  assert.match(shown.shown[0], /<attention-explorer [^>]*sentence="The cat sat on the mat because it was tired." token="it" lang="fr"><\/attention-explorer>$/);
});

test('weights= refuses a missing file, one over the limit and one that is not a converted .bin, naming why', () => {
  const notBin = path.join(dir, 'config.json');
  writeFileSync(notBin, '{"hidden_size": 256}');
  const huge = path.join(dir, 'huge.bin');
  writeFileSync(huge, 'BERTINT8');
  truncateSync(huge, MAX_WEIGHTS_BYTES + 1);  // sparse: no disk used
  const cases = [
    [path.join(dir, 'nowhere.bin'), /is not a file \(give a \.bin made by weights\/convert\.mjs\)/],
    [huge, /is 192\.0 MiB; a notebook output or a one-file page carries at most 192 MiB of weights/],
    [notBin, /is not a weights file made by weights\/convert\.mjs \(it does not start with BERTINT8\)/],
  ];
  const refusals = pythonRefusals(cases.map(([file]) => `a.explorer("the cat.", weights=${JSON.stringify(file)})`));
  cases.forEach(([file, message], i) => {
    assert.equal(refusals[i]?.[0], 'WeightsError', file);
    assert.match(refusals[i][1], message);
    const run = cli([path.join(dir, 'x.html'), 'the cat.', '--weights', file]);
    assert.equal(run.status, 2);
    assert.match(run.stderr, message);
  });
  truncateSync(huge, MAX_WEIGHTS_BYTES);
  assert.deepEqual(pythonRefusals([`a.Explorer("the cat.", weights=${JSON.stringify(huge)}).weights.name`]), [null], 'a file at the limit is carried');
});

test('options that cannot be used are refused with a message naming them', () => {
  const calls = {
    'a.explorer("")': /sentence: give the text/,
    'a.explorer("x", layer=0)': /layer: a number from 1/,
    'a.explorer("x", head=True)': /head: a number from 1/,
    'a.explorer("x", layer="2")': /layer: a number from 1/,
    'a.explorer("x", token=-1)': /token: an index from 0/,
    'a.explorer("x", controls="minimal")': /controls: one of full, compact, none/,
    'a.explorer("x", view="row view")': /view: a name such as/,
    'a.explorer("x", assets="elsewhere/")': /assets: not an attribute/,
    'a.explorer("x", compare=["a"])': /compare: a string or an integer/,
    'a.save("/nonexistent/x.html")': /save: give at least one explorer/,
  };
  const refusals = pythonRefusals(Object.keys(calls));
  Object.values(calls).forEach((message, i) => {
    assert.equal(refusals[i]?.[0], 'ValueError', Object.keys(calls)[i]);
    assert.match(refusals[i][1], message);
  });
  for (const [args, message] of [[['--layer', '0'], /layer: a number from 1/], [['--controls', 'minimal'], /controls: one of/],
    [['--assets', 'x/'], /assets: not an attribute/], [['--token', '-1'], /token: an index from 0/]]) {
    const run = cli([path.join(dir, 'x.html'), 'the cat.', ...args]);
    assert.equal(run.status, 2, args.join(' '));
    assert.match(run.stderr, message);
  }
  const early = cli([path.join(dir, 'x.html'), '--layer', '2', 'the cat.']);
  assert.match(early.stderr, /--layer: put an explorer's options after its sentence/);
});

test('--only-needed carries the head, the layers and the sentence\'s rows of a figure alone, and refuses any other explorer', () => {
  const out = path.join(dir, 'figure.html');
  const run = cli([out, 'The cat sat on the mat.', '--controls', 'none', '--view', 'Matrix', '--only-needed']);
  assert.equal(run.status, 0, run.stderr);
  const names = holders(readFileSync(out, 'utf8')).map((s) => s.split('/').pop());
  assert.deepEqual(names.slice(0, 4), ['attention-explorer.js', 'attn.wasm.js', 'bert-mini.int8.weights.head.js', 'bert-mini.int8.weights.part-000.js']);
  const partScripts = names.filter((n) => /\.part-\d+\.js$/.test(n));
  assert.ok(partScripts.length >= 5 && partScripts.length <= 12, `${partScripts.length} part scripts: the 4 layers and the rows of 7 tokens`);
  assert.match(readFileSync(out, 'utf8'), /weights="embedded:\/[0-9a-f]{16}\/bert-mini\.int8\.weights\.head\.js"/);
  for (const [args, message] of [
    [['The cat sat.'], /its controls are "full": only a figure alone/],
    [['The cat sat.', '--controls', 'none', '--view', 'MLM'], /its view "mask" reads the masked-word head/],
    [['The cat sat.', '--controls', 'none', '--view', 'compare'], /its view "compare"/],
    [['The cat sat on the [MASK].', '--controls', 'none'], /its sentence has a \[MASK\]/],
  ]) {
    const refused = cli([out, ...args, '--only-needed']);
    assert.equal(refused.status, 2, args.join(' '));
    assert.match(refused.stderr, message);
  }
});

test('README states the size of a figure alone with --only-needed', () => {
  const stated = /A figure of\nthe sentence above is then ([\d.]+) MB/.exec(readFileSync(path.join(repoRoot, 'README.md'), 'utf8'))?.[1];
  const out = path.join(dir, 'alone.html');
  const run = cli([out, 'The cat sat on the mat because it was tired.', '--token', 'it', '--controls', 'none', '--only-needed']);
  assert.equal(run.status, 0, run.stderr);
  assert.equal((readFileSync(out).length / 1e6).toFixed(1), stated);
});
