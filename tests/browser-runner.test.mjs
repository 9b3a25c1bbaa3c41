// The browser test files' runner pieces (tests/browser/lib/checks.mjs, prerequisites.mjs): a test
// fails naming each of its failed checks, and a file whose programs are missing skips with the
// reason outside CI and fails under CI=true. Runs no browser.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { checkTally, runChecked } from './browser/lib/checks.mjs';
import { prerequisites, requirePrerequisites } from './browser/lib/prerequisites.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const MISSING = '/nonexistent/attn-no-such-program';

test('runChecked: a test with failed checks fails naming each; the next test starts clean', async () => {
  const tally = checkTally();
  await assert.rejects(runChecked(tally, 'testA', () => {
    tally.check('first', true);
    tally.check('second', false, 'detail two');
    tally.check('third', false);
  }), (error) => /testA: 2 failed checks/.test(error.message) && /second: detail two/.test(error.message) && /third/.test(error.message)
    && !/first/.test(error.message));
  await runChecked(tally, 'testB', () => { tally.check('fourth', true); });
  assert.deepEqual(tally.counts(), { passed: 2, failed: 2 });
});

test('runChecked: a body that throws fails the test, with the checks that failed before', async () => {
  const tally = checkTally();
  await assert.rejects(runChecked(tally, 'testC', async () => {
    tally.check('before the throw', false);
    throw new Error('page closed');
  }), (error) => /testC did not run to the end \(failed checks: before the throw\)/.test(error.message) && error.cause.message === 'page closed');
});

test('prerequisites: a missing program skips outside CI, and fails under CI=true, naming it', () => {
  const saved = process.env.CI;
  try {
    delete process.env.CI;
    const outside = prerequisites('x', [[process.execPath, 'node'], [MISSING, 'a package']]);
    assert.match(outside.skip, new RegExp(`${MISSING} is missing \\(a package\\)`));
    process.env.CI = 'true';
    const inCI = prerequisites('x', [[MISSING, 'a package']]);
    assert.equal(inCI.skip, false);
    assert.throws(() => requirePrerequisites('x', inCI.reason), new RegExp(`${MISSING} is missing.*CI=true`));
    assert.deepEqual(prerequisites('x', [[process.execPath, 'node']]), { reason: '', skip: false });
  } finally {
    if (saved === undefined) delete process.env.CI;
    else process.env.CI = saved;
  }
});

for (const file of ['faults.test.mjs', 'notebook.test.mjs']) {
  test(`${file} without Chromium: every test skipped with the reason; under CI=true every test fails`, () => {
    // NODE_TEST_CONTEXT would make the inner run report to this one instead of printing.
    const { NODE_TEST_CONTEXT: _, ...env } = process.env;
    const run = (ci) => spawnSync(process.execPath, ['--test', '--test-reporter=tap', path.join(ROOT, 'tests/browser', file)],
      { encoding: 'utf8', env: { ...env, CHROMIUM: MISSING, CI: ci } });
    const outside = run('');
    assert.equal(outside.status, 0, outside.stdout + outside.stderr);
    assert.match(outside.stdout, /^# pass 0$/m);
    assert.match(outside.stdout, /^# skipped [1-9]\d*$/m);
    assert.match(outside.stdout, new RegExp(`# SKIP ${MISSING} is missing`));
    const inCI = run('true');
    assert.equal(inCI.status, 1, inCI.stdout + inCI.stderr);
    assert.match(inCI.stdout, /^# skipped 0$/m);
    assert.match(inCI.stdout, /^# fail [1-9]\d*$/m);
    assert.match(inCI.stdout, new RegExp(`${MISSING} is missing.*CI=true`));
  });
}
