// The page's part loader (web/src/loader.mjs PartLoader) reading the weights from their classic
// scripts, as a page opened from file:// does, on a stand-in document whose scripts load when the
// test says: what no run waits on (ensureAll: the masked-word head, head importance) is inserted
// at most SCRIPTS_AT_ONCE scripts at a time (the 240 of bert-mini at once were a 100 ms task on the
// page's thread); a run's need ('high') is inserted at once, ahead of the queue.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createPartialEngine, readWeightsHeader } from '../web/src/engine.mjs';
import { PartLoader } from '../web/src/loader.mjs';
import { weightPieces } from '../weights/asset-scripts.mjs';
import { defaultWasm, defaultWeights } from './lib/node-engine.mjs';

const AT_ONCE = 4;
const weights = readFileSync(defaultWeights);
const pieces = weightPieces(weights, 'bert-mini');
// each test its own folder: the loader keeps a script's load for the page's life
let folders = 0;

/** A document whose inserted scripts wait until load(url) (or fail(url)) is called. */
function standInDocument() {
  const folder = `file:///course-${++folders}/dist/`;
  const base64 = new Map(pieces.map((p) => [folder + p.name, Buffer.from(p.bytes).toString('base64')]));
  const inserted = [];
  const pending = new Map();
  globalThis.document = {
    readyState: 'complete',
    querySelectorAll: () => [],
    createElement: () => Object.assign(new EventTarget(), { src: '', async: false }),
    head: { append: (script) => { inserted.push(script.src); pending.set(script.src, script); } },
  };
  return {
    folder,
    inserted,
    pending: () => [...pending.keys()],
    load(url) {
      const script = pending.get(url);
      pending.delete(url);
      (globalThis.attentionExplorerAssets ??= {})[url] = base64.get(url);
      script.dispatchEvent(new Event('load'));
    },
  };
}

async function partialLoader(folder) {
  const head = weights.subarray(0, readWeightsHeader(weights).headBytes);
  const engine = await createPartialEngine({ wasm: readFileSync(defaultWasm), head, fileSize: weights.length });
  return { engine, loader: new PartLoader(engine, { head, fileSize: weights.length, partScripts: folder + pieces[0].name, headScriptBytes: 0 }) };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

test(`ensureAll: at most ${AT_ONCE} part scripts loading at a time, every part in at the end`, async () => {
  const page = standInDocument();
  const { engine, loader } = await partialLoader(page.folder);
  const scripts = pieces.length - 1;
  assert.ok(scripts > 100, `${scripts} part scripts`);
  let settled = false;
  const all = loader.ensureAll().then(() => { settled = true; });
  let most = 0;
  for (let k = 0; k < 10 * scripts && !settled; k++) {
    await turn();
    most = Math.max(most, page.pending().length);
    if (page.pending().length) page.load(page.pending()[0]);
  }
  await all;
  assert.equal(most, AT_ONCE, `the most scripts loading at once: ${most}`);
  assert.equal(page.inserted.length, scripts, 'each part script inserted once');
  assert.equal(engine.partsMissing(), 0);
});

test('a run\'s need is inserted at once, ahead of the queued scripts, and arrives while they wait', async () => {
  const page = standInDocument();
  const { engine, loader } = await partialLoader(page.folder);
  const all = loader.ensureAll();
  await turn();
  assert.equal(page.pending().length, AT_ONCE);
  const lastPart = engine.partCount() - 1;  // in the last script, at the end of the queue
  const lastScript = page.folder + pieces.at(-1).name;
  assert.ok(!page.inserted.includes(lastScript));
  const need = loader.ensure([lastPart], 'high');
  await turn();
  assert.equal(page.pending().length, AT_ONCE + 1);
  assert.ok(page.pending().includes(lastScript), 'the needed script is inserted at once');
  page.load(lastScript);
  await need;
  assert.ok(engine.partReady(lastPart));
  assert.ok(engine.partsMissing() > 0, 'the others still wait');
  while (page.pending().length) { page.load(page.pending()[0]); await turn(); }
  await all;
  assert.equal(engine.partsMissing(), 0);
});
