// A share of the mean head importance, where it runs (a worker): an engine of its own on the
// same wasm module and weights, the run's ids, token types and removed heads, and the targets
// first … first + count − 1 (Session.importanceSteps), progress after each step.
import { createEngine, EngineError } from './engine.mjs';

/** {targets} of the share, or {error: {code, message}} (an EngineError) / {failed: message} (anything else). */
export async function importanceShare({ wasm, weights, ids, typeIds, removed, first, count }, onProgress) {
  let engine = null;
  try {
    engine = await createEngine({ wasm, weights });
    const session = engine.createSession();
    if (removed.length) session.setRemovedHeads(removed);
    session.runTypedIds(ids, typeIds);
    const steps = session.importanceSteps({ first, count });
    let step = steps.next();
    while (!step.done) {
      onProgress(step.value);
      step = steps.next();
    }
    return { targets: step.value.targets };
  } catch (error) {
    return error instanceof EngineError ? { error: { code: error.code, message: error.message } } : { failed: String(error?.message ?? error) };
  } finally {
    engine?.destroy();
  }
}
