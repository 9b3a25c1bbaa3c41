// The "Use your own model" panel on a French page: hostile checkpoints of different readers (a
// config.json, a damaged zip, a pickle calling os.system, a tokenizer.json the engine cannot
// run) and a good one with notes are converted in the panel; every refusal and note shown is the
// French phrasing of the converter's code for it (the same conversion run in Node says which),
// none holds a word of the English texts, and the panel's numbers have a decimal comma. Only
// goto, evaluate and waitForFunction: the files reach the panel's input through a DataTransfer.
// Run from tests/browser/run.mjs (testFrenchRefusals).

import fs from 'node:fs';
import path from 'node:path';
import { runConversion } from '../../web/src/convert-run.mjs';
import { translator } from '../../web/src/i18n/index.mjs';

// Words of the converter's English texts that its French texts never use.
const ENGLISH = /\b(the|is|are|used|not|with|without|of|has|have|holds?|needs?|must|got|than|which|reads?|lines?|entry|entries|bytes|only|no|or|and|ignoring|nothing)\b/;
// Set aside before looking for English words: values quoted from the input, tensor and file names.
const NAMES = /"[^"]*"|«[^»]*»|\[[^\]]*\]|[\w-]+(\.[\w*-]+)+|[\w.]+_[\w.]+|\S*-of-\S*/g;
const PANEL_FILES = { 'config.json': 'config', 'vocab.txt': 'vocab', 'tokenizer.json': 'tokenizer', 'pytorch_model.bin': 'pytorch' };

function cases(ROOT) {
  const torch = path.join(ROOT, 'tests/fixtures/torch');
  const folder = (dir) => Object.fromEntries(fs.readdirSync(path.join(torch, dir)).filter((n) => PANEL_FILES[n])
    .map((n) => [n, new Uint8Array(fs.readFileSync(path.join(torch, dir, n)))]));
  const google = folder('google-zip');
  const edited = (bytes, edit) => new TextEncoder().encode(JSON.stringify(edit(JSON.parse(new TextDecoder().decode(bytes)))));
  const damaged = google['pytorch_model.bin'].slice();
  damaged[damaged.length >> 1] ^= 0xff;  // a byte of a tensor: its zip entry fails the CRC
  const tokenizer = folder('tokenizer-json');
  return [
    { name: 'a config.json whose hidden_size is no multiple of its heads', files: { ...google, 'config.json': edited(google['config.json'], (c) => ({ ...c, hidden_size: 250, num_attention_heads: 4 })) } },
    { name: 'a damaged zip', files: { ...google, 'pytorch_model.bin': damaged } },
    { name: 'a pickle calling os.system', files: folder('hostile') },
    { name: 'a tokenizer.json with another normalizer', files: { ...tokenizer, 'tokenizer.json': edited(tokenizer['tokenizer.json'], (j) => ({ ...j, normalizer: { type: 'Lowercase' } })) } },
    { name: 'Google\'s bert-mini layout (notes)', files: google },
  ];
}

/** What the panel should show, from the same conversion in Node: the refusal or the notes, in French. */
function expected(files, label) {
  const t = translator('fr');
  const given = Object.fromEntries(Object.entries(files).map(([n, bytes]) => [PANEL_FILES[n], n === 'config.json' ? new TextDecoder().decode(bytes) : bytes]));
  const answer = runConversion(given, label);
  if (answer.refused) return { refusal: answer.refused.reason ? t(...answer.refused.reason) : null, english: answer.refused.message };
  return { notes: answer.notes.map((n) => (n.code ? t(n.code, n.params) : null)) };
}

// In the page: the panel's files input gets the files and its change event; returns at once.
function chooseFiles(files) {
  const explorer = document.querySelector('attention-explorer');
  const panel = explorer.shadowRoot.querySelector('.convert-host').shadowRoot;
  const input = panel.querySelector('input.files-input');
  const transfer = new DataTransfer();
  for (const [name, base64] of files) transfer.items.add(new File([Uint8Array.from(atob(base64), (c) => c.charCodeAt(0))], name));
  input.files = transfer.files;
  input.dispatchEvent(new Event('change'));
}

function panelShown() {
  const panel = document.querySelector('attention-explorer').shadowRoot.querySelector('.convert-host').shadowRoot;
  const refusal = panel.querySelector('.refusal');
  const result = panel.querySelector('.result');
  if (!refusal.hidden) return { refusal: refusal.querySelector('.refusal-message')?.textContent ?? null, headline: refusal.querySelector('strong').textContent };
  if (!result.hidden) {
    return { notes: [...result.querySelectorAll('.converter-notes li')].map((li) => li.textContent), text: result.textContent,
      converted: result.querySelector('.converted').textContent };
  }
  return null;
}

export async function testFrenchRefusals({ newPage, check, waitDrawn, FILE, ROOT }) {
  const page = await newPage();
  try {
    await page.goto(`${FILE}/web/index.html?lang=fr`);
    await waitDrawn(page);
    const label = translator('fr')('convert.yourCheckpoint');
    for (const { name, files } of cases(ROOT)) {
      const want = expected(files, label);
      const encoded = Object.entries(files).map(([n, bytes]) => [n, Buffer.from(bytes).toString('base64')]);
      await page.evaluate(chooseFiles, encoded);
      await page.waitForFunction(panelShown, null, { timeout: 60000 });
      const shown = await page.evaluate(panelShown);
      const texts = want.refusal !== undefined ? [shown.refusal] : shown.notes;
      const english = texts.filter((text) => ENGLISH.test(String(text).replace(NAMES, ' ')));
      if (want.refusal !== undefined) {
        check(`French page, ${name}: the panel shows the French text of the converter's refusal (« ${String(shown.refusal).slice(0, 90)}… »)`,
          want.refusal !== null && shown.refusal === want.refusal && shown.refusal !== want.english && english.length === 0,
          JSON.stringify({ shown, want, english }));
      } else {
        const decimal = /\d,\d\u00a0Mo/.test(shown.converted) && !/\d\.\d/.test(shown.text.replace(NAMES, ' '));
        check(`French page, ${name}: ${shown.notes.length} notes, each the French text of its code; numbers with a decimal comma (« ${shown.converted} »)`,
          shown.notes.length >= 2 && JSON.stringify(shown.notes) === JSON.stringify(want.notes) && english.length === 0 && decimal,
          JSON.stringify({ shown, want, english }));
      }
    }
    check('French page, converter refusals: no page errors', page.problems.length === 0, page.problems.join('; '));
  } finally {
    await page.context().close();
  }
}
