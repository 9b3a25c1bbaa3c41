// The converter's long loops as generators that yield between steps, so that one conversion
// can run at once (drive: the command line, the page's worker) or in slices that give the page
// a turn between them (web/src/convert-run.mjs, where the page allows no worker).

/** About a millisecond of work on one element per iteration: the length of a step. */
export const STEP_ELEMENTS = 1 << 16;

/** Runs a generator to its end without pausing; its return value. */
export function drive(steps) {
  for (;;) {
    const { done, value } = steps.next();
    if (done) return value;
  }
}

/** body(begin, end) over [0, count) in ranges of `perStep`, yielding after each. */
export function* inSteps(count, perStep, body) {
  for (let begin = 0; begin < count; begin += perStep) {
    body(begin, Math.min(count, begin + perStep));
    yield;
  }
}
