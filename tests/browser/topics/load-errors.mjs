// Loads that go wrong: missing and corrupt weights (the corrupt-weights matrix of
// tests/lib/corrupt-weights.mjs, each case's engine message and code shown), scripts from disk,
// corrupt or slow parts of the weights, and views that wait for the parts they need.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { MESSAGES, corruptWeightsCases, partOfToken, partsOf, splitForScripts } from '../../lib/corrupt-weights.mjs';
import { FILE, HTTP, OUT, ROOT, SERVED, check, drawnCount, engine, explorer, missingRanges, newPage, shot, slowRanges, viewValues, waitDrawn } from '../lib/session.mjs';

export async function testLoadErrors() {
  await mkdir(OUT, { recursive: true });
  const weights = new Uint8Array(readFileSync(path.join(ROOT, 'web/dist/bert-mini.int8.bin')));
  weights[Math.floor(weights.length / 2)] ^= 0x55;
  await writeFile(path.join(OUT, 'corrupt.bin'), weights);
  const script = `(self.attentionExplorerAssets = self.attentionExplorerAssets || {})[document.currentScript.src] = function () {/*${Buffer.from(weights).toString('base64')}*/};\n`;
  await writeFile(path.join(OUT, 'corrupt.weights.js'), script);
  const page = (body) => `<!doctype html><meta charset="utf-8"><script src="../web/dist/attention-explorer.js" defer></script>${body}`;
  await writeFile(path.join(OUT, 'corrupt.html'), page('<attention-explorer weights="corrupt.weights.js"></attention-explorer>'));
  await writeFile(path.join(OUT, 'corrupt-http.html'), page('<attention-explorer weights="corrupt.bin"></attention-explorer>'));
  await writeFile(path.join(OUT, 'missing.html'), page('<attention-explorer weights="no-such-file.weights.js"></attention-explorer>'));
  await writeFile(path.join(OUT, 'corrupt-fr.html'), page('<html lang="fr"><attention-explorer weights="corrupt.weights.js"></attention-explorer>'));
  const cases = [
    [`${FILE}/test-output/corrupt-http.html`, /cannot read corrupt\.bin[^]*corrupt\.bin --scripts[^]*weights="corrupt\.weights\.head\.js"/, 'file:// .bin weights (says what to do)', null],
    [`${FILE}/test-output/corrupt.html`, /checksum/i, 'file:// corrupt weights', 'error-corrupt-weights'],
    [`${HTTP}/test-output/corrupt-http.html`, /checksum/i, 'http corrupt weights', null],
    [`${FILE}/test-output/missing.html`, /could not load/i, 'file:// missing weights', 'error-missing-weights'],
    [`${FILE}/test-output/corrupt-fr.html`, /n\u2019a pas pu d\u00e9marrer.*somme de contr\u00f4le incorrecte.*code du moteur 5/, 'file:// corrupt weights, French page (the engine\'s code worded in French)', 'fr-error-corrupt-weights'],
  ];
  for (const [address, pattern, label, screenshot] of cases) {
    const p = await newPage();
    await p.goto(address);
    const error = explorer(p).locator('.error');
    await error.waitFor({ state: 'visible', timeout: 30000 });
    const text = await error.textContent();
    check(`${label}: a clear visible message ("${text.trim().slice(0, 110)}…")`, pattern.test(text), text);
    if (screenshot) await shot(p, screenshot);
    await p.context().close();
  }
}

/** A model converted with --scripts, opened from file://: the head and part scripts carry it. */
export async function testScriptsFromDisk() {
  await mkdir(OUT, { recursive: true });
  const out = path.join(OUT, 'google-mini.bin');
  const run = spawnSync('node', [path.join(ROOT, 'weights/convert.mjs'), path.join(ROOT, 'tests/fixtures/torch/google-zip'), out, '--scripts'], { encoding: 'utf8' });
  check('--scripts: the converter writes the head and part scripts', run.status === 0 && /google-mini\.weights\.head\.js/.test(run.stderr), run.stderr);
  await writeFile(path.join(OUT, 'scripts-from-disk.html'), '<!doctype html><meta charset="utf-8"><script src="../web/dist/attention-explorer.js" defer></script>'
    + '<attention-explorer weights="google-mini.weights.head.js" sentence="the cat sat on the [MASK]."></attention-explorer>');
  const p = await newPage();
  await p.goto(`${FILE}/test-output/scripts-from-disk.html`);
  await waitDrawn(p);
  const shape = await p.evaluate(() => document.querySelector('attention-explorer').engine.shape);
  check(`--scripts: the converted model runs from file:// (${shape.layers} layers × ${shape.heads} heads, hidden ${shape.hidden})`,
    shape.layers === 2 && shape.heads === 2 && shape.hidden === 32, JSON.stringify(shape));
  await p.context().close();
}

/** The .js form the page loads from file:// (as tools/build-web.mjs writes bert-mini.weights.js). */
export function weightsScript(name, bytes) {
  return [
    `/* ${name} (${bytes.length} bytes) as base64, written by tests/browser/run.mjs. */`,
    '(self.attentionExplorerAssets = self.attentionExplorerAssets || {})[document.currentScript.src] =',
    `function () {/*${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('base64')}*/};`,
    '',
  ].join('\n');
}

/**
 * The corrupt-weights matrix of tests/robustness.test.mjs (tests/lib/corrupt-weights.mjs),
 * in the page: every case from file:// (.js form), some also over http (.bin form). One
 * page is reused and each case is a small page in a temp directory; one 23 MB variant exists
 * at a time. The visible message must hold the engine's message and code, no row is drawn.
 */
export async function testCorruptWeightsMatrix() {
  const weights = readFileSync(path.join(ROOT, 'web/dist/bert-mini.int8.bin'));
  const cases = corruptWeightsCases(weights);
  const overHttp = new Set(['empty file', 'cut inside the header (64)', 'cut inside the tensor data', 'cut before the last byte',
    'bad magic', 'checksum mismatch: one data byte flipped', 'wrong shape: 8 heads', 'vocab line count above the header',
    'one byte appended']);
  const screenshots = { 'cut inside the tensor data': 'error-weights-truncated', 'bad magic': 'error-weights-bad-magic-http' };
  const dir = await mkdtemp(path.join(os.tmpdir(), 'attn-corrupt-weights-'));
  const prefix = `/corrupt-weights-${path.basename(dir)}/`;
  SERVED.set(prefix, dir);
  const bundle = pathToFileURL(path.join(ROOT, 'web/dist/attention-explorer.js')).href;
  const html = (script, weightsFile) => '<!doctype html><meta charset="utf-8"><title>corrupt weights</title>' +
    `<script src="${script}" defer></script><attention-explorer weights="${weightsFile}"></attention-explorer>\n`;
  const page = await newPage();
  const started = Date.now();
  let pages = 0;
  /** Opens one case's page and checks what it shows. */
  // Over http the page reads the .bin in parts: a flipped byte in a part the default sentence
  // does not need is found when that part arrives, after the sentence is drawn.
  const foundAfterDrawing = new Set(['checksum mismatch: one data byte flipped']);
  async function checkCase(address, label, code, screenshot, drawsFirst = false) {
    page.problems.length = 0;
    await page.goto(address);
    pages++;
    if (drawsFirst) await waitDrawn(page);
    const error = explorer(page).locator('.explorer > .error');
    await error.waitFor({ state: 'visible', timeout: 60000 });
    const text = (await error.textContent()).replace(/\s+/g, ' ').trim();
    const shown = await explorer(page).evaluate((e) => ({
      code: e.shadowRoot.querySelector('.explorer > .error').dataset.code, drawn: e.dataset.drawn || null,
      rows: e.shadowRoot.querySelectorAll('.attention-row, rect.bar').length,
    }));
    const ok = text.includes(MESSAGES[code]) && text.includes(`(engine code ${code})`) && shown.code === String(code);
    check(`${label}: shows the engine's message and code ${code}`, ok, `shown "${text}", data-code ${shown.code}`);
    // A range request on an empty file is answered 416: the browser logs it, the page then reads the file whole.
    const problems = page.problems.filter((p) => !/status of 416/.test(p));
    if (drawsFirst) {
      check(`${label}: the sentence drawn first, then the part named`, Number(shown.drawn) >= 1 && /part \d+ of \d+/.test(text), text);
    } else {
      check(`${label}: no row drawn, no page errors`, shown.rows === 0 && !shown.drawn && problems.length === 0,
        `${shown.rows} rows, drawn ${shown.drawn}; ${problems.join('; ')}`);
    }
    if (screenshot) await shot(page, screenshot);
  }
  try {
    for (const [index, { name, make, code }] of cases.entries()) {
      const bytes = make();
      const stem = `case-${String(index).padStart(2, '0')}`;
      await writeFile(path.join(dir, `${stem}.weights.js`), weightsScript(`${stem}.bin`, bytes));
      await writeFile(path.join(dir, `${stem}.html`), html(bundle, `${stem}.weights.js`));
      await checkCase(pathToFileURL(path.join(dir, `${stem}.html`)).href, `corrupt weights, file:// .js, ${name}`, code,
        overHttp.has(name) ? null : screenshots[name]);
      await rm(path.join(dir, `${stem}.weights.js`));
      if (overHttp.has(name)) {
        await writeFile(path.join(dir, `${stem}.bin`), bytes);
        await writeFile(path.join(dir, `${stem}-http.html`), html('/web/dist/attention-explorer.js', `${stem}.bin`));
        await checkCase(`${HTTP}${prefix}${stem}-http.html`, `corrupt weights, http .bin, ${name}`, code, screenshots[name],
          foundAfterDrawing.has(name));
        const fetched = await page.evaluate((file) => performance.getEntriesByType('resource').some((e) => e.name.endsWith(file)), `${stem}.bin`);
        check(`corrupt weights, http .bin, ${name}: the page fetched the .bin`, fetched);
        await rm(path.join(dir, `${stem}.bin`));
      }
    }
  } finally {
    await page.context().close();
    SERVED.delete(prefix);
    await rm(dir, { recursive: true, force: true });
  }
  console.log(`corrupt weights: ${cases.length} cases (${overHttp.size} also over http), ${pages} page loads in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

/**
 * The corrupt-weights matrix extended to parts: a flipped byte in a part the sentence needs
 * (refused before anything is drawn, the part named), in a part it does not need (the sentence
 * is drawn, then the part is named when it arrives), a part script missing from file://, and a
 * range answered 404 over http. Over http the page reads the .bin in parts; from file:// it
 * reads the head script and the part scripts.
 */
export async function testCorruptParts() {
  const weights = readFileSync(path.join(ROOT, 'web/dist/bert-mini.int8.bin'));
  const sentence = 'The cat sat on the mat.';
  const catPart = partOfToken(weights, engine.tokenize('cat').ids[1]);
  const parts = partsOf(weights), lastPart = parts.length - 1;
  const neededIds = engine.tokenize(sentence).ids;
  check(`corrupt parts: "cat" lies in part ${catPart}, which the sentence needs; part ${lastPart} it does not`,
    catPart > 0 && !neededIds.some((id) => partOfToken(weights, id) === lastPart));
  const flipped = (part) => {
    const copy = Buffer.from(weights);
    copy[parts[part].offset + 1234] ^= 0x40;
    return copy;
  };
  const dir = await mkdtemp(path.join(os.tmpdir(), 'attn-corrupt-parts-'));
  const prefix = `/corrupt-parts-${path.basename(dir)}/`;
  SERVED.set(prefix, dir);
  const bundle = pathToFileURL(path.join(ROOT, 'web/dist/attention-explorer.js')).href;
  const html = (script, weightsFile) => '<!doctype html><meta charset="utf-8"><title>corrupt parts</title>' +
    `<script src="${script}" defer></script><attention-explorer weights="${weightsFile}" sentence="${sentence}"></attention-explorer>\n`;
  const writeScripts = async (stem, bytes, { skip = null } = {}) => {
    const { head, scripts } = splitForScripts(bytes);
    await writeFile(path.join(dir, `${stem}.weights.head.js`), weightsScript(`${stem} head`, head));
    for (const { group, bytes: b } of scripts) {
      if (group !== skip) await writeFile(path.join(dir, `${stem}.weights.part-${String(group).padStart(3, '0')}.js`), weightsScript(`${stem} ${group}`, b));
    }
  };
  const page = await newPage();
  const checkCase = (address, label, expected) => checkPartError(page, parts.length, address, label, expected);
  const checksum = new RegExp(MESSAGES[5].replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  try {
    await writeFile(path.join(dir, 'needed.bin'), flipped(catPart));
    await writeFile(path.join(dir, 'needed-http.html'), html('/web/dist/attention-explorer.js', 'needed.bin'));
    await checkCase(`${HTTP}${prefix}needed-http.html`, 'corrupt parts, http, a flipped byte in a needed part',
      { part: catPart, pattern: checksum, code: 5 });
    await writeFile(path.join(dir, 'unneeded.bin'), flipped(lastPart));
    await writeFile(path.join(dir, 'unneeded-http.html'), html('/web/dist/attention-explorer.js', 'unneeded.bin'));
    await checkCase(`${HTTP}${prefix}unneeded-http.html`, 'corrupt parts, http, a flipped byte in a part the sentence does not need',
      { part: lastPart, pattern: checksum, code: 5, drawsFirst: true });
    await writeFile(path.join(dir, 'range404.bin'), weights);
    await writeFile(path.join(dir, 'range404-http.html'), html('/web/dist/attention-explorer.js', 'range404.bin'));
    missingRanges.set(`${prefix}range404.bin`, [parts[catPart].offset, parts[catPart].offset + parts[catPart].bytes]);
    await checkCase(`${HTTP}${prefix}range404-http.html`, 'corrupt parts, http, a range answered 404',
      { part: catPart, pattern: /could not be loaded.*404/ });
    missingRanges.delete(`${prefix}range404.bin`);

    await writeScripts('needed', flipped(catPart));
    await writeFile(path.join(dir, 'needed.html'), html(bundle, 'needed.weights.head.js'));
    await checkCase(pathToFileURL(path.join(dir, 'needed.html')).href, 'corrupt parts, file://, a flipped byte in a needed part',
      { part: catPart, pattern: checksum, code: 5 });
    await writeScripts('unneeded', flipped(lastPart));
    await writeFile(path.join(dir, 'unneeded.html'), html(bundle, 'unneeded.weights.head.js'));
    await checkCase(pathToFileURL(path.join(dir, 'unneeded.html')).href, 'corrupt parts, file://, a flipped byte in a part the sentence does not need',
      { part: lastPart, pattern: checksum, code: 5, drawsFirst: true });
    await writeScripts('missing', weights, { skip: splitForScripts(weights).scripts.find((s) => s.first <= catPart && catPart <= s.last).group });
    await writeFile(path.join(dir, 'missing.html'), html(bundle, 'missing.weights.head.js'));
    await checkCase(pathToFileURL(path.join(dir, 'missing.html')).href, 'corrupt parts, file://, a part script missing',
      { part: catPart, pattern: /could not be loaded.*could not load/ });
  } finally {
    await page.context().close();
    SERVED.delete(prefix);
    await rm(dir, { recursive: true, force: true });
  }
}

/** One case of testCorruptParts: the page at `address` names part `part` of `count`; `drawsFirst`: the sentence is drawn before the error shows. */
async function checkPartError(page, count, address, label, { part, pattern, code = null, drawsFirst = false }) {
  page.problems.length = 0;
  await page.goto(address);
  if (drawsFirst) {
    await waitDrawn(page);
    check(`${label}: the sentence is drawn from the parts it needs`, (await drawnCount(page)) >= 1 &&
      (await explorer(page).locator('.attention-row').count()) > 0);
  }
  const error = explorer(page).locator('.explorer > .error');
  await error.waitFor({ state: 'visible', timeout: 60000 });
  const text = (await error.textContent()).replace(/\s+/g, ' ').trim();
  const shown = await explorer(page).evaluate((e) => ({
    code: e.shadowRoot.querySelector('.explorer > .error').dataset.code ?? null, drawn: e.dataset.drawn || null,
    rows: e.shadowRoot.querySelectorAll('.attention-row, rect.bar').length,
  }));
  check(`${label}: the error names part ${part} of ${count} ("${text.slice(0, 160)}")`,
    text.includes(`part ${part} of ${count}`) && pattern.test(text) && (code === null || shown.code === String(code)), text);
  if (!drawsFirst) check(`${label}: nothing drawn`, shown.rows === 0 && !shown.drawn, `${shown.rows} rows, drawn ${shown.drawn}`);
  const problems = page.problems.filter((p) => !/Failed to load resource/.test(p));  // the missing part itself
  check(`${label}: no page errors`, problems.length === 0, problems.join('; '));
}

/** The default weights as slow.bin in a scratch folder served over http, with the pages of
 * `views` ({page name: view}) showing `sentence` from it, and slow.bin's ranges answered late as
 * `slow` says ([first byte, ms, end byte]); body(address of a page, page) runs on a new page. */
export async function withSlowWeights(name, { sentence, views, slow }, body) {
  const dir = await mkdtemp(path.join(os.tmpdir(), `attn-${name}-`));
  const prefix = `/${name}-${path.basename(dir)}/`;
  await writeFile(path.join(dir, 'slow.bin'), readFileSync(path.join(ROOT, 'web/dist/bert-mini.int8.bin')));
  for (const [file, view] of Object.entries(views)) {
    await writeFile(path.join(dir, file), `<!doctype html><meta charset="utf-8"><title>${name}</title>` +
      `<script src="/web/dist/attention-explorer.js" defer></script><attention-explorer weights="slow.bin" sentence="${sentence}" view="${view}"></attention-explorer>\n`);
  }
  SERVED.set(prefix, dir);
  slowRanges.set(`${prefix}slow.bin`, slow);
  const page = await newPage();
  try {
    await body((file) => `${HTTP}${prefix}${file}`, page);
  } finally {
    await page.context().close();
    slowRanges.delete(`${prefix}slow.bin`);
    SERVED.delete(prefix);
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * [MASK] predictions need every part of the weights: over http with each part request held
 * back, the [MASK] view first says what it waits for (parts arrived of all), then shows the
 * engine's top guess once the last part is in.
 */
export async function testMaskWaitsForParts() {
  const parts = partsOf(readFileSync(path.join(ROOT, 'web/dist/bert-mini.int8.bin')));
  const sentence = 'The cat sat on the [MASK].';
  await withSlowWeights('mask-parts', { sentence, views: { 'mask.html': 'mlm' }, slow: [parts[0].offset, 1500] }, async (address, page) => {
    await page.goto(address('mask.html'));
    await waitDrawn(page);
    const waiting = await explorer(page).locator('.figure-box, .figure').first().textContent();
    check('[MASK] in parts: the view says it waits for the rest of the weights, with progress',
      /waiting for the rest of the model weights/.test(waiting) && new RegExp(`\\d+ of ${parts.length} parts`).test(waiting), waiting.slice(0, 300));
    await explorer(page).locator('.mlm-row').first().waitFor({ state: 'attached', timeout: 60000 });
    await viewValues.checkMlm(page, '[MASK] in parts, once every part is in', sentence);
    check('[MASK] in parts: no page errors', page.problems.length === 0, page.problems.join('; '));
  });
}

/**
 * A view that reads every layer (All heads) while the later layers' weights are slow to come
 * (their range requests answered 1.5 s late): the page says which layer it waits for and how many
 * are in, then draws the grid once they are; the Row view of layer 1 is drawn before them.
 */
export async function testEveryLayerWaits() {
  const parts = partsOf(readFileSync(path.join(ROOT, 'web/dist/bert-mini.int8.bin')));
  const layers = engine.shape.layers;
  const slow = [parts[1].offset, 1500, parts[layers].offset];  // layers 2 … : 1.5 s late
  await withSlowWeights('layers', { sentence: 'The cat sat on the mat.', views: { 'grid.html': 'all-heads', 'row.html': 'row' }, slow }, async (address, tab) => {
    await tab.goto(address('grid.html'));
    const waiting = explorer(tab).locator('.figure-box svg[data-waiting="layer"]');
    await waiting.waitFor({ state: 'attached', timeout: 30000 });
    const text = await waiting.textContent();
    check(`every layer: All heads says which layer it waits for and how many are in ("${text.slice(0, 90)}")`,
      /Loading the weights of layer [2-9]/.test(text) && new RegExp(`\\d of ${layers} layers in`).test(text), text);
    await waitDrawn(tab);
    const cells = await explorer(tab).locator('.cell-bg').count();
    const ready = await explorer(tab).evaluate((e) => e.engine.layersReady());
    check(`every layer: the grid is drawn once the ${layers} layers are in (${cells} cells, ${ready} layers ready)`, ready === layers && cells >= layers);
    await tab.goto(address('row.html'));
    await waitDrawn(tab);
    const rowReady = await explorer(tab).evaluate((e) => ({ ready: e.engine.layersReady(), bars: e.shadowRoot.querySelectorAll('.attention-row rect.bar').length }));
    check(`every layer: the Row view of layer 1 is drawn with ${rowReady.ready} of ${layers} layers in`, rowReady.ready < layers && rowReady.bars > 0, JSON.stringify(rowReady));
    check('every layer: no page errors', tab.problems.length === 0, tab.problems.join('; '));
  });
}
