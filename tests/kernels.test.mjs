// The kernel test of tests/native/test_kernels.c, built for wasm SIMD128 (`make
// build/test_kernels.wasm`, a dependency of `make test-node`) and run here under WASI: the
// SIMD code paths of c/kernels.c against the same double-precision bounds as the native run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, mkdtempSync, rmSync, openSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { WASI } from 'node:wasi';

const root = fileURLToPath(new URL('../', import.meta.url));

test('matrix-product kernels (wasm SIMD128 build) stay within the rounding bounds', async () => {
  const bytes = readFileSync(path.join(root, 'build/test_kernels.wasm'));
  const dir = mkdtempSync(path.join(tmpdir(), 'kernels-'));
  const outPath = path.join(dir, 'out.txt');
  const fd = openSync(outPath, 'w');
  try {
    const wasi = new WASI({ version: 'preview1', args: ['test_kernels'], stdout: fd, returnOnExit: true });
    const { instance } = await WebAssembly.instantiate(bytes, {
      wasi_snapshot_preview1: wasi.wasiImport,
      env: { emscripten_notify_memory_growth() {} },  // emcc's hook for memory.grow: nothing to do here
    });
    const code = wasi.start(instance);
    closeSync(fd);
    const out = readFileSync(outPath, 'utf8');
    const summary = out.match(/kernels: (\d+) passed, (\d+) failed/);
    assert.ok(summary, `no summary line in:\n${out}`);
    assert.equal(Number(summary[2]), 0, out);
    assert.ok(Number(summary[1]) >= 950, `only ${summary[1]} checks ran`);
    assert.equal(code, 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
