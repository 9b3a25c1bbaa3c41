#!/usr/bin/env node
// Converts a Hugging Face BERT masked-LM checkpoint directory (config.json, vocab.txt or
// tokenizer.json, model.safetensors or pytorch_model.bin, optional training.json) into the
// weights file of weights/FORMAT.md.
//
//   node weights/convert.mjs CHECKPOINT_DIR OUT.bin [--precision auto|int8|int16]
//        [--precision-for SUBSTRING=int8|int16 ...] [--target 1e-3] [--scripts]
//
// --scripts also writes OUT.weights.head.js and OUT.weights.part-NNN.js next to OUT.bin: the
// scripts a page opened from file:// loads the model through (weights/asset-scripts.mjs).
//
// Each matrix is stored in the precision its kernel reads: int8 or int16, with a float scale
// per row. --precision auto (the default) writes
// int8 for every matrix already on the per-row int8 grid, and for the others searches which
// must be int16 so that the engine (web/dist/attn.wasm, run on each candidate file) keeps its
// attention within --target of the float64 reference's (weights/precision-search.mjs). Same
// input, same options -> identical bytes.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { quoteValue, reportableBug } from './convert-error.mjs';
import {
  ConvertError, fail, checkFileSize, parseSafetensors, canonicalTensors, floatsOf, tensorPlan, convertCheckpoint, chooseCheckpointFiles,
} from './convert-core.mjs';
import { searchPrecision, HELD_OUT_FACTOR } from './precision-search.mjs';
import { weightScripts } from './asset-scripts.mjs';

export { floatsOf, tensorPlan };
export const DEFAULT_TARGET = 1e-3;

const USAGE = 'usage: node weights/convert.mjs CHECKPOINT_DIR OUT.bin [--precision auto|int8|int16] '
  + '[--precision-for SUBSTRING=int8|int16 ...] [--target X] [--scripts]';

// ---------------------------------------------------------------- options

function parsePrecision(text, option, allowAuto) {
  const allowed = allowAuto ? ['auto', 'int8', 'int16'] : ['int8', 'int16'];
  if (!allowed.includes(text)) fail('convert.refusal.cli.precision', { option, allowed: allowed.join(', '), value: quoteValue(text) });
  return text;
}

export function defaultOptions() {
  return { precision: 'auto', precisionFor: [], target: DEFAULT_TARGET };
}

export function parseArgs(argv) {
  const positional = [];
  const options = defaultOptions();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => (i + 1 < argv.length ? argv[++i] : fail('convert.refusal.cli.needsValue', { option: arg, usage: USAGE }));
    if (arg === '--precision') options.precision = parsePrecision(value(), arg, true);
    else if (arg === '--precision-for') {
      const spec = value();
      const eq = spec.lastIndexOf('=');
      if (eq <= 0) fail('convert.refusal.cli.precisionFor', { value: quoteValue(spec) });
      options.precisionFor.push({ substring: spec.slice(0, eq), precision: parsePrecision(spec.slice(eq + 1), arg, false) });
    } else if (arg === '--target') {
      const text = value();
      const target = Number(text);
      if (!(target > 0) || !Number.isFinite(target)) fail('convert.refusal.cli.target', { value: quoteValue(text) });
      options.target = target;
    } else if (arg === '--scripts') options.scripts = true;
    else if (arg.startsWith('--')) fail('convert.refusal.cli.unknownOption', { option: arg, usage: USAGE });
    else positional.push(arg);
  }
  if (positional.length !== 2) fail('convert.refusal.cli.usage', { usage: USAGE });
  [options.checkpointDir, options.outPath] = positional;
  return options;
}

// ---------------------------------------------------------------- reading a directory

function readFile(dir, name, { optional = false } = {}) {
  const file = path.join(dir, name);
  if (optional && !fs.existsSync(file)) return null;
  try {
    checkFileSize(name, fs.statSync(file).size);
    return fs.readFileSync(file);
  } catch (e) {
    if (e instanceof ConvertError) throw e;
    failToRead(file, e);
  }
}

function failToRead(file, e) {
  if (e.code === 'ENOENT') fail('convert.refusal.cli.noFile', { file });
  fail('convert.refusal.cli.cannotRead', { file, error: e.message });
}

function folderNames(dir) {
  try { return fs.readdirSync(dir); } catch (e) {
    if (e.code === 'ENOENT') fail('convert.refusal.cli.noFolder', { dir });
    if (e.code === 'ENOTDIR') fail('convert.refusal.cli.notFolder', { dir });
    return fail('convert.refusal.cli.cannotReadFolder', { dir, error: e.message });
  }
}

// Name → tensor under BertForMaskedLM's names, whichever variant the file uses (canonicalTensors).
export function readSafetensors(file) {
  return canonicalTensors(parseSafetensors(readSafetensorsBytes(file), path.basename(file))).tensors;
}

function readSafetensorsBytes(file) {
  let buf;
  try { buf = fs.readFileSync(file); } catch (e) {
    failToRead(file, e);
  }
  return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
}

// ---------------------------------------------------------------- convert

export const ENGINE_WASM = new URL('../web/dist/attn.wasm', import.meta.url);
// Loaded here, not by precision-search.mjs, so that the converter runs (every precision
// forced, nothing measured) in a copy of weights/ without the page's sources.
const engineSource = await import('../web/src/engine.mjs').catch((error) => error);
let engineBuild = null;

// The engine the search runs its candidate files on: the page's own JavaScript and wasm.
function searchEngine() {
  if (engineSource instanceof Error) fail('convert.refusal.cli.engineSource', { error: engineSource.message });
  if (!engineBuild) {
    let bytes;
    try { bytes = fs.readFileSync(ENGINE_WASM); } catch {
      fail('convert.refusal.cli.engineWasm', { file: ENGINE_WASM.pathname });
    }
    engineBuild = { Engine: engineSource.Engine, wasm: new WebAssembly.Module(bytes) };
  }
  return engineBuild;
}

// The float64 reference's attention on the calibration text, kept under build/reference-cache/
// by a hash of what it depends on: the checkpoint's config.json and model.safetensors bytes, the
// calibration ids and the reference's own source. A conversion of the same checkpoint then skips
// the reference (most of the search's time on larger models).
export const REFERENCE_CACHE = new URL('../build/reference-cache/', import.meta.url);

function referenceCache(hashOfCheckpoint) {
  const fileOf = (idsList) => {
    const hash = crypto.createHash('sha256').update(hashOfCheckpoint()).update(JSON.stringify(idsList))
      .update(fs.readFileSync(new URL('./reference.mjs', import.meta.url)));
    return new URL(`${hash.digest('hex').slice(0, 32)}.f64`, REFERENCE_CACHE);
  };
  const sizes = (idsList, layersHeads) => idsList.map((ids) => layersHeads * ids.length * ids.length);
  return {
    get(idsList) {
      try {
        const bytes = fs.readFileSync(fileOf(idsList));
        const all = new Float64Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 8);
        const squares = idsList.reduce((a, ids) => a + ids.length * ids.length, 0);
        if (!squares || all.length % squares !== 0) return null;
        let at = 0;
        return sizes(idsList, all.length / squares).map((n) => all.slice(at, (at += n)));
      } catch { return null; }
    },
    set(idsList, attentions) {
      try {
        fs.mkdirSync(REFERENCE_CACHE, { recursive: true });
        const file = fileOf(idsList);
        const all = new Float64Array(attentions.reduce((a, x) => a + x.length, 0));
        let at = 0;
        for (const x of attentions) { all.set(x, at); at += x.length; }
        const temporary = `${file.pathname}.${process.pid}.tmp`;
        fs.writeFileSync(temporary, all);
        fs.renameSync(temporary, file);
      } catch { /* a cache that cannot be written is only slower */ }
    },
  };
}

// Reads the checkpoint directory (each file when the core asks for it) and converts it with the
// core (convert-core.mjs), which the page runs on dropped files.
export function convert(givenOptions) {
  const options = { ...defaultOptions(), ...givenOptions };
  const dir = options.checkpointDir;
  const asBytes = (buffer) => new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  const checkpointHash = crypto.createHash('sha256');
  const hashed = (bytes) => { checkpointHash.update(bytes); return bytes; };
  let digest = null;
  const chosen = chooseCheckpointFiles(folderNames(dir));
  const files = {
    name: path.basename(path.resolve(dir)),
    config: () => hashed(readFile(dir, 'config.json')).toString('utf8'),
    vocab: chosen.vocab ? () => asBytes(hashed(readFile(dir, chosen.vocab))) : null,
    tokenizer: chosen.tokenizer ? () => asBytes(hashed(readFile(dir, chosen.tokenizer))) : null,
    tokenizerConfig: chosen.tokenizerConfig ? () => readFile(dir, chosen.tokenizerConfig).toString('utf8') : null,
    [chosen.weights === 'model.safetensors' ? 'safetensors' : 'pytorch']: () => asBytes(hashed(readFile(dir, chosen.weights))),
    training: () => readFile(dir, 'training.json', { optional: true })?.toString('utf8') ?? null,
  };
  const cache = options.referenceCache === false ? undefined : referenceCache(() => (digest ??= checkpointHash.digest()));
  return convertCheckpoint(files, { ...options, searchPrecision, engine: searchEngine, referenceCache: cache });
}

// ---------------------------------------------------------------- main

function verdictLine({ predicted, calibration, reachable, target }) {
  const head = 'predicted attention max |Δ| of the engine from the float64 reference';
  if (Number.isNaN(predicted)) return `${head}: not predicted (every precision forced)`;
  if (calibration === undefined) return `${head}: 0, within the target ${target} (every matrix stored exactly; the engine's own arithmetic: node tests/parity.mjs)`;
  const measured = `(the engine measured ${calibration.toExponential(2)} on the calibration text; × ${HELD_OUT_FACTOR}, the held-out factor of weights/README.md)`;
  if (predicted <= target) return `${head} on other text: ${predicted.toExponential(2)}, within the target ${target} ${measured}`;
  const why = reachable === false ? ': no choice of precisions reaches it, this is the closest measured' : '';
  return `${head} on other text: ${predicted.toExponential(2)}, WARNING: over the target ${target}${why} ${measured}`;
}

function printSummary(result, outPath) {
  const { bytes, tensors } = result;
  const lines = tensors.filter((t) => t.kind !== 'f32').map((t) => {
    const size = t.data.byteLength + t.scales.byteLength;
    return `  ${t.name.padEnd(50)} ${t.precision.padEnd(5)} [${t.rows}x${t.cols}]`.padEnd(72)
      + ` ${String(size).padStart(9)} bytes  ${t.onGrid && t.precision === 'int8' ? 'exact (on the int8 grid)' : `max|err| ${t.maxError.toExponential(2)}`}`;
  });
  process.stderr.write(`${lines.join('\n')}\n${verdictLine(result)}\n`
    + `wrote ${outPath}: ${bytes.length} bytes (${(bytes.length / 1e6).toFixed(2)} MB), ${tensors.length} tensors\n`);
}

// Before any work: the output must be a file that can be written in an existing folder.
function checkWritable(outPath, outDir) {
  if (!fs.existsSync(outDir)) fail('convert.refusal.cli.noOutFolder', { file: outPath, dir: outDir });
  if (fs.existsSync(outPath) && fs.statSync(outPath).isDirectory()) fail('convert.refusal.cli.outIsFolder', { file: outPath, example: path.join(outPath, 'model.bin') });
  try { fs.accessSync(fs.existsSync(outPath) ? outPath : outDir, fs.constants.W_OK); } catch {
    if (fs.existsSync(outPath)) fail('convert.refusal.cli.noWritePermission', { file: outPath });
    fail('convert.refusal.cli.noWritePermissionIn', { file: outPath, dir: outDir });
  }
}

// The scripts a page opened from file:// reads the weights through, next to OUT.bin.
function writeScripts(bytes, outPath) {
  const binName = path.basename(outPath);
  const stem = binName.replace(/\.bin$/, '');
  const scripts = weightScripts(bytes, { stem, binName, generator: 'weights/convert.mjs --scripts' });
  for (const { name, text } of scripts) {
    try { fs.writeFileSync(path.join(path.dirname(outPath), name), text); } catch (e) { fail('convert.refusal.cli.cannotWrite', { file: name, error: e.message }); }
  }
  process.stderr.write(`wrote ${scripts.length} scripts for pages opened from file://: ${scripts[0].name} (give the explorer weights="${scripts[0].name}") `
    + `and ${scripts.length - 1} part scripts ${stem}.weights.part-NNN.js\n`);
}

function main() {
  if (os.endianness() !== 'LE') fail('convert.refusal.cli.bigEndian');
  const options = parseArgs(process.argv.slice(2));
  const outDir = path.dirname(path.resolve(options.outPath));
  checkWritable(options.outPath, outDir);
  const started = performance.now();
  const result = convert({ ...options, predict: true, log: (line) => process.stderr.write(`${line}\n`) });
  process.stderr.write(`converted in ${((performance.now() - started) / 1000).toFixed(1)} s, `
    + `peak resident memory ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB\n`);
  try { fs.writeFileSync(options.outPath, result.bytes); } catch (e) { fail('convert.refusal.cli.cannotWrite', { file: options.outPath, error: e.message }); }
  printSummary(result, options.outPath);
  if (options.scripts) writeScripts(result.bytes, options.outPath);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  try {
    main();
  } catch (e) {
    // A refusal: exit 1 with its reason. Anything else is a bug in the converter: exit 2.
    process.stderr.write(`convert: ${e instanceof ConvertError ? e.message : reportableBug(e)}\n`);
    process.exit(e instanceof ConvertError ? 1 : 2);
  }
}
