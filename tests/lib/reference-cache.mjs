// The float64 reference's results, kept between runs under build/cache/reference/: keyed by the
// checkpoint's bytes (config.json, vocab.txt, model.safetensors), the reference's own source
// (weights/reference.mjs and the modules next to it, tests/lib/analysis-reference.mjs), what was
// computed and its input. A second run reads them back instead of recomputing; a change to the
// checkpoint or to the reference's code computes them again. Only the reference is cached: the
// engine's outputs are always computed afresh. ATTN_REFERENCE_CACHE=0 turns the cache off.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import { repoRoot } from './node-engine.mjs';

const CACHE = path.join(repoRoot, 'build/cache/reference');
const enabled = process.env.ATTN_REFERENCE_CACHE !== '0';
const sha256 = (...parts) => {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  return hash.digest('hex');
};

let codeHash = null;
/** The reference's source: every module of weights/ it may import, and the analyses built on it. */
function referenceCodeHash() {
  if (codeHash === null) {
    const files = [...fs.readdirSync(path.join(repoRoot, 'weights')).filter((f) => f.endsWith('.mjs')).map((f) => `weights/${f}`),
      'tests/lib/analysis-reference.mjs', 'tests/lib/reference-cache.mjs'].sort();
    codeHash = sha256(...files.map((f) => `${f}\0${fs.readFileSync(path.join(repoRoot, f))}\0`));
  }
  return codeHash;
}

const checkpointHashes = new Map();
/** sha256 of a checkpoint directory's files the reference reads. */
export function checkpointHash(dir) {
  if (!checkpointHashes.has(dir)) {
    const files = ['config.json', 'vocab.txt', 'model.safetensors'].map((f) => path.join(dir, f)).filter((f) => fs.existsSync(f));
    checkpointHashes.set(dir, sha256(...files.map((f) => `${path.basename(f)}\0${fs.readFileSync(f).length}\0`),
      ...files.map((f) => fs.readFileSync(f))));
  }
  return checkpointHashes.get(dir);
}

/**
 * compute() once per (checkpoint, what, input) across runs: its value (typed arrays, objects,
 * numbers; v8-serializable) is stored in build/cache/reference/ and read back next time.
 */
export function cachedReference(checkpointDir, what, input, compute) {
  if (!enabled) return compute();
  const key = sha256(referenceCodeHash(), checkpointHash(checkpointDir), what, JSON.stringify(input));
  const file = path.join(CACHE, `${key}.v8`);
  try {
    return v8.deserialize(fs.readFileSync(file));
  } catch {
    const value = compute();
    fs.mkdirSync(CACHE, { recursive: true });
    const temporary = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(temporary, v8.serialize(value));
    fs.renameSync(temporary, file);
    return value;
  }
}
