// The page's "Use your own model" panel (web/src/convert-panel.mjs) in Chromium: a checkpoint
// folder set on the folder input is converted in the page, loaded into the explorer (its shape
// in the pickers), its attention matches the float64 reference within the parity bar, the
// downloaded .bin is the command line's file byte for byte, a refused checkpoint shows the
// converter's message, a BertModel checkpoint (no MLM head) says why [MASK] is off, and no
// request is made while any of it happens. In tests/browser/run.mjs's table as testConvertPanel.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { compactConfig, randomTensors, referenceModel, vocabLines, writeCheckpoint } from '../lib/checkpoints.mjs';
import { referenceForward, maxAttentionDelta, loadCheckpoint } from '../../weights/reference.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const ATTENTION_BAR = 1e-3;
const TORCH_FIXTURES = path.join(ROOT, 'tests/fixtures/torch');
// One matrix moved off the per-row int8 grid: the page must store it as int16, the rest as int8.
const OFF_GRID = 'bert.encoder.layer.0.attention.self.query.weight';
const SENTENCE = 'the cat sat on the mat.';
const NO_MLM_TEXT = 'This checkpoint has no masked-word head (BertModel): attention works, predictions do not.';

function checkpoints(root) {
  const config = compactConfig({ layers: 2, hidden: 128, vocab: 200, positions: 64 });
  const { tensors, shapes } = randomTensors(config, 23);
  const moved = tensors.get(OFF_GRID);
  for (let i = 0; i < moved.length; i++) moved[i] += ((i * 7919) % 101 - 50) * 1e-6;
  const model = writeCheckpoint(path.join(root, 'tiny-bert'), { config, tensors, shapes });
  const refused = writeCheckpoint(path.join(root, 'relu-bert'), { config: { ...config, hidden_act: 'relu' }, tensors, shapes });
  const bare = writeCheckpoint(path.join(root, 'bare-bert'), {
    config: { ...config, architectures: ['BertModel'] }, tensors, shapes,
    rename: (name) => (name.startsWith('cls.') ? null : name.replace(/^bert\./, '')),
  });
  return { config, tensors, model, refused, bare };
}

/** The ids the reference runs: the checkpoint's vocab.txt, looked up word by word. */
function idsOf(config, tokens) {
  const vocab = vocabLines(config.vocab_size);
  return tokens.map((t) => vocab.indexOf(t));
}

export async function convertPanelTest({ newPage, check, waitDrawn, FILE }) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'attn-page-convert-'));
  const page = await newPage();
  try {
    const { config, tensors, model, refused, bare } = checkpoints(root);
    await page.goto(`${FILE}/web/index.html`);
    await waitDrawn(page);
    const requests = [];
    page.on('request', (request) => requests.push(request.url()));
    const panel = page.locator('attention-explorer').first().locator('.convert');
    const pickers = () => page.evaluate(() => {
      const e = document.querySelector('attention-explorer');
      const count = (selector) => e.shadowRoot.querySelectorAll(`${selector} button`).length;
      return { layers: count('.layer-picker'), heads: count('.head-picker'), model: e.dataset.model ?? null };
    });
    const before = await pickers();
    const steps = { page, panel, pickers, check, waitDrawn, root, config, tensors, model, refused, bare, before };
    await checkConvertedFolder(steps);
    await checkDownloadAndRefusal(steps);
    await checkBareModel(steps);
    await checkTorchFolders(steps);
    await checkWorkerCancel(steps);
    await checkDroppedFiles(steps);

    // The default model's own files may still arrive meanwhile (its parts load at idle priority).
    const own = `${FILE}/web/dist/`;
    const made = requests.filter((u) => !u.startsWith(own) && !u.startsWith('blob:'));
    check(`convert panel: no request while converting, loading and exploring (${made.length}; ${requests.length - made.length} of the page's own files)`,
      made.length === 0, made.slice(0, 3).join(', '));
  } finally {
    await page.context().close();
    fs.rmSync(root, { recursive: true, force: true });
  }
}

/** A folder converted in the page: the explorer shows it, its attention is the float64 reference's, each matrix's precision shown. */
async function checkConvertedFolder({ page, panel, pickers, check, waitDrawn, config, tensors, model, before }) {
  await panel.locator('input.folder-input').setInputFiles(model);
  await page.waitForFunction(() => document.querySelector('attention-explorer').dataset.model === 'tiny-bert', null, { timeout: 60000 });
  await waitDrawn(page);
  const after = await pickers();
  check(`convert panel: the folder converts in the page and the explorer shows it (pickers ${before.layers}×${before.heads} → ${after.layers}×${after.heads})`,
    before.layers === 4 && after.layers === 2 && after.heads === 2, JSON.stringify({ before, after }));

  const shown = await page.evaluate((sentence) => {
    const e = document.querySelector('attention-explorer');
    const session = e.engine.createSession();
    const run = session.runText(sentence);
    const result = { tokens: run.tokens, attention: Array.from(session.attention()) };
    session.destroy();
    return result;
  }, SENTENCE);
  const reference = referenceForward(referenceModel(config, tensors), idsOf(config, shown.tokens));
  const delta = maxAttentionDelta(Float64Array.from(shown.attention), reference.attention);
  check(`convert panel: attention of the page-converted model vs the float64 reference, max |Δ| ${delta.toExponential(2)} (≤ ${ATTENTION_BAR})`,
    delta <= ATTENTION_BAR);

  const precisions = await panel.locator('.precisions tr').evaluateAll((rows) => rows.map((r) => [r.dataset.tensor, r.dataset.precision]));
  const int16 = precisions.filter(([, p]) => p === 'int16').map(([name]) => name);
  check(`convert panel: each matrix's precision shown (${precisions.length} rows); int16 only for the matrix off the int8 grid`,
    precisions.length === 2 * 6 + 4 && int16.length === 1 && int16[0] === OFF_GRID, JSON.stringify(int16));
}

/** The download is the command line's file byte for byte; a refused checkpoint shows the converter's message. */
async function checkDownloadAndRefusal({ page, panel, pickers, check, root, model, refused }) {
  const cliOut = path.join(root, 'cli.bin');
  const cli = spawnSync('node', [path.join(ROOT, 'weights/convert.mjs'), model, cliOut, '--precision-for', `${OFF_GRID}=int16`], { encoding: 'utf8' });
  const [download] = await Promise.all([page.waitForEvent('download'), panel.locator('a.download').click()]);
  const downloaded = fs.readFileSync(await download.path());
  check(`convert panel: the downloaded ${download.suggestedFilename()} (${downloaded.length} bytes) is the command line's file byte for byte`,
    cli.status === 0 && download.suggestedFilename() === 'tiny-bert.bin' && downloaded.equals(fs.readFileSync(cliOut)), cli.stderr);

  await panel.locator('input.folder-input').setInputFiles(refused);
  const refusal = panel.locator('.refusal-message');
  await refusal.waitFor({ timeout: 30000 });
  const message = await refusal.textContent();
  check(`convert panel: a refused checkpoint shows the converter's message ("${message}")`,
    message === 'config.json: hidden_act is "relu"; this engine runs "gelu" (exact erf)'
    && (await pickers()).model === 'tiny-bert');
}

/** A BertModel checkpoint (no MLM head): the [MASK] line and view say why predictions are off. */
async function checkBareModel({ page, panel, pickers, check, bare }) {
  await panel.locator('input.folder-input').setInputFiles(bare);
  await page.waitForFunction(() => document.querySelector('attention-explorer').dataset.model === 'bare-bert', null, { timeout: 60000 });
  const explorer = page.locator('attention-explorer').first();
  await explorer.locator('textarea').first().fill('the cat [MASK] on the mat.');
  await explorer.locator('.mask-predictions .mask-caveat').waitFor({ timeout: 30000 });
  const inline = await explorer.locator('.mask-predictions').textContent();
  await explorer.locator('.tab[data-view="mask"]').click();
  await explorer.locator('.figure-box svg[data-view="mask"]').waitFor({ timeout: 30000 });
  const figure = await explorer.locator('.figure-box svg').textContent();
  check('convert panel: a BertModel checkpoint (no MLM head) loads, and the [MASK] line and view say why predictions are off',
    inline === NO_MLM_TEXT && figure.includes('no masked-word head (BertModel)') && (await pickers()).layers === 2, `${inline} | ${figure}`);
}

/** A pytorch_model.bin folder as Google's bert-mini page has it converts; a pickle calling os.system is refused. */
async function checkTorchFolders({ page, panel, pickers, check, waitDrawn, root }) {
  // A folder as Google's bert-mini page has it (config.json, vocab.txt, pytorch_model.bin of a
  // BertForPreTraining with gamma/beta names), and a pytorch_model.bin whose pickle calls os.system.
  const google = path.join(root, 'google-bert-mini');
  const twin = path.join(root, 'twin');
  fs.mkdirSync(google);
  fs.mkdirSync(twin);
  for (const name of ['config.json', 'vocab.txt', 'pytorch_model.bin']) fs.copyFileSync(path.join(TORCH_FIXTURES, 'google-zip', name), path.join(google, name));
  for (const name of ['config.json', 'vocab.txt']) fs.copyFileSync(path.join(TORCH_FIXTURES, 'google-zip', name), path.join(twin, name));
  fs.copyFileSync(path.join(TORCH_FIXTURES, 'twin.safetensors'), path.join(twin, 'model.safetensors'));
  await panel.locator('input.folder-input').setInputFiles(google);
  await page.waitForFunction(() => document.querySelector('attention-explorer').dataset.model === 'google-bert-mini', null, { timeout: 60000 });
  await waitDrawn(page);
  const fromBin = await page.evaluate((sentence) => {
    const e = document.querySelector('attention-explorer');
    const session = e.engine.createSession();
    const run = session.runText(sentence);
    const result = { ids: Array.from(run.ids), attention: Array.from(session.attention()) };
    session.destroy();
    return result;
  }, SENTENCE);
  const binDelta = maxAttentionDelta(Float64Array.from(fromBin.attention), referenceForward(loadCheckpoint(twin), fromBin.ids).attention);
  const binNotes = await panel.locator('.converter-notes').textContent();
  check(`convert panel: a pytorch_model.bin folder converts in the page, attention vs the float64 reference of its safetensors twin max |Δ| ${binDelta.toExponential(2)}, the unused pretraining heads said`,
    binDelta <= ATTENTION_BAR && /pooler and the next-sentence head/.test(binNotes), binNotes);
  await panel.locator('input.folder-input').setInputFiles(path.join(TORCH_FIXTURES, 'hostile'));
  const hostile = panel.locator('.refusal-message');
  await hostile.waitFor({ timeout: 30000 });
  const hostileMessage = await hostile.textContent();
  check(`convert panel: a pickle calling os.system is refused by name ("${hostileMessage.slice(0, 90)}…")`,
    /refers to posix\.system \(module "posix", name "system"\)/.test(hostileMessage) && (await pickers()).model === 'google-bert-mini');
}

/** A slow tokenizer.json: the page keeps answering while the worker parses it, and Cancel ends it. */
async function checkWorkerCancel({ page, panel, pickers, check, root, config, model }) {
  // A tokenizer.json of 262,144 long entries (27 MB): seconds of parsing, in the worker. The
  // page keeps answering (no timer late by more than 250 ms) and Cancel ends it.
  const slow = path.join(root, 'slow-tokenizer');
  fs.mkdirSync(slow);
  const slowVocab = 262144;
  fs.writeFileSync(path.join(slow, 'config.json'), JSON.stringify({ ...config, vocab_size: slowVocab }));
  fs.copyFileSync(path.join(model, 'model.safetensors'), path.join(slow, 'model.safetensors'));
  const tokenizer = JSON.parse(fs.readFileSync(path.join(TORCH_FIXTURES, 'tokenizer-json', 'tokenizer.json'), 'utf8'));
  tokenizer.model.vocab = {};
  const entries = Array.from({ length: slowVocab }, (_, i) => `"${'w'.repeat(90)}${i}":${i}`).join(',');
  fs.writeFileSync(path.join(slow, 'tokenizer.json'), JSON.stringify(tokenizer).replace('"vocab":{}', `"vocab":{${entries}}`));
  await panel.locator('input.folder-input').setInputFiles(slow);
  const cancel = panel.locator('button.cancel');
  await cancel.waitFor({ state: 'visible', timeout: 30000 });
  const latest = await page.evaluate(() => new Promise((resolve) => {
    const start = performance.now();
    let last = start;
    let worst = 0;
    const tick = () => {
      const now = performance.now();
      worst = Math.max(worst, now - last);
      last = now;
      if (now - start < 600) setTimeout(tick, 10); else resolve(worst);
    };
    setTimeout(tick, 10);
  }));
  const stillRunning = await cancel.isVisible();
  await cancel.click();
  const cancelled = await panel.locator('.refusal strong', { hasText: 'Conversion cancelled.' }).textContent({ timeout: 10000 }).catch(() => 'not shown');
  check(`convert panel: a conversion runs in a worker: the page's timers are at most ${latest.toFixed(0)} ms late meanwhile (≤ 250), and Cancel ends it ("${cancelled}")`,
    latest <= 250 && stillRunning && cancelled === 'Conversion cancelled.' && (await pickers()).model === 'google-bert-mini', JSON.stringify({ latest, stillRunning }));
}

/** Three files dropped on the panel convert too. */
async function checkDroppedFiles({ page, panel, check, model }) {
  // Dropped files (not a folder): the same conversion, from the drop zone.
  const files = ['config.json', 'vocab.txt', 'model.safetensors']
    .map((name) => ({ name, base64: fs.readFileSync(path.join(model, name)).toString('base64') }));
  await panel.locator('.drop').evaluate((zone, list) => {
    const transfer = new DataTransfer();
    for (const { name, base64 } of list) transfer.items.add(new File([Uint8Array.from(atob(base64), (c) => c.charCodeAt(0))], name));
    zone.dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
  }, files);
  await page.waitForFunction(() => document.querySelector('attention-explorer').dataset.model === 'your checkpoint', null, { timeout: 60000 });
  const dropped = await panel.locator('.converted').textContent();
  check(`convert panel: three files dropped on the panel convert too ("${dropped}")`, /^Converted your checkpoint: 0\.5 MB/.test(dropped));
}
