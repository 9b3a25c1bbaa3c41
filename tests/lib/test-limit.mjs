// Each test's own time limit, for `node --test --import ./tests/lib/test-limit.mjs` (the
// Makefile's NODE_TEST_FLAGS). Node 20's --test-timeout bounds a whole file and, when it
// strikes, names only the file; and a test blocked in a synchronous call (a spawnSync that never
// returns, a futex wait) stops the event loop, so no timer of its own can fire. Here a worker
// thread watches the file's process: a test, the loading of the file before its first test, or
// the time after a test, past its limit, is named with the file and the process killed; the
// runner reports the file as failed with that line. (A hang in the process's own exit, after the
// worker is gone, is left to --test-timeout.)
//
// The limit is ATTN_TEST_LIMIT_S seconds (default 180); a test that needs longer says so first:
//   import { testLimit } from './lib/test-limit.mjs';
//   test('a long one', () => { testLimit(600); … });
import { beforeEach, afterEach } from 'node:test';
import { Worker } from 'node:worker_threads';

const DEFAULT_SECONDS = Number(process.env.ATTN_TEST_LIMIT_S) || 180;
const LABEL_BYTES = 400;
// [0] when the phase began (ms since `origin`), [1] its limit (s), [2] its label's length
const state = new Int32Array(new SharedArrayBuffer(12));
const label = new Uint8Array(new SharedArrayBuffer(LABEL_BYTES));
const origin = Date.now();
const file = process.argv[1] ?? '';

const WATCH = `
const { workerData: { state, label, origin, file } } = require('node:worker_threads');
const fs = require('node:fs');
setInterval(() => {
  const ran = Date.now() - origin - Atomics.load(state, 0), limit = Atomics.load(state, 1);
  if (ran <= limit * 1000) return;
  const what = Buffer.from(label.slice(0, Atomics.load(state, 2))).toString('utf8');
  fs.writeSync(2, 'test-limit: FAIL ' + what + ' (' + file + '): still running after ' + limit +
    ' s, stopped (a hang, or a test that needs testLimit())\\n');
  process.kill(process.pid, 'SIGKILL');
}, 250);
`;

/** Starts a phase of the file's run: what it is, for the message, and its limit. */
function phase(what, seconds = DEFAULT_SECONDS) {
  const bytes = new TextEncoder().encode(what).slice(0, LABEL_BYTES);
  label.set(bytes);
  Atomics.store(state, 2, bytes.length);
  Atomics.store(state, 1, seconds);
  Atomics.store(state, 0, Date.now() - origin);
}

/** Sets the running test's limit to `seconds` from its start (for the tests that take minutes). */
export function testLimit(seconds) {
  Atomics.store(state, 1, seconds);
}

if (file) {
  phase('the file\'s loading (before its first test)');
  new Worker(WATCH, { eval: true, workerData: { state, label, origin, file } }).unref();
  beforeEach((t) => phase(`test "${t.name}"`));
  afterEach((t) => phase(`after test "${t.name}" (the next test's start, or the file's end)`));
}
