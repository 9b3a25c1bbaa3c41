// A 10-round run of the benchmark (bench/bench.mjs in Node, bench/browser.mjs in Chromium) at
// n = 8 and 16: its summary lines must parse and every ratio and interval must be a finite,
// positive, ordered number. Speed itself is not judged here (bench/README.md has the goals).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { testLimit } from './lib/test-limit.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const peers = path.resolve(root, '../shared/peers');
const noPeers = !existsSync(path.join(peers, 'bert-mini-f32.onnx')) && 'no ../shared/peers/*.onnx';
const noChromium = !existsSync(process.env.CHROMIUM || '/usr/bin/chromium') && 'no Chromium';
// --liftoff: V8's default tiers, which spare the smoke run the optimising compile of ORT's 14 MB wasm.
const ARGS = ['--lengths', '8,16', '--rounds', '10', '--blocks', '2', '--errors', '4', '--seed', '7', '--liftoff'];

function run(script, label, t) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-smoke-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  // bench.mjs writes --out; browser.mjs writes chromium.json next to it.
  const out = path.join(dir, label === 'speedup' ? 'node.json' : 'chromium.json');
  const child = spawnSync(process.execPath, [path.join(root, script), ...ARGS, '--out', path.join(dir, 'node.json')],
    { cwd: root, encoding: 'utf8', timeout: 240_000 });
  assert.equal(child.status, 0, `${script} failed:\n${child.stdout}\n${child.stderr}`);
  const line = child.stdout.split('\n').find((l) => l.startsWith(`${label}: `));
  assert.ok(line, `no "${label}:" line in:\n${child.stdout}`);
  const values = Object.fromEntries(line.slice(label.length + 2).split(' ').map((kv) => kv.split('=')));
  return { stdout: child.stdout, values, result: JSON.parse(readFileSync(out, 'utf8')) };
}

function checkRun({ stdout, values, result }) {
  for (const kind of ['f32', 'int8']) {
    for (const key of [`ort_${kind}_n16`, `ort_${kind}_n16_lo`]) {
      const x = Number(values[key]);
      assert.ok(Number.isFinite(x) && x > 0, `${key}=${values[key]}`);
    }
    assert.ok(Number(values[`ort_${kind}_n16_lo`]) <= Number(values[`ort_${kind}_n16`]));
    for (const key of [`ort_${kind}_n128`, `ort_${kind}_n128_lo`]) assert.equal(values[key], 'n/a', `${key} was not measured`);
  }
  assert.ok('peak_fraction_n128' in values);
  const dot = Number(values.dot_peak_fraction_n16);  // build/peak.wasm: make test-node builds it
  assert.ok(Number.isFinite(dot) && dot > 0, `dot_peak_fraction_n16=${values.dot_peak_fraction_n16} (is build/peak.wasm built?)`);
  assert.equal(values.dot_peak_fraction_n128, 'n/a', 'dot_peak_fraction_n128 was not measured');
  assert.match(stdout, /^goals( \(chromium\))?: f32 n=16 lo \d+\.\d\d ≥ 3: /m);
  assert.match(stdout, /load average \d+\.\d\d \d+\.\d\d \d+\.\d\d/);
  assert.deepEqual(result.rows.map((r) => [r.n, r.rounds, r.blocks]), [[8, 10, 2], [16, 10, 2]]);
  for (const row of result.rows) {
    assert.ok(row.cells.ours.ms > 0 && Number.isFinite(row.cells.ours.ms));
    for (const kind of ['f32', 'int8']) {
      const { median, lo, hi } = row.cells[kind].ratio;
      assert.ok([median, lo, hi].every((x) => Number.isFinite(x) && x > 0), `n=${row.n} ${kind}: ${median} [${lo}, ${hi}]`);
      assert.ok(lo <= median && median <= hi, `n=${row.n} ${kind}: ${median} outside [${lo}, ${hi}]`);
      assert.equal(row.cells[kind].ratio.blockMedians.length, 2, 'one median ratio per block');
    }
  }
  for (const name of ['ours', 'f32', 'int8']) {
    const e = result.errors[name];
    assert.ok(e && e.sentences === 4 && Number.isFinite(e.max) && e.max >= e.mean && e.mean >= 0, `${name}: ${JSON.stringify(e)}`);
  }
  assert.equal(result.errors.f32.model, 'bert-mini-mlm');
}

test('bench in Node: 10 rounds at n = 8 and 16 give parseable, finite, positive ratios', { skip: noPeers }, (t) => {
  testLimit(300);  // synchronous: node's own timeout option cannot stop it
  checkRun(run('bench/bench.mjs', 'speedup', t));
});

test('bench in Chromium: the same, on the "speedup (chromium):" line', { skip: noPeers || noChromium }, (t) => {
  testLimit(300);
  const r = run('bench/browser.mjs', 'speedup (chromium)', t);
  assert.match(r.stdout, /crossOriginIsolated true/);
  checkRun(r);
});
