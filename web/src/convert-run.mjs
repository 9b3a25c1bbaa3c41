// One conversion of the panel's files, as the panel runs it: in a Worker (convert-worker.mjs,
// bundled into a blob URL by tools/build-web.mjs, so that file:// pages have one too) or, where
// the page allows no worker, here on the main thread. The answer is plain data either way:
// { bytes, tensors (no arrays), notes } | { refused: { message, reason } } | { bug: text }.
import { convertCheckpoint, ConvertError, reportableBug } from '../../weights/convert-core.mjs';

/** Off-grid matrices get int16 (one scale per row): safe without the command line's float64 search. */
function int16WhereOffGrid({ candidates }) {
  return { choice: new Map(candidates.map((name) => [name, 'int16'])), predicted: NaN };
}

const SUMMARY_KEYS = ['name', 'kind', 'precision', 'rows', 'cols', 'onGrid', 'maxError'];

/** `engine` ({ Engine, wasm } or null) measures the head roles the card states. */
export function runConversion(files, label, engine = null) {
  const notes = [];
  try {
    const { bytes, tensors } = convertCheckpoint({ name: label, training: null, ...files },
      { precision: 'auto', searchPrecision: int16WhereOffGrid, log: (text, note) => notes.push(note ? { text, code: note.code, params: note.params } : { text }), engine });
    const summary = tensors.map((t) => Object.fromEntries(SUMMARY_KEYS.map((k) => [k, t[k]])));
    return { bytes, tensors: summary, notes };
  } catch (error) {
    if (error instanceof ConvertError) return { refused: { message: error.message, reason: error.reason } };
    return { bug: reportableBug(error) };
  }
}
