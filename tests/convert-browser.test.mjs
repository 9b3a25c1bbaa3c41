// The converter core runs in a browser as it runs in Node: weights/convert-core.mjs loaded as a
// module in headless Chromium converts a checkpoint's files (bytes in memory, no network, no file
// system) to the same bytes as the Node CLI, and a refused checkpoint gives the CLI's message.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { chromium } from 'playwright-core';
import { build } from 'esbuild';
import { compactConfig, randomTensors, writeCheckpoint } from './lib/checkpoints.mjs';
import { repoRoot } from './lib/node-engine.mjs';

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
    const core = (await build({ entryPoints: [path.join(repoRoot, 'weights/convert-core.mjs')], bundle: true,
      format: 'esm', write: false, logLevel: 'silent' })).outputFiles[0].text;

    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
    try {
      const page = await browser.newPage();
      const result = await page.evaluate(async ({ core, files }) => {
        const url = URL.createObjectURL(new Blob([core], { type: 'text/javascript' }));
        const { convertCheckpoint, ConvertError } = await import(url);
        const bytes = (b64) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
        const input = {
          name: 'model', config: new TextDecoder().decode(bytes(files['config.json'])),
          vocab: bytes(files['vocab.txt']), safetensors: bytes(files['model.safetensors']), training: null,
        };
        const log = [];
        const { bytes: out } = convertCheckpoint(input, { precision: 'int8', log: (line) => log.push(line) });
        let refusal = null;
        try {
          convertCheckpoint({ ...input, vocab: new TextEncoder().encode('[CLS]\n[SEP]\n') }, { precision: 'int8' });
        } catch (e) {
          refusal = e instanceof ConvertError ? e.message : `not a ConvertError: ${e}`;
        }
        let binary = '';
        for (let i = 0; i < out.length; i += 8192) binary += String.fromCharCode(...out.subarray(i, i + 8192));
        return { base64: btoa(binary), refusal, log };
      }, { core, files });
      assert.ok(Buffer.from(result.base64, 'base64').equals(fs.readFileSync(out)), 'byte-identical to the CLI');
      assert.match(result.refusal, /^vocab\.txt has no line \[MASK\], \[PAD\], \[UNK\]: the engine needs/);
    } finally {
      await browser.close();
    }
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});
