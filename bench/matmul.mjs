// Times one matrix product alone (bench/matmul.c) for each ROWSxCOLSxN given, in GFLOP/s
// counted as 2 per multiply-add (best of 20):
//
//   NODE_PATH=/usr/share/nodejs emcc -O3 -msimd128 -std=c11 -Ic bench/matmul.c c/kernels.c c/linear.c \
//     -o build/matmul.wasm --no-entry -sSTANDALONE_WASM -sALLOW_MEMORY_GROWTH=1 -sTOTAL_STACK=1MB
//   node bench/matmul.mjs build/matmul.wasm 256x256x16 1024x256x16
import { readFileSync } from 'node:fs';

const [file, ...shapes] = process.argv.slice(2);
if (!file || !shapes.length) {
  console.error('usage: node bench/matmul.mjs build/matmul.wasm ROWSxCOLSxN ...');
  process.exit(2);
}
const bytes = readFileSync(file);
for (const shape of shapes) {
  const [rows, cols, n] = shape.split('x').map(Number);
  const { instance } = await WebAssembly.instantiate(bytes, {
    env: { emscripten_notify_memory_growth() {} },
    wasi_snapshot_preview1: { proc_exit() {}, fd_write() { return 0; }, fd_close() { return 0; }, fd_seek() { return 0; } },
  });
  const e = instance.exports;
  e._initialize?.();
  if (!e.setup(rows, cols, n)) throw new Error(`${shape}: out of memory`);
  const repeats = Math.ceil(2e8 / (rows * cols * n));
  e.run(n, 5);
  let best = Infinity;
  for (let i = 0; i < 20; i++) {
    const start = performance.now();
    e.run(n, repeats);
    best = Math.min(best, performance.now() - start);
  }
  console.log(`${shape}: ${((2 * rows * cols * n * repeats) / best / 1e6).toFixed(1)} GFLOP/s`);
}
