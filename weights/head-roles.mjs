// The head roles the model card states (c/spec.mjs CARD_KEYS head_*), measured with the engine
// itself (the wasm through web/src/engine.mjs, as the page runs it) on the converter's
// calibration text. Per head, over every word (the tokens between [CLS] and [SEP]) of every
// sentence: the share of words whose largest weight is on the next word (words that have one),
// on the previous word (likewise), and the mean weight on [CLS] and on [SEP].
import { CALIBRATION_SENTENCES, tokenizeAscii } from './calibration.mjs';
import { drive } from './steps.mjs';

/** Values kept to two decimals: the card states shares, and the file stays the same across builds. */
const round = (value) => Math.round(value * 100) / 100;

/**
 * The four per-head lists of a weights file (bytes) run on every calibration sentence (ids of
 * vocabLines, at most maxPositions); engine: { Engine, wasm } (web/src/engine.mjs's class, a
 * compiled web/dist/attn.wasm).
 */
export const measureHeadRoles = (engine, bytes, vocabLines, maxPositions) => drive(measureHeadRolesSteps(engine, bytes, vocabLines, maxPositions));

/** measureHeadRoles as a generator that yields after each sentence (weights/steps.mjs). */
export function* measureHeadRolesSteps({ Engine, wasm }, bytes, vocabLines, maxPositions) {
  const instance = new WebAssembly.Instance(wasm, { env: { emscripten_notify_memory_growth() {} } });
  instance.exports._initialize?.();
  yield;
  const engine = new Engine(instance.exports, instance.exports.memory, bytes);
  yield;
  const session = engine.createSession();
  const { layers, heads } = engine.shape;
  const totals = { heads: layers * heads, next: [], previous: [], cls: [], sep: [], withNext: 0, withPrevious: 0, words: 0 };
  try {
    for (const sentence of CALIBRATION_SENTENCES) {
      const ids = tokenizeAscii(vocabLines, sentence);
      session.runIds(ids.length <= maxPositions ? ids : [...ids.slice(0, maxPositions - 1), ids.at(-1)]);
      addSentence(totals, session.attention(), session.n);
      yield;
    }
  } finally {
    session.destroy();
    engine.destroy();
  }
  if (totals.words === 0) return null;
  const share = (list, count) => Array.from({ length: totals.heads }, (_, h) => round(count ? (list[h] ?? 0) / count : 0));
  return {
    next: share(totals.next, totals.withNext), previous: share(totals.previous, totals.withPrevious),
    cls: share(totals.cls, totals.words), sep: share(totals.sep, totals.words),
  };
}

function addSentence(totals, attention, n) {
  if (n < 3) return;
  const add = (list, h, value) => { list[h] = (list[h] ?? 0) + value; };
  for (let h = 0; h < totals.heads; h++) {
    for (let i = 1; i < n - 1; i++) {
      const row = attention.subarray((h * n + i) * n, (h * n + i + 1) * n);
      let top = 0;
      for (let j = 1; j < n; j++) if (row[j] > row[top]) top = j;
      if (i + 1 < n - 1 && top === i + 1) add(totals.next, h, 1);
      if (i - 1 > 0 && top === i - 1) add(totals.previous, h, 1);
      add(totals.cls, h, row[0]);
      add(totals.sep, h, row[n - 1]);
    }
  }
  totals.words += n - 2;
  totals.withNext += n - 3;
  totals.withPrevious += n - 3;
}
