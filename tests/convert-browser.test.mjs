// The converter core runs in a browser as it runs in Node: weights/convert-core.mjs loaded as a
// module in headless Chromium converts a checkpoint's files (bytes in memory, no network, no file
// system) to the same bytes as the Node CLI (model.safetensors, and a pytorch_model.bin folder laid
// out as Google's bert-mini page), and a refused checkpoint gives the CLI's message.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { chromium } from 'playwright-core';
import { build } from 'esbuild';
import { compactConfig, randomTensors, writeCheckpoint } from './lib/checkpoints.mjs';
import { defaultWasm, repoRoot } from './lib/node-engine.mjs';

const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--no-first-run'];

test('convert-core.mjs in Chromium: the same weights file as the Node CLI, the same refusal', { skip: !fs.existsSync(CHROMIUM) && 'no Chromium' }, async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'attn-browser-convert-'));
  try {
    const config = compactConfig({ layers: 2, hidden: 128, vocab: 200, positions: 64 });
    const { tensors, shapes } = randomTensors(config, 11);
    const dir = writeCheckpoint(path.join(root, 'model'), { config, tensors, shapes });
    const out = path.join(root, 'cli.bin');
    const cli = spawnSync('node', [path.join(repoRoot, 'weights/convert.mjs'), dir, out, '--precision', 'int8'], { encoding: 'utf8' });
    assert.equal(cli.status, 0, cli.stderr);
    const files = Object.fromEntries(['config.json', 'vocab.txt', 'model.safetensors']
      .map((name) => [name, fs.readFileSync(path.join(dir, name)).toString('base64')]));
    // convert-core.mjs with the format's definition it imports (c/spec.mjs, weights/crc32.mjs),
    // bundled as the page's bundle is (esbuild).
    // With the engine's JavaScript beside it: the page gives the converter its engine (the same
    // attn.wasm) to measure the card's head roles, as the CLI does.
    const core = (await build({ stdin: { contents: "export * from './weights/convert-core.mjs'; export { Engine } from './web/src/engine.mjs';",
      resolveDir: repoRoot, loader: 'js' }, bundle: true, format: 'esm', write: false, logLevel: 'silent' })).outputFiles[0].text;
    files.wasm = fs.readFileSync(defaultWasm).toString('base64');
    const google = path.join(repoRoot, 'tests/fixtures/torch/google-legacy');
    const binOut = path.join(root, 'google.bin');
    const binCli = spawnSync('node', [path.join(repoRoot, 'weights/convert.mjs'), google, binOut], { encoding: 'utf8' });
    assert.equal(binCli.status, 0, binCli.stderr);
    for (const name of ['config.json', 'vocab.txt', 'pytorch_model.bin']) files[`google/${name}`] = fs.readFileSync(path.join(google, name)).toString('base64');

    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
    try {
      const page = await browser.newPage();
      const result = await page.evaluate(async ({ core, files }) => {
        const url = URL.createObjectURL(new Blob([core], { type: 'text/javascript' }));
        const { convertCheckpoint, ConvertError, Engine } = await import(url);
        const bytes = (b64) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
        const engine = { Engine, wasm: await WebAssembly.compile(bytes(files.wasm)) };
        const input = {
          name: 'model', config: new TextDecoder().decode(bytes(files['config.json'])),
          vocab: bytes(files['vocab.txt']), safetensors: bytes(files['model.safetensors']), training: null,
        };
        const log = [];
        const { bytes: out } = convertCheckpoint(input, { precision: 'int8', log: (line) => log.push(line), engine });
        let refusal = null;
        try {
          convertCheckpoint({ ...input, vocab: new TextEncoder().encode('[CLS]\n[SEP]\n') }, { precision: 'int8' });
        } catch (e) {
          refusal = e instanceof ConvertError ? e.message : `not a ConvertError: ${e}`;
        }
        const base64Of = (data) => {
          let binary = '';
          for (let i = 0; i < data.length; i += 8192) binary += String.fromCharCode(...data.subarray(i, i + 8192));
          return btoa(binary);
        };
        const fromBin = convertCheckpoint({
          name: 'google-legacy', config: new TextDecoder().decode(bytes(files['google/config.json'])),
          vocab: bytes(files['google/vocab.txt']), pytorch: bytes(files['google/pytorch_model.bin']), training: null,
        }, { precision: 'auto', engine }).bytes;
        return { base64: base64Of(out), bin: base64Of(fromBin), refusal, log };
      }, { core, files });
      assert.ok(Buffer.from(result.base64, 'base64').equals(fs.readFileSync(out)), 'byte-identical to the CLI');
      assert.ok(Buffer.from(result.bin, 'base64').equals(fs.readFileSync(binOut)), 'pytorch_model.bin: byte-identical to the CLI');
      assert.match(result.refusal, /^vocab\.txt has no line \[MASK\], \[PAD\], \[UNK\]: the engine needs/);
    } finally {
      await browser.close();
    }
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});
