#!/usr/bin/env node
// Builds the files the page loads (run by `./build.sh web`):
//   web/dist/attention-explorer.js      the web/src modules bundled by esbuild into one
//                                       minified classic script (module scripts are refused
//                                       from file://), with its source map next to it
//   web/dist/attn.wasm.js               web/dist/attn.wasm as base64 in a classic script
//   (web/dist/bert-mini.int8.bin, the default weights, is an input: written by `make weights`,
//   committed once, fetched by the page over http in parts: the head, then the word-embedding parts)
//   web/dist/bert-mini.weights.head.js  the head of the same file as base64, for file://
//   web/dist/bert-mini.weights.part-NNN.js  its parts (a layer's alone, rows a few a script:
//                                       weights/asset-scripts.mjs), loaded on demand from file://
// The output depends only on the inputs (no dates, no absolute paths), so CI can rebuild
// and `git diff --exit-code web/dist`.

import { readFileSync, writeFileSync, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { build } from 'esbuild';
import { assetScript, weightScripts } from '../weights/asset-scripts.mjs';
import { HEADER_FIELDS, PART_FIELDS, readRecord } from '../c/spec.mjs';

const GENERATOR = 'tools/build-web.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DIST = path.join(root, 'web/dist');
const ENTRY = path.join(root, 'web/src/attention-explorer.mjs');
// The page's worker (web/src/worker.mjs: the converter, head importance): bundled alone, its text compiled into the page's bundle
// (ATTN_WORKER), which starts it from a blob URL (a page opened from file:// can).
const WORKER_ENTRY = path.join(root, 'web/src/worker.mjs');
const BUNDLE = path.join(DIST, 'attention-explorer.js');
const WASM = path.join(DIST, 'attn.wasm');
const WEIGHTS = path.join(DIST, 'bert-mini.int8.bin');

function fail(message) {
  console.error(`build-web: ${message}`);
  process.exit(1);
}

/** The page's worker's code, one minified classic script as text. */
async function workerSource() {
  const result = await build({
    entryPoints: [WORKER_ENTRY], bundle: true, write: false, format: 'iife', minify: true, charset: 'utf8',
    target: 'es2022', legalComments: 'none', absWorkingDir: root, logLevel: 'silent',
  }).catch((error) => fail(error.message));
  return result.outputFiles[0].text;
}

/** The bundle and its source map; the byte sizes of the default assets and the worker's code are compiled in. */
async function bundle(sizes) {
  const worker = await workerSource();
  const result = await build({
    entryPoints: [ENTRY], outfile: BUNDLE, bundle: true, write: false, format: 'iife',
    minify: true, sourcemap: 'linked', charset: 'utf8', target: 'es2022', legalComments: 'none',
    absWorkingDir: root, logLevel: 'silent',
    define: { ATTN_ASSET_BYTES: JSON.stringify(sizes), ATTN_WORKER: JSON.stringify(worker) },
    banner: { js: '/* <attention-explorer>: web/src bundled by tools/build-web.mjs (esbuild). Generated: edit web/src and run `./build.sh web`. */' },
  }).catch((error) => fail(error.message));
  return result.outputFiles;
}

function writeIfChanged(file, contents) {
  const bytes = Buffer.from(contents);
  const previous = existsSync(file) ? readFileSync(file) : null;
  const same = previous !== null && previous.equals(bytes);
  if (!same) writeFileSync(file, bytes);
  console.log(`${path.relative(root, file)}: ${bytes.length} bytes${same ? ' (unchanged)' : ''}`);
}

/** The head and the part scripts of the weights (weights/asset-scripts.mjs). */
function writeWeightScripts(weights) {
  const wanted = new Set();
  const scripts = weightScripts(weights, { stem: 'bert-mini', binName: 'bert-mini.int8.bin', generator: GENERATOR });
  for (const { name, text } of scripts) {
    wanted.add(name);
    writeIfChanged(path.join(DIST, name), text);
  }
  for (const name of readdirSync(DIST)) {  // scripts of a former file or layout
    if ((/^bert-mini\.weights\.part-\d+\.js$/.test(name) && !wanted.has(name)) || name === 'bert-mini.weights.js') {
      rmSync(path.join(DIST, name));
    }
  }
}

if (!existsSync(WASM)) fail('web/dist/attn.wasm is missing: run `./build.sh wasm` first');
if (!existsSync(WEIGHTS)) fail('web/dist/bert-mini.int8.bin is missing: run `make weights` first');
mkdirSync(DIST, { recursive: true });
const wasm = readFileSync(WASM);
const weights = readFileSync(WEIGHTS);
// The default weights' first bytes to fetch over http: the head and the part of layer 1 (part 0),
// in one request (web/src/loader.mjs fetchHead checks the header before using them).
const header = new DataView(weights.buffer, weights.byteOffset, weights.length);
const { partsOffset } = readRecord(header, 0, HEADER_FIELDS);
const part0 = readRecord(header, partsOffset, PART_FIELDS);
const sizes = { 'attn.wasm': wasm.length, 'bert-mini.int8.bin': weights.length, weightsFirst: part0.offset + part0.bytes };
for (const file of await bundle(sizes)) {
  writeIfChanged(file.path, file.contents);
}
writeIfChanged(path.join(DIST, 'attn.wasm.js'), assetScript('attn.wasm', wasm, GENERATOR));
writeWeightScripts(weights);
