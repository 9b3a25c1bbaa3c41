// Simulates quantization schemes the file format does not offer (more bits, exact rows,
// centred or scaled columns) and reports the attention and MLM parity they would reach:
// it rounds the checkpoint's matrices as told, writes them to a temporary checkpoint, converts
// that with one scale per weight (exact) and runs tests/parity.mjs on it.
//
//   node tools/quant-simulate.mjs '[{"match":"word_embeddings","bits":12,"group":"row"}]'
//
// Each rule: match (substring of the tensor name; the first matching rule wins; matrices no
// rule matches stay exact), bits, group ("row" or a column count), and optionally center
// (subtract column means first), clip (scale factor on the max), colScale (exponent of a
// per-column rms equalisation), exactRows (ids, or regular expressions over vocab entries).
// Prints: the rules, attention max |Δ|, MLM probability max |Δ|.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
const root = fileURLToPath(new URL('..', import.meta.url));
const rules = JSON.parse(process.argv[2]);
const src = process.env.CHECKPOINT ?? path.join(root, '../shared/checkpoints/bert-mini-mlm');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quant-simulate-'));
for (const f of ['config.json', 'vocab.txt']) fs.copyFileSync(`${src}/${f}`, `${dir}/${f}`);
const buf = fs.readFileSync(`${src}/model.safetensors`);
const hl = Number(buf.readBigUInt64LE(0));
const header = JSON.parse(buf.subarray(8, 8 + hl));
const out = Buffer.from(buf);
const vocabLines = fs.readFileSync(`${src}/vocab.txt`, 'utf8').split('\n');
for (const [name, info] of Object.entries(header)) {
  if (name === '__metadata__' || info.shape.length !== 2) continue;
  const rule = rules.find((r) => name.includes(r.match));
  if (!rule) continue;
  const [rows, cols] = info.shape;
  const off = 8 + hl + info.data_offsets[0];
  const data = new Float32Array(buf.buffer.slice(buf.byteOffset + off, buf.byteOffset + off + rows * cols * 4));
  const levels = (2 ** (rule.bits - 1)) - 1;
  const g = rule.group === 'row' ? cols : rule.group;
  const exact = new Set((rule.exactRows || []).flatMap((x) => typeof x === 'number' ? [x] : vocabLines.map((l, i) => new RegExp(x).test(l) ? i : -1).filter((i) => i >= 0)));
  const colMean = new Float64Array(cols);
  if (rule.center) { for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) colMean[c] += data[r * cols + c] / rows;
    for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) data[r * cols + c] -= colMean[c]; }
  let rowScale = null;
  if (rule.colScale) { // activation-aware: multiply columns by a[c] before quantizing
    rowScale = new Float64Array(cols);
    for (let c = 0; c < cols; c++) { let s = 0; for (let r = 0; r < rows; r++) s += data[r * cols + c] ** 2; rowScale[c] = Math.pow(Math.sqrt(s / rows), -rule.colScale); }
  }
  for (let r = 0; r < rows; r++) {
    if (exact.has(r)) continue;
    for (let b = 0; b < cols; b += g) {
      let m = 0;
      for (let c = b; c < b + g; c++) m = Math.max(m, Math.abs(data[r * cols + c] * (rowScale ? rowScale[c] : 1)));
      const s = m * (rule.clip || 1) / levels;
      for (let c = b; c < b + g; c++) {
        const a = rowScale ? rowScale[c] : 1;
        data[r * cols + c] = s ? Math.max(-levels, Math.min(levels, Math.round(data[r * cols + c] * a / s))) * s / a : 0;
      }
    }
  }
  if (rule.center) for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) data[r * cols + c] += colMean[c];
  out.set(new Uint8Array(data.buffer), off);
}
fs.writeFileSync(`${dir}/model.safetensors`, out);
execFileSync('node', [path.join(root, 'weights/convert.mjs'), dir, `${dir}/w.bin`, '--group', '1'], { stdio: 'ignore' });
let text = '';
try { text = execFileSync('node', [path.join(root, 'tests/parity.mjs'), '--attention', '--mlm', '--weights', `${dir}/w.bin`]).toString(); } catch (e) { text = e.stdout.toString(); }
console.log(process.argv[2].padEnd(90), text.split('\n').filter((l) => /^(attention|mlm):/.test(l)).map((l) => l.match(/max \|Δ\| ([0-9.e+-]+)/)[1]).join('  '));
fs.rmSync(dir, { recursive: true });
