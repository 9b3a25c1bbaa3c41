// The browser runners' checks: each printed as "ok   NAME" or "FAIL NAME: DETAIL" and counted,
// for the closing "N passed, N failed" line and the exit status.

export function checkLog() {
  const log = { passed: 0, failed: 0 };
  /** Prints and counts one check; returns `ok`. */
  log.check = (name, ok, detail = '') => {
    if (ok) { log.passed++; console.log(`ok   ${name}`); }
    else { log.failed++; console.log(`FAIL ${name}${detail ? ': ' + detail : ''}`); }
    return ok;
  };
  return log;
}

/** Seconds a browser test may run before it counts as hung (LONG_TESTS: the throttled loads, layouts). */
export const TEST_LIMIT_S = Number(process.env.ATTN_BROWSER_TEST_LIMIT_S) || 240;

/**
 * Runs one test of a browser runner, failing it when it has not finished within `seconds`: a hang
 * fails in minutes and names itself (the runner goes on with the next test).
 */
export async function withinLimit(name, run, seconds = TEST_LIMIT_S) {
  let timer;
  const limit = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${name}: still running after ${seconds} s (a hang, or a limit to raise)`)), seconds * 1000);
  });
  try {
    return await Promise.race([run(), limit]);
  } finally {
    clearTimeout(timer);
  }
}
