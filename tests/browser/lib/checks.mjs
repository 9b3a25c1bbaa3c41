// The checks of the browser tests on node:test (the suite, faults.test.mjs, notebook.test.mjs):
// a tally that records each check, and the runner of one test's body, which fails the test
// naming every check of it that failed.
import assert from 'node:assert/strict';

/** Seconds a browser test may run before it counts as hung: 240, or ATTN_BROWSER_TEST_LIMIT_S (run.mjs: LONG_TESTS). */
export const TEST_LIMIT_S = Number(process.env.ATTN_BROWSER_TEST_LIMIT_S) || 240;

/**
 * A tally of checks. `check(name, ok, detail)` records one and returns `ok` (a failure is printed
 * at once); `takeFailures()` gives the failed checks since its last call (the running test's);
 * `counts()` the checks passed and failed so far.
 */
export function checkTally() {
  const tally = { passed: 0, failed: 0, failures: [] };
  function check(name, ok, detail = '') {
    if (ok) { tally.passed++; return ok; }
    tally.failed++;
    const line = `${name}${detail ? ': ' + detail : ''}`;
    tally.failures.push(line);
    console.log(`FAIL ${line}`);
    return ok;
  }
  function takeFailures() {
    const failures = tally.failures;
    tally.failures = [];
    return failures;
  }
  const counts = () => ({ passed: tally.passed, failed: tally.failed });
  return { check, takeFailures, counts };
}

/** Runs a test's body; fails it, naming every failed check of `tally`, when any failed or the body threw. */
export async function runChecked(tally, name, body) {
  tally.takeFailures();
  const started = performance.now();
  let thrown = null;
  try {
    await body();
  } catch (error) {
    thrown = error;
  }
  const failures = tally.takeFailures();
  console.log(`test time: ${name} ${((performance.now() - started) / 1000).toFixed(1)} s`);
  if (thrown) throw new Error(`${name} did not run to the end${failures.length ? ` (failed checks: ${failures.join(' | ')})` : ''}`, { cause: thrown });
  assert.equal(failures.length, 0, `${name}: ${failures.length} failed checks:\n${failures.join('\n')}`);
}
