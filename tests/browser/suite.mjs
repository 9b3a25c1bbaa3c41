// The browser suite on node:test, for one browser: every test of run.mjs's table in the set
// asked for (ATTN_BROWSER_SET=core, `make test`; all, `make test-all`; Firefox runs run.mjs's
// FIREFOX set), one browser launch for the file. A test fails when one of its checks fails,
// and names them; each has its own time limit. `node --test --test-name-pattern=testFrench
// tests/browser/chromium.test.mjs` runs one.
import { after, before, test } from 'node:test';
import { runChecked } from './lib/checks.mjs';
import * as session from './lib/session.mjs';
import { FIREFOX, FULL_ONLY, LONG_TESTS, NAMED_ONLY, TESTS, TEST_LIMIT_S } from './run.mjs';

const SETS = ['core', 'all'];

/** Registers the suite's tests for `browserName`. */
export function browserSuite(browserName) {
  const set = process.env.ATTN_BROWSER_SET || 'core';
  if (!SETS.includes(set)) throw new Error(`ATTN_BROWSER_SET=${set}: one of ${SETS.join(', ')}`);
  // ATTN_BROWSER_ONLY: words, comma-separated; only the tests whose names contain one (run.mjs NAME …).
  const only = (process.env.ATTN_BROWSER_ONLY || '').toLowerCase().split(',').filter(Boolean);
  const asked = (name) => !only.length || only.some((word) => name.toLowerCase().includes(word));
  const inSet = (name) => asked(name) && (only.length > 0 || !NAMED_ONLY.has(name)) &&
    (browserName === 'firefox' ? FIREFOX.has(name) : set === 'all' || !FULL_ONLY.has(name));
  const inShard = shardFilter(process.env.ATTN_BROWSER_SHARD);
  before(async () => console.log(await session.openSession(browserName)));
  after(async () => {
    for (const line of session.float64?.summary() ?? []) console.log(line);
    const { passed, failed } = session.checkCounts();
    console.log(`${browserName}: ${passed} checks passed, ${failed} failed`);
    await session.closeSession();
  });
  for (const [name, body] of Object.entries(TESTS).filter(([name]) => inSet(name)).filter(inShard)) {
    test(name, { timeout: (LONG_TESTS[name] ?? TEST_LIMIT_S) * 1000 }, () => runChecked(session.checks, name, () => body(session.ctx)));
  }
  test('network: every request to file:// or the local server', () => runChecked(session.checks, 'network', () => {
    for (const [name, ok, detail] of session.sessionChecks()) session.check(name, ok, detail);
  }));
}

/**
 * ATTN_BROWSER_SHARD=k/n: every n-th test of the set from the k-th on, so that n processes, each
 * with its own browser, share the set (`make test` runs two at once); unset, the whole set.
 */
export function shardFilter(shard) {
  if (!shard) return () => true;
  const [k, n] = shard.split('/').map(Number);
  if (!(Number.isInteger(n) && n >= 1 && Number.isInteger(k) && k >= 1 && k <= n)) throw new Error(`ATTN_BROWSER_SHARD=${shard}: k/n with 1 ≤ k ≤ n`);
  return (_, index) => index % n === k - 1;
}
