// The mean head importance on the machine's other cores: a pool of the page's workers
// (page-worker.mjs, worker.mjs) per engine, each loading the model once (the same wasm module and
// a copy of the weights) and kept for the next computation; the targets go to them in runs, a
// worker taking the next as it answers one, each run step by step (importance-run.mjs). The
// numbers are bit for bit those of Session.importanceSteps on the page's thread (each target's
// numbers do not depend on the others it runs beside), which stays free: only progress and
// results arrive.
import { EngineError, importanceSummary } from './engine.mjs';
import { nextTurn } from './importance-run.mjs';
import { startPageWorker } from './page-worker.mjs';

/** At most this many workers, and at most this many bytes of weights copied for them in all. */
const MAX_WORKERS = 4;
const MAX_COPIED_BYTES = 256 * 1024 * 1024;
/** A worker silent this long after it was made never started. */
const START_MS = 5000;
/** Weights up to this size are sent to the workers as soon as the Head importance view is shown, before the mean is asked for. */
const WARM_MODEL_BYTES = 32 * 1024 * 1024;
/** The weights are copied for a worker this many bytes per task (a few milliseconds each): the page's thread is never held long. */
const COPY_SLICE = 2 * 1024 * 1024;

/** How many workers for `targets` targets of a model of `fileSize` bytes on this machine. */
export function workerCount(targets, fileSize, cores = globalThis.navigator?.hardwareConcurrency) {
  const byMemory = Math.max(1, Math.floor(MAX_COPIED_BYTES / Math.max(1, fileSize)));
  return Math.max(1, Math.min(MAX_WORKERS, cores || 2, byMemory, targets));
}

/**
 * Targets 0 … total − 1 in runs of consecutive targets for `workers` workers, each taking the
 * next run as it answers one: [{first, count}]. A run is whole batches of `perBatch` targets
 * (Session.importanceBatch; smaller when the targets are too few to give every worker one), half
 * the remaining batches' share per worker and at least one: the runs shrink towards the end, so
 * that the workers finish close together even when the machine gives them unequal time, and a
 * run's own cost (its session, one forward pass) stays small beside its targets'.
 */
export function targetRuns(total, workers, perBatch) {
  const unit = Math.max(1, Math.min(perBatch, Math.ceil(total / workers)));
  const runs = [];
  for (let first = 0; first < total;) {
    const units = Math.max(1, Math.ceil(Math.ceil((total - first) / unit) / (2 * workers)));
    const count = Math.min(total - first, units * unit);
    runs.push({ first, count });
    first += count;
  }
  return runs;
}

const pools = new WeakMap();  // engine → its pool
let jobCount = 0;

/**
 * A worker that has been sent the engine's model; its runs' answers go to `jobs`' handlers. A
 * worker that has not said it started within START_MS counts as refused (Firefox fires no error
 * for a worker its page's policy refuses).
 */
function poolWorker(engine, pool) {
  const worker = startPageWorker();
  if (!worker) return null;
  const jobs = new Map();
  const refused = setTimeout(() => worker.onerror({ message: 'the worker did not start' }), START_MS);
  worker.onmessage = ({ data }) => {
    if (data.ready) { clearTimeout(refused); return; }
    const handler = jobs.get(data.job);
    if (!handler) return;
    if (data.progress) { handler.onProgress(data.progress); return; }
    jobs.delete(data.job);
    handler.settle(data);
  };
  worker.onerror = (event) => {  // refused by the page's policy, or stopped (memory): the pool is spent
    clearTimeout(refused);
    event.preventDefault?.();
    pool.terminate();
    for (const handler of jobs.values()) handler.settle({ failed: event.message || 'the worker stopped' });
    jobs.clear();
  };
  return { worker, jobs };
}

/** The engine's pool of at least `size` workers (made again when smaller, or spent), or null where the page can have none. */
function poolFor(engine, size) {
  const kept = pools.get(engine);
  if (kept && !kept.spent && kept.workers.length >= size) return kept;
  kept?.terminate();
  const pool = { spent: false, workers: [] };
  pool.terminate = () => { pool.spent = true; for (const { worker } of pool.workers) worker.terminate(); };
  for (let k = 0; k < size; k++) {
    const member = poolWorker(engine, pool);
    if (!member) {
      pool.terminate();
      pools.set(engine, pool);  // spent: warming tries no more (a computation tries again)
      return null;
    }
    pool.workers.push(member);
  }
  pools.set(engine, pool);
  engine.onDestroy(() => pool.terminate());
  return pool;
}

/** The model sent to the pool's workers, once (every part of the weights has arrived). */
function loadModel(engine, pool) {
  pool.modelSent ??= sendWeights(engine, pool);
}

/**
 * The model to each of the pool's workers, one after the other: the same wasm module, and a copy
 * of the weights made a slice per task (a worker runs jobs sent before it, once its model is in).
 */
async function sendWeights(engine, pool) {
  for (const { worker } of pool.workers) {
    const weights = new Uint8Array(engine.fileSize);
    for (let from = 0; from < weights.length; from += COPY_SLICE) {
      if (pool.spent) return;  // the engine destroyed, or a worker refused
      engine.copyWeightsInto(weights, from, Math.min(weights.length, from + COPY_SLICE));
      await nextTurn();
    }
    if (pool.spent) return;
    worker.postMessage({ load: { wasm: engine.module, weights } }, [weights.buffer]);
  }
}

/**
 * The engine's workers started ahead of the mean importance the view may be asked for, so that
 * the mean asked for after the word's map finds them started and loaded (`node
 * bench/importance.mjs --workers`: after_word_ms). The model is sent once every part of the
 * weights has arrived, when the mean is asked for or the weights are small (WARM_MODEL_BYTES: each
 * worker holds a copy). Nothing where the page can have no worker.
 */
export function warmImportanceWorkers(engine, { meanAsked = false } = {}) {
  // a pool spent (refused by the page's policy, or stopped) is not made again ahead of need
  if (!engine.module || typeof Worker !== 'function' || pools.get(engine)?.spent) return;
  const pool = poolFor(engine, workerCount(Infinity, engine.fileSize));
  if (pool && (meanAsked || engine.fileSize <= WARM_MODEL_BYTES) && engine.partsMissing() === 0) loadModel(engine, pool);
}

/**
 * Starts the session's mean importance in the engine's workers: {result, cancel, workers}, or null
 * where the page can have no worker or the engine has no module to share. The targets go in
 * runs (targetRuns), each worker taking the next as it answers one, so that a worker the machine
 * gives less time to takes fewer. result: a promise of what Session.importanceSteps returns (ms: from
 * the start, the page's performance.now() startedAt, to the result), rejected with the
 * EngineError a run met, or with {fallback: true} when a worker could not start or stopped (the
 * page's policy, memory): the caller then computes on the page's thread. onProgress({done,
 * total}) after each step of any run.
 */
export function importanceInWorkers(session, onProgress = () => {}) {
  const engine = session.engine;
  // the page's thread says what a model still arriving in parts cannot do yet
  if (!engine.module || typeof Worker !== 'function' || engine.partsMissing() > 0) return null;
  const started = performance.now();
  const { positions, maskedInTurn } = session.importanceTargets();
  const size = workerCount(positions.length, engine.fileSize);
  const pool = poolFor(engine, size);
  if (!pool) return null;
  loadModel(engine, pool);
  const run = { ids: Array.from(session.tokens().ids), typeIds: session.typeIds(), removed: session.removedHeads() };
  const chunks = targetRuns(positions.length, size, session.importanceBatch());
  const steps = chunks.map(({ count }) => ({ done: 0, total: session.importanceStepCount(count) }));
  const answers = new Array(chunks.length);
  const inFlight = new Map();  // job → its worker
  let next = 0, stopped = false;
  const reportProgress = () => onProgress(steps.reduce((sum, q) => ({ done: sum.done + q.done, total: sum.total + q.total }), { done: 0, total: 0 }));
  /** The worker's runs, one after the other while some are left: resolves with a failure answer, or null. */
  const work = async (member) => {
    while (next < chunks.length && !stopped) {
      const k = next++, job = `importance-${++jobCount}`;
      inFlight.set(job, member);
      const answer = await new Promise((settle) => {
        member.jobs.set(job, { settle, onProgress: (p) => { steps[k] = p; reportProgress(); } });
        member.worker.postMessage({ job, importance: { ...run, ...chunks[k] } });
      });
      inFlight.delete(job);
      if (!answer.targets) { stopped = true; return answer; }
      answers[k] = answer.targets;
    }
    return null;
  };
  const cancel = () => {
    stopped = true;
    for (const [job, member] of inFlight) {
      member.jobs.get(job)?.settle({ cancelled: true });
      member.jobs.delete(job);
      if (!pool.spent) member.worker.postMessage({ cancel: job });
    }
  };
  const result = Promise.all(pool.workers.slice(0, size).map(work)).then((ends) => {
    const error = ends.find((answer) => answer?.error);
    if (error) throw new EngineError(error.error.code, error.error.message);
    const failed = ends.find((answer) => answer);
    if (failed) throw { fallback: true, reason: failed.failed ?? 'cancelled' };
    const targets = answers.flat();
    const { layers, heads } = engine.shape;
    return { maskedInTurn, targets, ...importanceSummary(targets, layers, heads), ms: performance.now() - started, startedAt: started };
  });
  return { result, cancel, workers: size };
}
