#!/usr/bin/env node
// Writes one self-contained HTML file holding one or more explorers, the engine, the page's script
// and the weights (as base64): it opens from disk, offline, with no other file beside it. The same
// file as web/notebook/attention_explorer.py's save() writes for the same explorers (byte for byte;
// tests/notebook.test.mjs checks it).
//
//   node tools/explorer-html.mjs OUT.html SENTENCE [--layer N] [--head N] [--token T] [--view V]
//        [--lang L] [--controls full|compact|none] [--weights FILE.bin] [--NAME VALUE ...]
//        [SENTENCE [options] ...] [--title TEXT] [--page-lang L] [--only-needed]
//
// Options after a sentence are its explorer's (web/README.md lists the attributes; --NAME VALUE
// sets any other, e.g. --theme dark); --title, --page-lang and --only-needed are the page's,
// wherever they are. --only-needed carries, of each model, only the parts of the weights the
// figures read (its head, every layer, the rows of the sentences' words): for figures alone
// (--controls none, whose sentence cannot change) in a view that reads neither the masked-word
// head nor other rows (not mask, compare or head-importance), with no [MASK] in the sentence.
import { createHash } from 'node:crypto';
import { existsSync, openSync, readSync, closeSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPartialEngine, readWeightsHeader } from '../web/src/engine.mjs';
import { findView } from '../web/src/views/index.mjs';
import { weightPieces } from '../weights/asset-scripts.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DIST = path.join(ROOT, 'web/dist');
const BOOTSTRAP = path.join(ROOT, 'web/notebook/bootstrap.js');
const DEFAULT_WEIGHTS = path.join(DIST, 'bert-mini.int8.bin');
const ASSET_TYPE = 'application/x-attention-asset';  // web/src/loader.mjs EMBEDDED_ASSET_TYPE
const MAGIC = 'BERTINT8';  // c/spec.mjs MAGIC
const CONTROLS = ['full', 'compact', 'none'];
/** The largest weights file a one-file page carries (web/notebook/attention_explorer.py says why). */
export const MAX_WEIGHTS_BYTES = 192 * 1024 * 1024;
const NAMED = ['layer', 'head', 'token', 'view', 'lang', 'controls'];
/** Views that read the masked-word head or rows beyond the sentence's: never trimmed. */
export const EVERY_PART_VIEWS = ['mask', 'compare', 'head-importance'];
const USAGE = 'usage: node tools/explorer-html.mjs OUT.html SENTENCE [--layer N] [--head N] [--token T] [--view V] '
  + '[--lang L] [--controls full|compact|none] [--weights FILE.bin] [--NAME VALUE ...] [SENTENCE [options] ...] '
  + '[--title TEXT] [--page-lang L] [--only-needed]';

class UsageError extends Error {}

const escapeHtml = (text) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
  .replace(/"/g, '&quot;').replace(/'/g, '&#x27;');
const digest = (...buffers) => createHash('sha256').update(Buffer.concat(buffers)).digest('hex').slice(0, 16);

function counted(name, text) {
  if (!/^[1-9]\d*$/.test(text)) throw new UsageError(`${name}: a number from 1 (the first ${name}), not "${text}"`);
  return text;
}

function word(name, text) {
  if (!/^[A-Za-z][A-Za-z0-9-]*$/.test(text)) throw new UsageError(`${name}: a name such as "row" or "fr", not "${text}"`);
  return text;
}

/** The explorer attributes in the order the Python helper writes them. */
function explorerAttributes(sentence, options) {
  if (!sentence.trim()) throw new UsageError('sentence: give the text to explore, e.g. "The cat sat on the mat."');
  const attributes = [['sentence', sentence]];
  const valid = {
    layer: (v) => counted('layer', v), head: (v) => counted('head', v), view: (v) => word('view', v), lang: (v) => word('lang', v),
    token: (v) => { if (v === '' || /^-\d+$/.test(v)) throw new UsageError(`token: an index from 0 ([CLS]), a word, or word#k, not "${v}"`); return v; },
    controls: (v) => { if (!CONTROLS.includes(v.toLowerCase())) throw new UsageError(`controls: one of ${CONTROLS.join(', ')}, not "${v}"`); return v.toLowerCase(); },
  };
  for (const name of NAMED) if (options.has(name)) attributes.push([name, valid[name](options.get(name))]);
  for (const [name, value] of options) {
    if (NAMED.includes(name) || name === 'weights') continue;
    if (!/^[a-z][a-z0-9]*$/.test(name) || ['assets', 'wasm'].includes(name)) {
      throw new UsageError(`${name}: not an attribute the explorer takes (web/README.md lists them)`);
    }
    attributes.push([name, value]);
  }
  return attributes;
}

/** A converted .bin within the size limit, or a UsageError saying what is wrong. */
function checkedWeights(file) {
  if (!existsSync(file) || !statSync(file).isFile()) throw new UsageError(`weights: ${file} is not a file (give a .bin made by weights/convert.mjs)`);
  const size = statSync(file).size;
  if (size > MAX_WEIGHTS_BYTES) {
    throw new UsageError(`weights: ${file} is ${(size / 2 ** 20).toFixed(1)} MiB; a notebook output or a one-file page `
      + `carries at most ${MAX_WEIGHTS_BYTES / 2 ** 20} MiB of weights`);
  }
  const head = Buffer.alloc(MAGIC.length);
  const fd = openSync(file, 'r');
  try { readSync(fd, head, 0, head.length, 0); } finally { closeSync(fd); }
  if (head.toString('latin1') !== MAGIC) {
    throw new UsageError(`weights: ${file} is not a weights file made by weights/convert.mjs (it does not start with ${MAGIC}); `
      + 'convert the checkpoint with `node weights/convert.mjs CHECKPOINT_DIR OUT.bin` and give OUT.bin');
  }
  return path.resolve(file);
}

/** {out, title, pageLang, explorers: [{sentence, options: Map}]} from the command line. */
export function parseArgs(argv) {
  const [out, ...rest] = argv;
  if (!out || out.startsWith('--')) throw new UsageError(USAGE);
  const parsed = { out, title: 'Attention explorer', pageLang: 'en', explorers: [], onlyNeeded: false };
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i];
    if (!arg.startsWith('--')) { parsed.explorers.push({ sentence: arg, options: new Map() }); continue; }
    if (arg === '--only-needed') { parsed.onlyNeeded = true; continue; }
    const name = arg.slice(2), value = rest[++i];
    if (value === undefined) throw new UsageError(`${arg}: give a value`);
    if (name === 'title') parsed.title = value;
    else if (name === 'page-lang') parsed.pageLang = word('page-lang', value);
    else if (!parsed.explorers.length) throw new UsageError(`${arg}: put an explorer's options after its sentence\n${USAGE}`);
    else parsed.explorers.at(-1).options.set(name, value);
  }
  if (!parsed.explorers.length) throw new UsageError(`give at least one sentence\n${USAGE}`);
  return parsed;
}

function engineAssets() {
  const bundle = Buffer.from(readFileSync(path.join(DIST, 'attention-explorer.js'), 'utf8')
    .replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n'));
  const wasm = readFileSync(path.join(DIST, 'attn.wasm'));
  const base = `embedded:/${digest(bundle, wasm)}/`;
  return {
    base,
    bundle: { url: `${base}attention-explorer.js`, base64: bundle.toString('base64'), bundle: true },
    wasm: { url: `${base}attn.wasm.js`, base64: wasm.toString('base64') },
    wasmBytes: wasm,
  };
}

/** The name a weights file's assets take: model.bin → model. */
const stemOf = (file) => path.basename(file).replace(/\.bin$/, '').replace(/[^A-Za-z0-9._-]/gu, '_') || 'model';

/** A weights file carried whole: {url, assets}. */
function weightsAsset(file) {
  const bytes = readFileSync(file);
  const stem = stemOf(file);
  const url = `embedded:/${digest(bytes)}/${stem}.weights.js`;
  return { url, assets: [{ url, base64: bytes.toString('base64') }] };
}

/** Why an explorer's figure may read parts of its weights beyond its sentence's, or null. */
function readsEveryPart(options, tokens) {
  const controls = (options.get('controls') ?? 'full').toLowerCase();
  if (controls !== 'none') return `its controls are "${controls}": only a figure alone (--controls none) keeps its sentence`;
  const view = findView(options.get('view') ?? 'row')?.id ?? 'row';
  if (EVERY_PART_VIEWS.includes(view)) return `its view "${view}" reads the masked-word head or other sentences' rows`;
  if (tokens.includes('[MASK]')) return 'its sentence has a [MASK], whose predictions read every row';
  return null;
}

/** The head of a weights file and the part scripts holding what `explorers` read: {url, assets}. */
async function neededWeights(file, explorers, wasm) {
  const bytes = readFileSync(file);
  const stem = stemOf(file);
  const { headBytes } = readWeightsHeader(bytes) ?? {};
  if (!headBytes) throw new UsageError(`--only-needed: ${file} is not a weights file this engine reads`);
  const engine = await createPartialEngine({ wasm, head: bytes.subarray(0, headBytes), fileSize: bytes.length });
  const needed = new Set(engine.partsForLayers(engine.shape.layers));
  for (const { sentence, options } of explorers) {
    const { ids, tokens } = engine.tokenize(sentence);
    const why = readsEveryPart(options, tokens);
    if (why) throw new UsageError(`--only-needed: the explorer of "${sentence}" may read any part of the weights: ${why}`);
    for (const part of engine.partsForIds(ids)) needed.add(part);
  }
  const base = `embedded:/${digest(bytes)}/`;
  const pieces = weightPieces(bytes, stem).filter(({ parts }) => !parts.length || [...needed].some((i) => i >= parts[0] && i <= parts[1]));
  return { url: base + pieces[0].name, assets: pieces.map((piece) => ({ url: base + piece.name, base64: Buffer.from(piece.bytes).toString('base64') })) };
}

const holder = (asset) => `<script type="${ASSET_TYPE}" data-src="${asset.url}"${asset.bundle ? ' data-attention-bundle' : ''}>${asset.base64}</script>`;

/** The whole page: each asset once, the script defining the element, then the explorers' elements. */
export async function onePage({ title, pageLang, explorers, onlyNeeded = false }) {
  const engine = engineAssets();
  const assets = [engine.bundle, engine.wasm];
  const fileOf = ({ options }) => (options.has('weights') ? checkedWeights(options.get('weights')) : DEFAULT_WEIGHTS);
  const weights = new Map();
  for (const file of new Set(explorers.map(fileOf))) {
    const carried = onlyNeeded ? await neededWeights(file, explorers.filter((e) => fileOf(e) === file), engine.wasmBytes) : weightsAsset(file);
    weights.set(file, carried);
    assets.push(...carried.assets.filter((asset) => !assets.some((a) => a.url === asset.url)));
  }
  const elements = explorers.map((explorer) => {
    const pairs = [['assets', engine.base], ['weights', weights.get(fileOf(explorer)).url], ...explorerAttributes(explorer.sentence, explorer.options)];
    return `<attention-explorer ${pairs.map(([n, v]) => `${n}="${escapeHtml(v)}"`).join(' ')}></attention-explorer>`;
  });
  const body = [...assets.map(holder), `<script>\n${readFileSync(BOOTSTRAP, 'utf8')}</script>`, ...elements].join('\n');
  return ['<!doctype html>', `<html lang="${escapeHtml(pageLang)}">`, '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">', `<title>${escapeHtml(title)}</title>`,
    '<body>', body, '</body>', '</html>', ''].join('\n');
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const parsed = parseArgs(process.argv.slice(2));
    const page = Buffer.from(await onePage(parsed));
    writeFileSync(parsed.out, page);
    console.log(`${parsed.out}: ${page.length} bytes, ${parsed.explorers.length} explorer${parsed.explorers.length > 1 ? 's' : ''}`);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`explorer-html: ${error.message}`);
    process.exit(2);
  }
}
