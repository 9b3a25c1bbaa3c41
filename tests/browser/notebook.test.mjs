// The notebook helper (web/notebook/) in a kernel of Debian's Jupyter, its HTML export, live
// outputs, figures alone and the one-file page, in Chromium (tests/browser/topics/notebook.mjs)
// on node:test. A test fails when one of its checks fails, and names them; each has its own time
// limit. `make test-notebook` runs this file; `node --test --test-name-pattern=testNotebookExport
// tests/browser/notebook.test.mjs` runs one test. Without Chromium or Jupyter every test skips
// (CI=true: fails).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { CHROMIUM, startChromium } from './lib/browsers.mjs';
import { TEST_LIMIT_S, checkTally, runChecked } from './lib/checks.mjs';
import { prerequisites, requirePrerequisites } from './lib/prerequisites.mjs';
import { NBCONVERT, NOTEBOOK_TESTS, notebookContext } from './topics/notebook.mjs';

/** The tests that execute the notebook in a kernel (nbconvert's own limit per cell: 300 s). */
const LONG_TESTS = { testNotebookExport: 600, testNotebookOneFile: 600 };
const checks = checkTally();
const { reason, skip } = prerequisites('notebook', [[CHROMIUM, "Debian's chromium, tools/install-deps.sh"],
  [NBCONVERT, "Debian's jupyter-nbconvert and python3-ipykernel, tools/install-deps.sh"]]);
let ctx, browser, work;

if (!skip) {
  before(async () => {
    requirePrerequisites('notebook', reason);
    work = mkdtempSync(path.join(os.tmpdir(), 'attn-notebook-'));
    browser = await startChromium();
    console.log(`notebook: Chromium ${browser.version()} (${CHROMIUM}), ${NBCONVERT}`);
    ctx = notebookContext({ browser, check: checks.check, work });
  });
  after(async () => {
    const { passed, failed } = checks.counts();
    console.log(`notebook: ${passed} checks passed, ${failed} failed`);
    await browser?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });
}

for (const [name, body] of Object.entries(NOTEBOOK_TESTS)) {
  test(name, { timeout: (LONG_TESTS[name] ?? TEST_LIMIT_S) * 1000, skip }, () => runChecked(checks, name, () => body(ctx)));
}
