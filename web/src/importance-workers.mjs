// The mean head importance on the machine's other cores: the targets shared out among page
// workers (page-worker.mjs, worker.mjs), each with an engine of its own on the same wasm module
// and a copy of the weights, running its share step by step (importance-run.mjs). The numbers are
// bit for bit those of Session.importanceSteps on the page's thread (each target's numbers do
// not depend on the others it runs beside), which stays free: only progress and results arrive.
import { EngineError, importanceSummary } from './engine.mjs';
import { startPageWorker } from './page-worker.mjs';

/** At most this many workers, and at most this many bytes of weights copied for them in all. */
const MAX_WORKERS = 4;
const MAX_COPIED_BYTES = 256 * 1024 * 1024;

/** How many workers for `targets` targets of `engine`'s model on this machine. */
export function workerCount(targets, fileSize, cores = globalThis.navigator?.hardwareConcurrency) {
  const byMemory = Math.max(1, Math.floor(MAX_COPIED_BYTES / Math.max(1, fileSize)));
  return Math.max(1, Math.min(MAX_WORKERS, cores || 2, byMemory, targets));
}

/** Targets 0 … total − 1 shared out in `parts` runs of consecutive targets: [{first, count}]. */
export function shares(total, parts) {
  return Array.from({ length: parts }, (_, k) => {
    const first = Math.floor((k * total) / parts);
    return { first, count: Math.floor(((k + 1) * total) / parts) - first };
  }).filter((share) => share.count > 0);
}

/**
 * Starts the session's mean importance in workers: {result, cancel}, or null where the page can
 * have no worker or the engine has no module to share. result: a promise of what
 * Session.importanceSteps returns (ms: the wall time), rejected with the EngineError a share met,
 * or with {fallback: true} when a worker could not start or stopped (the page's policy, memory):
 * the caller then computes on the page's thread. onProgress({done, total}) after each step of
 * any share.
 */
export function importanceInWorkers(session, onProgress = () => {}) {
  const engine = session.engine;
  if (!engine.module || typeof Worker !== 'function') return null;
  const { positions, maskedInTurn } = session.importanceTargets();
  const parts = shares(positions.length, workerCount(positions.length, engine.fileSize));
  const workers = parts.map(() => startPageWorker());
  if (!workers.length || workers.some((w) => !w)) {
    for (const worker of workers) worker?.terminate();
    return null;
  }
  const started = performance.now();
  const job = { ids: session.tokens().ids, typeIds: session.typeIds(), removed: session.removedHeads(), wasm: engine.module };
  const progress = parts.map(() => ({ done: 0, total: 1 }));
  const stopAll = () => { for (const worker of workers) worker.terminate(); };
  const result = Promise.all(workers.map((worker, k) => new Promise((resolve, reject) => {
    worker.onmessage = ({ data }) => {
      if (data.ready) {
        const weights = engine.weightsCopy();
        worker.postMessage({ importance: { ...job, weights, ...parts[k] } }, [weights.buffer]);
      } else if (data.progress) {
        progress[k] = data.progress;
        onProgress(progress.reduce((sum, p) => ({ done: sum.done + p.done, total: sum.total + p.total }), { done: 0, total: 0 }));
      } else if (data.targets) resolve(data.targets);
      else if (data.error) reject(new EngineError(data.error.code, data.error.message));
      else reject({ fallback: true, reason: data.failed });
    };
    worker.onerror = (event) => { event.preventDefault?.(); reject({ fallback: true, reason: event.message }); };
  }))).then((lists) => {
    stopAll();
    const targets = lists.flat();
    const { layers, heads } = engine.shape;
    return { maskedInTurn, targets, ...importanceSummary(targets, layers, heads), ms: performance.now() - started };
  }, (error) => {
    stopAll();
    throw error;
  });
  return { result, cancel: stopAll, workers: workers.length };
}
