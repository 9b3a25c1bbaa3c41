// A share of the mean head importance, where it runs (a worker of importance-workers.mjs's pool):
// an engine of its own on the page's wasm module and a copy of its weights, kept between
// computations; for each share the run's ids, token types and removed heads in a new session,
// and the targets first … first + count − 1 (Session.importanceSteps), progress after each step.
// Between steps it lets the worker read its messages, so a cancelled share stops within a step.
import { createEngine, EngineError } from './engine.mjs';

/** The engine of `wasm` (bytes or a module) and `weights`: {engine}, or the answer a share gives when it cannot start. */
export async function shareEngine({ wasm, weights }) {
  try {
    return { engine: await createEngine({ wasm, weights }) };
  } catch (error) {
    return failure(error);
  }
}

/**
 * {targets} of the share, {cancelled: true} when isCancelled() said so between two steps, or
 * {error: {code, message}} (an EngineError) / {failed: message} (anything else).
 */
export async function importanceShare(engine, { ids, typeIds, removed, first, count }, onProgress, isCancelled = () => false) {
  let session = null;
  try {
    session = engine.createSession();
    if (removed.length) session.setRemovedHeads(removed);
    session.runTypedIds(ids, typeIds);
    const steps = session.importanceSteps({ first, count });
    let step = steps.next();
    while (!step.done) {
      onProgress(step.value);
      await nextTurn();
      if (isCancelled()) return { cancelled: true };
      step = steps.next();
    }
    return { targets: step.value.targets };
  } catch (error) {
    return failure(error);
  } finally {
    session?.destroy();
  }
}

function failure(error) {
  return error instanceof EngineError ? { error: { code: error.code, message: error.message } } : { failed: String(error?.message ?? error) };
}

/** A turn of the event loop: a message to itself (no timer's minimum delay), on a channel of its own so that turns awaited at once all come. */
export function nextTurn() {
  return new Promise((resolve) => {
    const { port1, port2 } = new MessageChannel();
    port1.onmessage = () => {
      port1.close();  // closed: in Node the channel keeps no process alive
      resolve();
    };
    port2.postMessage(0);
  });
}
