// One conversion of the panel's files, as the panel runs it: in a Worker (worker.mjs,
// bundled into a blob URL by tools/build-web.mjs, so that file:// pages have one too) or, where
// the page allows no worker, here on the main thread in slices (runConversionSliced). The answer
// is plain data either way:
// { bytes, tensors (no arrays), notes } | { refused: { message, reason } } | { bug: text }.
import { convertSteps, ConvertError, reportableBug } from '../../weights/convert-core.mjs';
import { drive } from '../../weights/steps.mjs';

/** Off-grid matrices get int16 (one scale per row): safe without the command line's float64 search. */
function int16WhereOffGrid({ candidates }) {
  return { choice: new Map(candidates.map((name) => [name, 'int16'])), predicted: NaN };
}

const SUMMARY_KEYS = ['name', 'kind', 'precision', 'rows', 'cols', 'onGrid', 'maxError'];

/** The longest the main thread works between two turns of the page (a frame is 16 ms; a long task 50 ms). */
export const MAIN_THREAD_SLICE_MS = 40;

// The conversion's steps (a generator) and the notes it logs.
function conversionOf(files, label, engine) {
  const notes = [];
  const steps = convertSteps({ name: label, training: null, ...files },
    { precision: 'auto', searchPrecision: int16WhereOffGrid, log: (text, note) => notes.push(note ? { text, code: note.code, params: note.params } : { text }), engine });
  return { steps, notes };
}

function converted({ bytes, tensors }, notes) {
  const summary = tensors.map((t) => Object.fromEntries(SUMMARY_KEYS.map((k) => [k, t[k]])));
  return { bytes, tensors: summary, notes };
}

function failed(error) {
  if (error instanceof ConvertError) return { refused: { message: error.message, reason: error.reason } };
  return { bug: reportableBug(error) };
}

/** `engine` ({ Engine, wasm } or null) measures the head roles the card states. */
export function runConversion(files, label, engine = null) {
  try {
    const { steps, notes } = conversionOf(files, label, engine);
    return converted(drive(steps), notes);
  } catch (error) {
    return failed(error);
  }
}

const nextTask = () => new Promise((resolve) => { setTimeout(resolve, 0); });

/**
 * runConversion on the main thread without blocking it: the conversion's steps run for at most
 * `sliceMs` (plus one step, about a millisecond), then the page has a turn (a task of its own:
 * it paints, handles input). `isCancelled()` is asked after each turn: the answer is then null.
 */
export async function runConversionSliced(files, label, engine = null, { isCancelled = () => false, sliceMs = MAIN_THREAD_SLICE_MS } = {}) {
  let conversion;
  try { conversion = conversionOf(files, label, engine); } catch (error) { return failed(error); }
  let sliceStart = performance.now();
  for (;;) {
    let step;
    try { step = conversion.steps.next(); } catch (error) { return failed(error); }
    if (step.done) return converted(step.value, conversion.notes);
    if (performance.now() - sliceStart >= sliceMs) {
      await nextTask();
      if (isCancelled()) { conversion.steps.return(); return null; }
      sliceStart = performance.now();
    }
  }
}
