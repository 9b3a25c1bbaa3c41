// The element's structure, checked on its sources and its run scheduler: views share code
// through views/common.mjs (never by importing one another), the element names no view (a view
// declares what it needs), the element composes its parts (no methods spread onto its
// prototype), the heads switched off are the element's control (no view declares them), the
// scheduler owns the sessions (sentence B's included), and the special tokens are named by
// c/spec.mjs (no "[MASK]" written out in the code).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { VIEWS, fitStateToShape } from '../web/src/views/index.mjs';
import { ELEMENT_CONTROLS, controlNames, initialState, writeHash } from '../web/src/view-state.mjs';
import { RunScheduler } from '../web/src/explorer/scheduler.mjs';
import { Settings } from '../web/src/explorer/settings.mjs';
import { SPECIAL, SPECIAL_TOKENS } from '../c/spec.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const read = (file) => readFileSync(path.join(ROOT, file), 'utf8');
const filesIn = (dir, ext) => readdirSync(path.join(ROOT, dir)).filter((f) => f.endsWith(ext)).map((f) => `${dir}/${f}`);
/** The code of a source file without its comments (a comment may name a view or a token). */
const code = (file) => read(file).replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');

const SHARED_VIEW_MODULES = new Set(['./common.mjs', './controls.mjs']);
const ELEMENT_FILES = ['web/src/explorer.mjs', ...filesIn('web/src/explorer', '.mjs')];
const VIEW_FILES = filesIn('web/src/views', '.mjs');

test('a view imports views/common.mjs and the shared controls, never another view', () => {
  const views = filesIn('web/src/views', '.mjs').filter((f) => !/\/(index|common|controls)\.mjs$/.test(f));
  assert.ok(views.length >= 10, `${views.length} view modules`);
  for (const file of views) {
    const local = [...code(file).matchAll(/from '(\.\/[^']+)'/g)].map((m) => m[1]);
    const others = local.filter((name) => !SHARED_VIEW_MODULES.has(name));
    assert.deepEqual(others, [], `${file} imports ${others.join(', ')}`);
  }
});

test('the element and its parts name no view and no view\'s own state', () => {
  const ids = VIEWS.map((v) => v.id);
  const keys = VIEWS.flatMap((v) => [v, ...(v.controls ?? [])]).flatMap((source) => Object.keys(source.state ?? {}));
  assert.ok(ids.includes('matrix') && keys.includes('rolloutLayer'));
  for (const file of ELEMENT_FILES) {
    const text = code(file);
    for (const id of ids) assert.ok(!text.includes(`'${id}'`) && !text.includes(`"${id}"`), `${file} names the view ${id}`);
    for (const key of keys) assert.ok(!new RegExp(`\\.${key}\\b|\\b${key}:`).test(text), `${file} reads the view state ${key}`);
  }
});

test('the element composes its parts: no methods are spread onto a prototype', () => {
  const spread = /Object\.assign\(\s*[\w$.]*\.prototype\b/;
  const files = [...ELEMENT_FILES, ...filesIn('web/src', '.mjs')];
  assert.ok(files.includes('web/src/explorer.mjs') && files.includes('web/src/explorer/settings.mjs'));
  for (const file of files) assert.ok(!spread.test(code(file)), `${file} spreads methods onto a prototype`);
});

test('the heads switched off are the element\'s control: declared once, by no view, read and written like the others', () => {
  const declaresOff = (source) => 'off' in (source.state ?? {}) || (source.params ?? []).some((p) => p.name === 'off');
  for (const view of VIEWS) {
    for (const source of [view, ...(view.controls ?? [])]) assert.ok(!declaresOff(source), `the view ${view.id} declares off`);
  }
  for (const file of VIEW_FILES) {
    assert.ok(!/\bstate:\s*\{[^}]*\boff\s*:|Param\(\s*['"]off['"]/.test(code(file)), `${file} declares off`);
  }
  assert.equal(ELEMENT_CONTROLS.filter(declaresOff).length, 1);
  assert.ok(controlNames(VIEWS).includes('off'));
  const state = initialState(VIEWS);
  assert.deepEqual(state.off, []);
  const hash = new URLSearchParams(writeHash({ ...state, off: [[0, 1], [2, 3]] }, VIEWS).slice(1));
  assert.equal(hash.get('off'), '1.2,3.4');
});

test('state that follows the model\'s shape: set once a model is known, kept when chosen, reset for a new model', () => {
  const state = { rolloutLayer: null };
  fitStateToShape(state, { layers: 4, heads: 4 });
  assert.equal(state.rolloutLayer, 3);
  state.rolloutLayer = 1;
  fitStateToShape(state, { layers: 4, heads: 4 });
  assert.equal(state.rolloutLayer, 1);
  fitStateToShape(state, { layers: 12, heads: 12 }, true);
  assert.equal(state.rolloutLayer, 11);
});

test('special tokens are written out only in c/spec.mjs (and the messages that show them)', () => {
  const sources = [
    ...filesIn('web/src', '.mjs'), ...filesIn('web/src/views', '.mjs'), ...filesIn('web/src/explorer', '.mjs'),
    ...filesIn('weights', '.mjs').filter((f) => !/reference\.mjs$/.test(f)), ...filesIn('c', '.c'),
  ];
  const literal = new RegExp(`['"](${SPECIAL_TOKENS.map((t) => t.replace(/[[\]]/g, '\\$&')).join('|')})['"]`);
  for (const file of sources) {
    const found = code(file).split('\n').filter((line) => literal.test(line) && !/messages|'convert\.|'mlm\.|'imp\./.test(line));
    assert.deepEqual(found, [], `${file} writes a special token out`);
  }
  assert.equal(SPECIAL.mask, '[MASK]');
  assert.deepEqual(SPECIAL_TOKENS, Object.values(SPECIAL));
});

// ---------------------------------------------------------------- the run scheduler

/** An engine session that runs `layers` layers, one per step. */
function fakeSession(log, name) {
  let done = 0, layers = 0;
  return {
    beginText(text) { log.push(`${name} begins ${text}`); done = 0; layers = 2; return { n: text.length, tokens: [...text] }; },
    complete: () => done >= layers,
    step: () => { done += 1; return { waiting: false, layersDone: done }; },
    layersDone: () => done,
    removedHeads: () => [],
    setRemovedHeads() {},
    destroy() { log.push(`${name} destroyed`); },
  };
}

function schedulerFor(view) {
  const log = [];
  let sessions = 0;
  const engine = { shape: { layers: 2, heads: 2 }, createSession: () => fakeSession(log, sessions++ ? 'B' : 'A') };
  let finish;
  const finished = new Promise((resolve) => { finish = resolve; });
  const host = {
    state: { view, sentence: 'abc', compareSentence: 'xyz', layer: 1, off: [] },
    engine, connected: () => true,
    began: () => log.push('began'), draw: () => log.push('draw'), finished: () => { log.push('finished'); finish(); },
    failed: (error) => log.push(`failed ${error.message}`), compareFailed: (error) => log.push(`compare failed ${error.message}`),
    needsWeights: () => log.push('needs weights'), weightsFailed: () => log.push('weights failed'), waiting: () => log.push('waiting'),
    busy: () => {}, compareBegan: () => log.push('compare began'),
  };
  const scheduler = new RunScheduler(host);
  scheduler.open(engine);
  return { scheduler, log, finished };
}

test('the scheduler runs sentence B in a second session of its own for a view that compares, and frees both', async (t) => {
  globalThis.requestAnimationFrame ??= (fn) => setTimeout(fn, 0);
  t.after(() => { delete globalThis.requestAnimationFrame; });
  const compare = VIEWS.find((v) => v.compareText);
  const { scheduler, log, finished } = schedulerFor(compare.id);
  scheduler.runNow();
  await finished;
  assert.deepEqual(log.filter((line) => line !== 'draw'), ['A begins abc', 'began', 'B begins xyz', 'compare began', 'finished']);
  assert.ok(log.includes('draw'));
  assert.equal(scheduler.compareRun.n, 3);
  assert.equal(scheduler.hasLayers(compare, 2), true);
  scheduler.forgetCompare();
  assert.equal(scheduler.compareRun, null);
  scheduler.close();
  assert.deepEqual(log.slice(-2), ['A destroyed', 'B destroyed']);
  assert.equal(scheduler.session, null);
});

test('the scheduler makes no second session for a view that does not compare', async (t) => {
  globalThis.requestAnimationFrame ??= (fn) => setTimeout(fn, 0);
  t.after(() => { delete globalThis.requestAnimationFrame; });
  const row = VIEWS.find((v) => !v.compareText);
  const { scheduler, log, finished } = schedulerFor(row.id);
  scheduler.runNow();
  await finished;
  assert.ok(!log.some((line) => line.startsWith('B ')), log.join('; '));
  assert.equal(scheduler.compareSession, null);
  assert.equal(scheduler.hasLayers(row, 2), true);
  assert.equal(scheduler.hasLayers(row, 3), false);
});

// ---------------------------------------------------------------- the settings, through their host

/** Settings on a fake host: `calls` lists what they asked of the element. */
function settingsOn(state) {
  const calls = [];
  const host = {
    state, run: null, engine: { shape: { layers: 4, heads: 4 } }, parts: {}, t: null, tEnglish: null,
    attribute: () => null, keepsHash: () => false, prefersDark: () => false, find: () => null,
    syncControls: () => calls.push('sync'), draw: () => calls.push('draw'), runNow: () => calls.push('run'),
    request: () => calls.push('request'), forgetCompare: () => calls.push('forget B'), typedAt: (time) => calls.push(`typed at ${time}`),
  };
  return { settings: new Settings(host), host, calls };
}

test('the settings keep the chosen token across edits (same text, same occurrence), else show the first word', () => {
  const { settings, host } = settingsOn({ ...initialState(VIEWS), token: 4 });
  host.run = { tokens: ['[CLS]', 'it', 'is', 'what', 'it', 'is', '[SEP]'] };
  settings.chooseToken();
  assert.equal(host.state.token, 4);  // the second "it", kept as such
  host.run = { tokens: ['[CLS]', 'so', 'it', 'is', 'what', 'it', 'is', '[SEP]'] };
  settings.chooseToken();
  assert.equal(host.state.token, 5);
  host.run = { tokens: ['[CLS]', 'it', 'was', '[SEP]'] };
  settings.chooseToken();
  assert.equal(host.state.token, 1);  // no second "it" now: the first word, and the second "it" remembered
  host.run = { tokens: ['[CLS]', 'it', 'was', 'it', '[SEP]'] };
  settings.chooseToken();
  assert.equal(host.state.token, 3);
});

test('the settings switch a head off and on again in the element\'s state, and rerun without sentence B\'s run', () => {
  const { settings, host, calls } = settingsOn(initialState(VIEWS));
  settings.toggleHead(2, 1);
  settings.toggleHead(0, 3);
  assert.deepEqual(host.state.off, [[0, 3], [2, 1]]);
  settings.toggleHead(2, 1);
  assert.deepEqual(host.state.off, [[0, 3]]);
  assert.deepEqual(calls, ['forget B', 'run', 'forget B', 'run', 'forget B', 'run']);
  settings.typed({ sentence: 'a b' }, { timeStamp: 12 });
  assert.equal(host.state.sentence, 'a b');
  assert.deepEqual(calls.slice(-2), ['typed at 12', 'request']);
});
