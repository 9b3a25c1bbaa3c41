#!/usr/bin/env node
// Converts a Hugging Face BERT masked-LM checkpoint directory (config.json, vocab.txt,
// model.safetensors, optional training.json) into the weights file of weights/FORMAT.md.
//
//   node weights/convert.mjs CHECKPOINT_DIR OUT.bin [--precision auto|int8|int16]
//        [--precision-for SUBSTRING=int8|int16 ...] [--target 1e-3]
//
// Each matrix is stored in the precision its kernel reads: int8 or int16, with a float scale
// per row. --precision auto (the default) writes
// int8 for every matrix already on the per-row int8 grid, and for the others searches which
// must be int16 so that the float64 reference predicts attention within --target of the
// checkpoint's (weights/precision-search.mjs). Same input, same options -> identical bytes.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  ConvertError, fail, parseConfig, parseSafetensors, canonicalTensors, floatsOf, tensorPlan, convertCheckpoint,
} from './convert-core.mjs';
import { searchPrecision } from './precision-search.mjs';

export { floatsOf, tensorPlan };
export const DEFAULT_TARGET = 1e-3;

const USAGE = 'usage: node weights/convert.mjs CHECKPOINT_DIR OUT.bin [--precision auto|int8|int16] '
  + '[--precision-for SUBSTRING=int8|int16 ...] [--target X]';

// ---------------------------------------------------------------- options

function parsePrecision(text, option, allowAuto) {
  const allowed = allowAuto ? ['auto', 'int8', 'int16'] : ['int8', 'int16'];
  if (!allowed.includes(text)) fail(`${option}: expected ${allowed.join(', ')}; got "${text}"`);
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
    const value = () => (i + 1 < argv.length ? argv[++i] : fail(`${arg} needs a value\n${USAGE}`));
    if (arg === '--precision') options.precision = parsePrecision(value(), arg, true);
    else if (arg === '--precision-for') {
      const spec = value();
      const eq = spec.lastIndexOf('=');
      if (eq <= 0) fail(`--precision-for expects SUBSTRING=int8|int16, got "${spec}"`);
      options.precisionFor.push({ substring: spec.slice(0, eq), precision: parsePrecision(spec.slice(eq + 1), arg, false) });
    } else if (arg === '--target') {
      const text = value();
      const target = Number(text);
      if (!(target > 0) || !Number.isFinite(target)) fail(`--target: expected a positive number, got "${text}"`);
      options.target = target;
    } else if (arg.startsWith('--')) fail(`unknown option ${arg}\n${USAGE}`);
    else positional.push(arg);
  }
  if (positional.length !== 2) fail(USAGE);
  [options.checkpointDir, options.outPath] = positional;
  return options;
}

// ---------------------------------------------------------------- reading a directory

function readFile(dir, name, { optional = false } = {}) {
  const file = path.join(dir, name);
  if (optional && !fs.existsSync(file)) return null;
  try { return fs.readFileSync(file); } catch (e) {
    if (name === 'model.safetensors' && fs.existsSync(path.join(dir, 'pytorch_model.bin'))) {
      fail(`${dir} has pytorch_model.bin but no model.safetensors: save the model as safetensors first `
        + '(in Python: AutoModelForMaskedLM.from_pretrained(DIR).save_pretrained(DIR, safe_serialization=True))');
    }
    fail(`cannot read ${file}: ${e.code === 'ENOENT' ? 'no such file' : e.message}`);
  }
}

export function readConfig(dir) {
  return parseConfig(readFile(dir, 'config.json').toString('utf8')).shape;
}

// Name → tensor under BertForMaskedLM's names, whichever variant the file uses (canonicalTensors).
export function readSafetensors(file) {
  return canonicalTensors(parseSafetensors(readSafetensorsBytes(file), path.basename(file))).tensors;
}

function readSafetensorsBytes(file) {
  let buf;
  try { buf = fs.readFileSync(file); } catch (e) {
    const dir = path.dirname(file);
    if (e.code === 'ENOENT' && fs.existsSync(path.join(dir, 'pytorch_model.bin'))) {
      fail(`${dir} has pytorch_model.bin but no model.safetensors: save the model as safetensors first `
        + '(in Python: AutoModelForMaskedLM.from_pretrained(DIR).save_pretrained(DIR, safe_serialization=True))');
    }
    fail(`cannot read ${file}: ${e.code === 'ENOENT' ? 'no such file' : e.message}`);
  }
  return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
}

// ---------------------------------------------------------------- convert

// Reads the checkpoint directory (each file when the core asks for it) and converts it with the
// core (convert-core.mjs), which the page runs on dropped files.
export function convert(givenOptions) {
  const options = { ...defaultOptions(), ...givenOptions };
  const dir = options.checkpointDir;
  const asBytes = (buffer) => new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  const files = {
    name: path.basename(path.resolve(dir)),
    config: () => readFile(dir, 'config.json').toString('utf8'),
    vocab: () => asBytes(readFile(dir, 'vocab.txt')),
    safetensors: () => readSafetensorsBytes(path.join(dir, 'model.safetensors')),
    training: () => readFile(dir, 'training.json', { optional: true })?.toString('utf8') ?? null,
  };
  return convertCheckpoint(files, { ...options, searchPrecision });
}

// ---------------------------------------------------------------- main

function printSummary({ bytes, tensors, predicted, target }, outPath) {
  const lines = tensors.filter((t) => t.kind !== 'f32').map((t) => {
    const size = t.data.byteLength + t.scales.byteLength;
    return `  ${t.name.padEnd(50)} ${t.precision.padEnd(5)} [${t.rows}x${t.cols}]`.padEnd(72)
      + ` ${String(size).padStart(9)} bytes  ${t.onGrid && t.precision === 'int8' ? 'exact (on the int8 grid)' : `max|err| ${t.maxError.toExponential(2)}`}`;
  });
  const verdict = Number.isNaN(predicted) ? 'not predicted' : predicted <= target ? `within the target ${target}` : `WARNING: over the target ${target}`;
  process.stderr.write(`${lines.join('\n')}\n`
    + `predicted attention max |Δ| (float64 reference with the engine's rounding, calibration text): ${predicted.toExponential(2)}, ${verdict}\n`
    + `wrote ${outPath}: ${bytes.length} bytes (${(bytes.length / 1e6).toFixed(2)} MB), ${tensors.length} tensors\n`);
}

// Before any work: the output must be a file that can be written in an existing folder.
function checkWritable(outPath, outDir) {
  if (!fs.existsSync(outDir)) fail(`cannot write ${outPath}: folder ${outDir} does not exist`);
  if (fs.existsSync(outPath) && fs.statSync(outPath).isDirectory()) fail(`cannot write ${outPath}: it is a folder; give a file name such as ${path.join(outPath, 'model.bin')}`);
  try { fs.accessSync(fs.existsSync(outPath) ? outPath : outDir, fs.constants.W_OK); } catch {
    fail(`cannot write ${outPath}: no permission to write ${fs.existsSync(outPath) ? 'the file' : `in ${outDir}`}`);
  }
}

function main() {
  if (os.endianness() !== 'LE') fail('the converter needs a little-endian host');
  const options = parseArgs(process.argv.slice(2));
  const outDir = path.dirname(path.resolve(options.outPath));
  checkWritable(options.outPath, outDir);
  const result = convert({ ...options, log: (line) => process.stderr.write(`${line}\n`) });
  try { fs.writeFileSync(options.outPath, result.bytes); } catch (e) { fail(`cannot write ${options.outPath}: ${e.message}`); }
  printSummary(result, options.outPath);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  try {
    main();
  } catch (e) {
    if (!(e instanceof ConvertError)) throw e;
    process.stderr.write(`convert: ${e.message}\n`);
    process.exit(1);
  }
}
