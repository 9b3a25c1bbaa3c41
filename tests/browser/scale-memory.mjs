// A base-size BERT (12 layers × 768, the random checkpoint of bench/scale.mjs at a trained BERT's
// scales, converted to int8) in four explorers on one page, each at 512 tokens of its own
// sentence: the sessions share the engine's 1 GB of wasm memory with the 110 MB of weights
// (three fit: the fourth is the memory pressure). Each explorer must draw its own figure (512 tokens, its sentence's ids, its
// attention row summing to 1 and equal to a Node run of the same engine on the same weights
// and sentence: never another explorer's stale figure), or say "out of memory" in its error;
// removing explorers must give their sessions' memory back. Slow (a few minutes: the
// conversion once, into build/scale/, then four 512-token runs): full suite only.
// Run from tests/browser/run.mjs (testThreeExplorers512).

import fs from 'node:fs';
import path from 'node:path';
import { createEngine } from '../../web/src/engine.mjs';
import { compactConfig, randomTensors, writeCheckpoint, WORDS } from '../lib/checkpoints.mjs';
import { convert } from '../../weights/convert.mjs';
import { STATUSES } from '../../c/spec.mjs';

const TOKENS = 512;
const EXPLORERS = 4;
const MB = 2 ** 20;
/** The page draws the engine's own float32 values: the bars' data-value is the value's String(). */
const SAME_VALUE = 1e-6;
const OUT_OF_MEMORY = STATUSES.find((s) => s.name === 'NO_MEMORY').message;
const SHARED_MEMORY_HINT = 'share the engine\u2019s memory';

/** bench/scale.mjs's base-size checkpoint (same seed and scales), converted once into build/scale/. */
function baseWeights(root) {
  const dir = path.join(root, 'build/scale');
  const file = path.join(dir, 'base.int8.bin');
  if (!fs.existsSync(file)) {
    const config = compactConfig({ layers: 12, hidden: 768, vocab: 30522, positions: 512 });
    const { tensors, shapes } = randomTensors(config, 768, { scales: 'trained' });
    fs.mkdirSync(dir, { recursive: true });
    const checkpointDir = writeCheckpoint(path.join(dir, 'checkpoint'), { config, tensors, shapes });
    fs.writeFileSync(file, convert({ checkpointDir, precision: 'int8', predict: false }).bytes);
  }
  return file;
}

/** A sentence of exactly `pieces` word pieces (plus [CLS] and [SEP]), a different one per `offset`. */
function sentenceOf(engine, pieces, offset) {
  const words = WORDS.filter((w) => !w.startsWith('##') && /^[a-z]+$/.test(w));
  const text = [];
  for (let i = 0; engine.tokenize(text.join(' ')).ids.length - 2 < pieces; i++) text.push(words[(i * 5 + offset * 7) % words.length]);
  while (engine.tokenize(text.join(' ')).ids.length - 2 > pieces) text.pop();
  return text.join(' ');
}

// What explorer i shows: its run, its state, the attention row's bars, its error, the engine's memory.
const shownBy = (page, i) => page.evaluate((index) => {
  const e = document.querySelectorAll('attention-explorer')[index];
  const error = e.shadowRoot.querySelector('.error:not([hidden])');
  const bars = [...e.shadowRoot.querySelectorAll('.bar-column.attention-row rect.bar')].map((r) => [Number(r.dataset.token), Number(r.dataset.value)]);
  return {
    error: error ? error.textContent : null, n: e.run?.n ?? null, ids: e.run ? Array.from(e.run.ids) : null,
    layer: e.state.layer, head: e.state.head, token: e.state.token, bars,
    heap: e.engine?.heapBytes() ?? null, inUse: e.engine?.x.attn_memory_in_use() ?? null,
  };
}, i);

const inUseNow = (page) => page.evaluate(() => document.querySelector('attention-explorer').engine.x.attn_memory_in_use());

/** Differences between the bars drawn and the Node run's row, and the row's sum. */
function compareRow(shown, row) {
  let worst = shown.bars.length ? 0 : Infinity;
  for (const [token, value] of shown.bars) worst = Math.max(worst, Math.abs(value - row[token]));
  return { worst, sum: row.reduce((a, b) => a + b, 0), drawn: shown.bars.length };
}

export async function threeExplorersTest({ newPage, check, HTTP, ROOT }) {
  const started = performance.now();
  const weightsFile = baseWeights(ROOT);
  const bytes = fs.readFileSync(weightsFile);
  const engine = await createEngine({ wasm: fs.readFileSync(path.join(ROOT, 'web/dist/attn.wasm')), weights: bytes });
  const { layers, heads } = engine.shape;
  const sentences = Array.from({ length: EXPLORERS }, (_, i) => sentenceOf(engine, TOKENS - 2, i));
  const prepared = performance.now();

  const page = await newPage();
  try {
    await page.goto(`${HTTP}/web/embed.html`);
    await page.evaluate(({ weights, texts }) => {
      for (const e of document.querySelectorAll('attention-explorer')) e.remove();
      for (const [i, text] of texts.entries()) {
        const e = document.createElement('attention-explorer');
        e.setAttribute('weights', weights);
        e.setAttribute('lang', 'en');
        e.setAttribute('sentence', text);
        e.setAttribute('layer', String(12 - i));  // each its own head: a figure drawn for another shows
        e.setAttribute('head', String(i + 1));
        document.body.append(e);
      }
    }, { weights: `${HTTP}/${path.relative(ROOT, weightsFile)}`, texts: sentences });
    await page.waitForFunction(() => {
      const all = [...document.querySelectorAll('attention-explorer')];
      return all.every((e) => Number(e.dataset.drawn || 0) >= 1 || e.shadowRoot?.querySelector('.error:not([hidden])'));
    }, null, { timeout: 480000, polling: 1000 });
    const drawnMs = performance.now() - prepared;

    const shown = [];
    for (let i = 0; i < EXPLORERS; i++) shown.push(await shownBy(page, i));
    for (const [i, s] of shown.entries()) {
      if (s.error !== null) {
        check(`${EXPLORERS} explorers × ${TOKENS} tokens: explorer ${i + 1} fails and says why ("${s.error.slice(0, 160)}")`, s.error.includes(OUT_OF_MEMORY) && s.error.includes(SHARED_MEMORY_HINT) && s.bars.length === 0 && s.n !== TOKENS, s.error);
        continue;
      }
      const session = engine.createSession();
      const run = session.runText(sentences[i]);
      const attention = session.attention();
      const n = run.ids?.length ?? session.n;
      const at = ((s.layer * heads + s.head) * n + s.token) * n;
      const row = Array.from(attention.subarray(at, at + n));
      const ids = Array.from(run.ids ?? []);
      session.destroy();
      const { worst, sum, drawn } = compareRow(s, row);
      check(`${EXPLORERS} explorers × ${TOKENS} tokens: explorer ${i + 1} draws its own figure (n ${s.n}, layer ${s.layer + 1} head ${s.head + 1} token ${s.token}: `
        + `${drawn} bars, max |Δ| ${worst.toExponential(1)} from a Node run of its sentence, row sum ${sum.toFixed(6)})`,
      s.n === TOKENS && n === TOKENS && (ids.length === 0 || JSON.stringify(ids) === JSON.stringify(s.ids)) && drawn > 0 && worst <= SAME_VALUE && Math.abs(sum - 1) < 1e-4,
      JSON.stringify({ n: s.n, drawn, worst, sum }));
    }
    const withAll = Math.max(...shown.map((s) => s.inUse));
    const drawn = shown.filter((s) => s.error === null).length;
    const session = TOKENS * TOKENS * layers * heads * 4;  // each session's probabilities alone
    console.log(`${EXPLORERS} explorers × ${TOKENS} tokens on the 12 × 768 model: ${drawn} drawn, wasm heap ${(Math.max(...shown.map((s) => s.heap)) / MB).toFixed(0)} MB, in use ${(withAll / MB).toFixed(0)} MB `
      + `(weights ${(bytes.length / MB).toFixed(0)} MB); Node preparation ${((prepared - started) / 1000).toFixed(1)} s, the page's explorers done in ${(drawnMs / 1000).toFixed(1)} s`);

    await page.evaluate(() => { for (const e of [...document.querySelectorAll('attention-explorer')].slice(1)) e.remove(); });
    const withOne = await inUseNow(page);
    const removedSessions = shown.slice(1).filter((s) => s.error === null).length;
    check(`${EXPLORERS} explorers × ${TOKENS} tokens: removing all but the first gives the ${removedSessions} other sessions back (in use ${(withAll / MB).toFixed(0)} → ${(withOne / MB).toFixed(0)} MB; `
      + `each session's probabilities alone: ${(session / MB).toFixed(0)} MB)`, removedSessions > 0 && withAll - withOne >= removedSessions * session,
    JSON.stringify({ withAll, withOne }));
  } finally {
    engine.destroy();
    await page.context().close();
  }
}
