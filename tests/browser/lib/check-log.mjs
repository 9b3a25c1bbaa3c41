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
