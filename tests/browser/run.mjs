#!/usr/bin/env node
// The browser suite's test table: every browser test, by name, and which sets run it. The
// bodies live in topic modules (tests/browser/topics/*.mjs, convert.mjs, …); each is an
// `async function testX(ctx)` whose ctx is lib/session.mjs's (newPage, check, waitDrawn, FILE,
// HTTP, ROOT, browserName, …). A new test: a function in a topic module and one line here.
//
// The runner is node:test: tests/browser/chromium.test.mjs and firefox.test.mjs (suite.mjs).
// The fault cases and the notebook checks have tables of their own (FAULT_TESTS in
// topics/faults.mjs, NOTEBOOK_TESTS in topics/notebook.mjs), run by faults.test.mjs and
// notebook.test.mjs on node:test too (make test-browser-all, make test-notebook).
// Run directly, this file runs them for you:
//   node tests/browser/run.mjs                 the full Chromium suite (make test-browser-all)
//   node tests/browser/run.mjs --core          the set `make test` runs
//   node tests/browser/run.mjs testFrench …    the tests whose names contain these words
//   BROWSER=firefox node tests/browser/run.mjs  the Firefox set (make test-firefox)
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as loading from './topics/loading.mjs';
import * as input from './topics/input.mjs';
import * as loadErrors from './topics/load-errors.mjs';
import * as exporting from './topics/export.mjs';
import * as timing from './topics/timing.mjs';
import * as layout from './topics/layout.mjs';
import * as french from './topics/french.mjs';
import * as views from './topics/views.mjs';
import * as heads from './topics/heads.mjs';
import { convertPanelTest } from './convert.mjs';
import { testFrenchRefusals } from './convert-french.mjs';
import { noWorkerConversionTest } from './no-worker.mjs';
import { threeExplorersTest } from './scale-memory.mjs';
import { TEST_LIMIT_S } from './lib/checks.mjs';

/** name → async (ctx) => void. Order is the run's order. */
export const TESTS = {
  ...pick(loading, 'testFileIndex testHttpIndex testViewValues'), testKeyboard: input.testKeyboard,
  testEmbedFile: loading.testEmbedFile, testEmbedHttp: loading.testEmbedHttp,
  ...pick(input, 'testInjection testHash testLongInput'),
  ...pick(loadErrors, 'testLoadErrors testScriptsFromDisk testCorruptWeightsMatrix testCorruptParts testMaskWaitsForParts testEveryLayerWaits'),
  testExport: exporting.testExport,
  ...pick(layout, 'testScreenshots testLayout testLayoutFrench'), testFrench: french.testFrench,
  ...pick(views, 'testReadings testCompareAlignment'), ...pick(input, 'testAttributes testHashRestore'), testHeadView: views.testHeadView,
  testMatrixTouch: input.testMatrixTouch, testCopyTheFiles: loading.testCopyTheFiles, testOneFile: loading.testOneFile,
  testModelCard: views.testModelCard, testCasedFrench: french.testCasedFrench, ...pick(views, 'testAddedView testRegisteredView'),
  testConvertPanel: convertPanelTest, testNoWorker: noWorkerConversionTest, testThreeExplorers512: threeExplorersTest, testFrenchRefusals,
  testLayoutColumns: layout.testLayoutColumns, ...pick(heads, 'testAblation testImportance testImportanceInWorkers testEntropyHidden'),
  ...pick(layout, 'testCompactControls testCompactHeight testModelCardLayout testIndexScreenshots'), ...pick(french, 'testFrenchCard testLanguageAddress'),
  testCompareHeaders: views.testCompareHeaders, testImportanceTime: timing.testImportanceTime, testTiming: timing.testTiming,
};

/** Left out of the core set (`make test`), run by the full suite (`make test-all`): the throttled loads and the slowest. */
export const FULL_ONLY = new Set(['testTiming', 'testEveryLayerWaits', 'testImportanceTime', 'testCorruptWeightsMatrix', 'testCorruptParts',
  'testScreenshots', 'testLayout', 'testLayoutFrench', 'testLongInput', 'testConvertPanel', 'testOneFile', 'testIndexScreenshots', 'testNoWorker',
  'testThreeExplorers512']);

/** Run only when asked for by name (run.mjs NAME): the full suite's testTiming makes the same measurements and checks. */
export const NAMED_ONLY = new Set(['testImportanceTime']);

/** What Firefox runs (`make test-firefox`): the page from file:// and http, every view's values, the course-page recipes, layout. */
export const FIREFOX = new Set(['testFileIndex', 'testHttpIndex', 'testViewValues', 'testCopyTheFiles', 'testEmbedFile', 'testEmbedHttp',
  'testOneFile', 'testLayoutColumns', 'testLayoutFrench', 'testIndexScreenshots', 'testImportanceInWorkers']);

/** Seconds a test may run before it counts as hung: TEST_LIMIT_S (lib/checks.mjs, 240), or these. */
export { TEST_LIMIT_S };
export const LONG_TESTS = { testTiming: 900, testLayout: 900, testLayoutColumns: 600, testLayoutFrench: 600, testScreenshots: 600,
  testCorruptWeightsMatrix: 600, testCorruptParts: 600, testViewValues: 600, testThreeExplorers512: 900 };

function pick(module, names) {
  return Object.fromEntries(names.split(' ').map((name) => {
    if (typeof module[name] !== 'function') throw new Error(`run.mjs: no test ${name} in its topic module`);
    return [name, module[name]];
  }));
}

/** Run directly: node --test on the suite, with the set and names asked for. */
function runDirectly(args) {
  const browser = process.env.BROWSER || 'chromium';
  const names = args.filter((a) => a !== '--core');
  const here = path.dirname(fileURLToPath(import.meta.url));
  const env = { ...process.env, ATTN_BROWSER_SET: args.includes('--core') ? 'core' : 'all', ATTN_BROWSER_ONLY: names.join(',') };
  const run = spawnSync(process.execPath, ['--test', '--test-reporter=spec', path.join(here, `${browser}.test.mjs`)],
    { stdio: 'inherit', env });
  process.exit(run.status ?? 1);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) runDirectly(process.argv.slice(2));
