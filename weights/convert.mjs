#!/usr/bin/env node
// Converts a Hugging Face BERT masked-LM checkpoint directory (config.json, vocab.txt,
// model.safetensors, optional training.json) into the weights file of weights/FORMAT.md.
//
//   node weights/convert.mjs CHECKPOINT_DIR OUT.bin [--precision auto|int8|int16]
//        [--precision-for SUBSTRING=int8|int16 ...] [--target 1e-3] [--group N|row]
//
// Each matrix is stored in the precision its kernel reads: int8 with a float scale per row (or
// per --group columns), or int16 with a scale per row. --precision auto (the default) writes
// int8 for every matrix already on the per-row int8 grid, and for the others searches which
// must be int16 so that the float64 reference predicts attention within --target of the
// checkpoint's (weights/precision-search.mjs). Same input, same options -> identical bytes.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  ConvertError, fail, parseConfig, parseVocab, parseSafetensors, floatsOf, tensorPlan, readPlanFloats,
  quantizeMatrix, onInt8Grid, buildFile, buildCard, canonicalTensors, paddingEntry, WORD_EMBEDDINGS,
} from './convert-core.mjs';
import { searchPrecision } from './precision-search.mjs';

export { floatsOf, tensorPlan };
export const DEFAULT_TARGET = 1e-3;

const USAGE = 'usage: node weights/convert.mjs CHECKPOINT_DIR OUT.bin [--precision auto|int8|int16] '
  + '[--precision-for SUBSTRING=int8|int16 ...] [--target X] [--group N|row]';

// ---------------------------------------------------------------- options

function parsePrecision(text, option, allowAuto) {
  const allowed = allowAuto ? ['auto', 'int8', 'int16'] : ['int8', 'int16'];
  if (!allowed.includes(text)) fail(`${option}: expected ${allowed.join(', ')}; got "${text}"`);
  return text;
}

export function defaultOptions() {
  return { precision: 'auto', precisionFor: [], target: DEFAULT_TARGET, group: 'row' };
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
    } else if (arg === '--group') {
      const text = value();
      if (text !== 'row' && !/^[1-9][0-9]*$/.test(text)) fail(`--group: expected a positive integer or "row", got "${text}"`);
      options.group = text === 'row' ? 'row' : Number(text);
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

export function readSafetensors(file) {
  let buf;
  try { buf = fs.readFileSync(file); } catch (e) {
    const dir = path.dirname(file);
    if (e.code === 'ENOENT' && fs.existsSync(path.join(dir, 'pytorch_model.bin'))) {
      fail(`${dir} has pytorch_model.bin but no model.safetensors: save the model as safetensors first `
        + '(in Python: AutoModelForMaskedLM.from_pretrained(DIR).save_pretrained(DIR, safe_serialization=True))');
    }
    fail(`cannot read ${file}: ${e.code === 'ENOENT' ? 'no such file' : e.message}`);
  }
  return parseSafetensors(new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength), path.basename(file));
}

function readTraining(dir) {
  const bytes = readFile(dir, 'training.json', { optional: true });
  if (!bytes) return null;
  try { return JSON.parse(bytes.toString('utf8')); } catch { return null; }
}

// ---------------------------------------------------------------- precision

function forcedPrecision(name, options) {
  let forced = null;
  for (const o of options.precisionFor) if (name.includes(o.substring)) forced = o.precision;
  return forced;
}

// Map name → { int8, int16 } quantized versions (computed on demand).
function quantizedVersions(matrices, floats, options) {
  const cache = new Map();
  const version = (t, precision) => {
    const key = `${t.name}/${precision}`;
    if (!cache.has(key)) {
      const group = precision === 'int8' && options.group !== 'row' ? options.group : t.cols;
      cache.set(key, quantizeMatrix(t, floats.get(t.name), precision, group));
    }
    return cache.get(key);
  };
  return version;
}

// Decides every matrix's precision; returns { precisions: Map, predicted, onGrid: Set, log }.
function choosePrecisions(shape, vocab, matrices, floats, options, log) {
  const version = quantizedVersions(matrices, floats, options);
  const onGrid = new Set(matrices.filter((t) => onInt8Grid(floats.get(t.name), t.rows, t.cols)).map((t) => t.name));
  const precisions = new Map();
  const open = [];
  for (const t of matrices) {
    const forced = forcedPrecision(t.name, options) ?? (options.precision === 'auto' ? null : options.precision);
    if (forced) precisions.set(t.name, forced);
    else if (onGrid.has(t.name) && options.group === 'row') precisions.set(t.name, 'int8');
    else open.push(t.name);
  }
  const lossy = matrices.filter((t) => !(precisions.get(t.name) === 'int8' && onGrid.has(t.name) && options.group === 'row'));
  if (lossy.length === 0) return { precisions, predicted: 0, onGrid, version };
  // Every precision forced and no prediction wanted: skip the float64 calibration passes,
  // which take minutes on a 12-layer model.
  if (open.length === 0 && options.predict === false) return { precisions, predicted: NaN, onGrid, version };
  const vocabLines = new TextDecoder().decode(vocab).split('\n').slice(0, shape.vocab);
  const versions = new Map(matrices.map((t) => [t.name, {
    get int8() { return version(t, 'int8').dequantized; },
    get int16() { return version(t, 'int16').dequantized; },
  }]));
  const fixed = new Map([...precisions].filter(([name, p]) => !(p === 'int8' && onGrid.has(name) && options.group === 'row')));
  const result = searchPrecision({ shape, floats, vocabLines, matrices, candidates: open, versions, fixed, target: options.target, log });
  for (const [name, p] of result.choice) precisions.set(name, p);
  return { precisions, predicted: result.predicted, onGrid, version };
}

// ---------------------------------------------------------------- convert

function vocabNotes({ lines, paddingRows, addedNewline, repeats }, shape) {
  const notes = [];
  if (addedNewline) notes.push('note: vocab.txt has no final newline: one added');
  if (paddingRows) {
    notes.push(`note: vocab.txt has ${lines} lines, config.json vocab_size is ${shape.vocab}: rows ${lines}…${shape.vocab - 1} `
      + `are padding, stored as ${paddingEntry(lines)}… (the tokenizer never produces them)`);
  }
  for (const [line, earlier, entry] of repeats.slice(0, 5)) {
    notes.push(`note: vocab.txt line ${line} repeats line ${earlier} (${JSON.stringify(entry)}): the later id is used, as Hugging Face does`);
  }
  if (repeats.length > 5) notes.push(`note: vocab.txt repeats ${repeats.length} entries in all`);
  return notes;
}

function checkGroup(plan, group) {
  if (group === 'row') return;
  const misfit = plan.find((t) => t.kind === 'matrix' && t.cols % group !== 0);
  if (misfit) fail(`--group ${group} does not divide the ${misfit.cols} columns of ${misfit.name}`);
}

export function convert(givenOptions) {
  const options = { ...defaultOptions(), ...givenOptions };
  const log = options.log ?? (() => {});
  const dir = options.checkpointDir;
  const { shape, defaulted } = parseConfig(readFile(dir, 'config.json').toString('utf8'));
  if (defaulted.length) log(`config.json: ${defaulted.join(', ')} not given: BertConfig's defaults used`);
  const vocabFile = readFile(dir, 'vocab.txt');
  const parsedVocab = parseVocab(new Uint8Array(vocabFile.buffer, vocabFile.byteOffset, vocabFile.byteLength), shape);
  for (const line of vocabNotes(parsedVocab, shape)) log(line);
  const vocab = parsedVocab.bytes;
  const { tensors: source, hasMlm, notes } = canonicalTensors(readSafetensors(path.join(dir, 'model.safetensors')));
  for (const line of notes) log(`note: ${line}`);
  const plan = tensorPlan(shape, { mlm: hasMlm });
  checkGroup(plan, options.group);
  const { floats, ignored } = readPlanFloats(source, plan, shape);
  for (const name of ignored) log(`note: ignoring tensor ${name}`);
  const matrices = plan.filter((t) => t.kind === 'matrix');
  const { precisions, predicted, onGrid, version } = choosePrecisions(shape, vocab, matrices, floats, options, log);
  const tensors = plan.map((t) => {
    if (t.kind === 'f32') return { ...t, data: floats.get(t.name) };
    const q = version(t, precisions.get(t.name));
    return { ...t, data: q.q, scales: q.scales, precision: q.precision, group: q.group, qmax: q.qmax,
      maxError: q.maxError, onGrid: onGrid.has(t.name) };
  });
  const int16 = tensors.filter((t) => t.precision === 'int16').length;
  const precisionText = int16 === 0 ? 'every matrix int8 (one float scale per row)'
    : `${matrices.length - int16} matrices int8, ${int16} int16 (one float scale per row)`;
  const card = buildCard({ name: path.basename(path.resolve(dir)), shape, training: readTraining(dir), precision: precisionText, mlm: hasMlm });
  const bytes = buildFile(shape, vocab, card, tensors);
  return { bytes, tensors, predicted, target: options.target };
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

function main() {
  if (os.endianness() !== 'LE') fail('the converter needs a little-endian host');
  const options = parseArgs(process.argv.slice(2));
  const outDir = path.dirname(path.resolve(options.outPath));
  if (!fs.existsSync(outDir)) fail(`cannot write ${options.outPath}: folder ${outDir} does not exist`);
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
