// "Use your own model": a Hugging Face BERT checkpoint folder (config.json, vocab.txt or
// tokenizer.json, model.safetensors or pytorch_model.bin), picked or dropped on the page, is
// converted here by the converter's own core (weights/convert-core.mjs, the code the command
// line runs; chooseCheckpointFiles picks the files), checked by loading it into
// the engine, shown in the explorers and offered for download. Nothing is sent anywhere.
//
// The conversion runs in the page's worker (page-worker.mjs, also from file://) and can be
// cancelled; where the page allows no worker (a content security policy without blob:, or web/src loaded unbundled) it
// runs on the main thread in slices of at most 40 ms (convert-run.mjs), between which the page
// paints and answers, and Cancel stops it.

import { html, replaceChildrenOf, sharedStyleSheet } from './dom.mjs';
import { translator } from './i18n/index.mjs';
import { statusText as engineStatusText } from './explorer/loading.mjs';
import { chooseCheckpointFiles, checkFileSize, ConvertError, reportableBug } from '../../weights/convert-core.mjs';
import { runConversionSliced } from './convert-run.mjs';
import { startPageWorker } from './page-worker.mjs';

// The converter's input for each file it reads (convertCheckpoint's `files`).
const FILES = {
  'config.json': 'config', 'vocab.txt': 'vocab', 'tokenizer.json': 'tokenizer', 'tokenizer_config.json': 'tokenizerConfig',
  'model.safetensors': 'safetensors',
  'pytorch_model.bin': 'pytorch', 'training.json': 'training',
};
// Read as text; the others (tokenizer.json too: its size is checked on the bytes) as bytes.
const TEXT_FILES = new Set(['config.json', 'tokenizer_config.json', 'training.json']);

const PANEL_CSS = `
:host { display: block; margin-top: 16px; }
.convert { border: 1px solid var(--line, #d8dde3); border-radius: 10px; padding: 10px 14px; }
h2 { font-size: 16px; margin: 0 0 6px; }
p { margin: 6px 0; font-size: 14px; line-height: 1.45; }
.help { color: var(--muted, #56606b); }
.drop { border: 2px dashed var(--line-strong, #8f99a4); border-radius: 10px; padding: 12px; display: flex;
  flex-wrap: wrap; gap: 8px 18px; align-items: center; }
.drop.over { border-color: var(--accent, #0072b2); background: var(--chosen-band, rgba(0, 114, 178, 0.09)); }
label { font-size: 14px; font-weight: 600; display: inline-flex; flex-direction: column; gap: 4px; }
.status { display: flex; align-items: center; gap: 10px; font-size: 14px; min-height: 24px; }
.status[hidden], .refusal[hidden], .result[hidden] { display: none; }
progress { width: 160px; }
.refusal { border: 1px solid var(--error-line, #c0392b); background: var(--error-bg, #fdecea); border-radius: 8px;
  padding: 8px 12px; font-size: 14px; }
.refusal-message { display: block; font-family: ui-monospace, monospace; white-space: pre-wrap; margin-top: 4px; }
.result ul { margin: 4px 0; padding-left: 20px; font-size: 13px; }
.precisions { font-size: 13px; border-collapse: collapse; }
.precisions td { padding: 1px 10px 1px 0; font-family: ui-monospace, monospace; }
a.download { font-weight: 600; }
:focus-visible { outline: 3px solid var(--focus, #b35806); outline-offset: 2px; }
`;

const panelSheet = sharedStyleSheet(PANEL_CSS);

/** Lets the browser draw the progress line before the next (blocking) step. */
const paint = () => new Promise((resolve) => {
  requestAnimationFrame(() => setTimeout(resolve, 0));
  setTimeout(resolve, 60);
});

/** The checkpoint's files by name, from a file list: the shallowest file of each name wins. */
export function pickCheckpointFiles(entries) {
  const chosen = new Map();
  for (const { file, path } of entries) {
    const name = path.split('/').pop();
    const depth = path.split('/').length;
    if (!(name in FILES) && !/\.(safetensors|bin|h5|msgpack)$|\.ckpt(\.|$)/.test(name)) continue;
    const known = chosen.get(name);
    if (!known || depth < known.depth) chosen.set(name, { file, path, depth });
  }
  const folder = [...chosen.values()].map((c) => c.path.split('/')).find((parts) => parts.length > 1)?.at(-2);
  return { chosen, label: folder || null };
}

/** The names of the files the converter reads ({ names }), or why these cannot be a checkpoint ({ missing }). */
function checkpointFiles(t, chosen) {
  try {
    const picked = chooseCheckpointFiles([...chosen.keys()]);
    return { names: ['config.json', picked.vocab, picked.tokenizer, picked.tokenizerConfig, picked.weights, picked.training].filter(Boolean) };
  } catch (error) {
    if (!(error instanceof ConvertError)) throw error;
    return { missing: error.reason ? t(...error.reason) : error.message };
  }
}

/** Every file under a dropped item (a file, or a folder read through its entries). */
async function droppedEntries(dataTransfer) {
  const roots = [...dataTransfer.items].map((item) => item.webkitGetAsEntry?.()).filter(Boolean);
  if (!roots.length) return [...dataTransfer.files].map((file) => ({ file, path: file.name }));
  const out = [];
  const walk = async (entry, prefix, depth) => {
    const path = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isFile) {
      out.push({ file: await new Promise((resolve, reject) => entry.file(resolve, reject)), path });
    } else if (entry.isDirectory && depth < 3) {
      const reader = entry.createReader();
      for (;;) {
        const batch = await new Promise((resolve, reject) => reader.readEntries(resolve, reject));
        if (!batch.length) break;
        for (const child of batch) await walk(child, path, depth + 1);
      }
    }
  };
  for (const root of roots) await walk(root, '', 0);
  return out;
}

// Where no worker is allowed: in slices, the page painting and answering between them.
const onMainThread = (files, label, engine, isCancelled) => paint().then(() => runConversionSliced(files, label, engine, { isCancelled }));

/**
 * Converts `files` off the main thread where a worker can be had: { answer (a promise of
 * runConversion's answer, or null when cancelled), cancel, inWorker }. A worker that the page's
 * policy blocks fails before it says it started: the conversion then runs on the main thread, in
 * slices, and Cancel stops it between two.
 * `engine` ({ Engine, wasm } or null) measures the head roles; the worker gets its wasm module.
 */
function startConversion(files, label, engine) {
  let cancelled = false;
  const isCancelled = () => cancelled;
  const worker = startPageWorker();
  if (!worker) return { answer: onMainThread(files, label, engine, isCancelled), cancel: () => { cancelled = true; }, inWorker: false };
  let settle;
  let started = false;
  const answer = new Promise((resolve) => { settle = resolve; });
  worker.onmessage = ({ data }) => {
    if (data.ready) { started = true; worker.postMessage({ files, label, wasm: engine?.wasm ?? null }); return; }
    worker.terminate();
    settle(data);
  };
  worker.onerror = (event) => {
    worker.terminate();
    if (!started) onMainThread(files, label, engine, isCancelled).then(settle);
    else settle({ bug: reportableBug(event.message || 'the converter worker stopped') });
  };
  return { answer, cancel: () => { cancelled = true; worker.terminate(); settle(null); }, inWorker: true };
}

function precisionSummary(t, tensors) {
  const matrices = tensors.filter((m) => m.kind === 'matrix');
  const int8 = matrices.filter((m) => m.precision === 'int8').length;
  const int16 = matrices.length - int8;
  const text = int16 === 0
    ? t('convert.allInt8', { count: matrices.length })
    : t('convert.someInt16', { int8, count: matrices.length, int16 });
  const rows = matrices.map((m) => html('tr', { dataset: { tensor: m.name, precision: m.precision } }, [
    html('td', { text: m.name }), html('td', { text: m.precision }), html('td', { text: `${m.rows}\u00d7${m.cols}` }),
    html('td', { text: m.onGrid && m.precision === 'int8' ? t('convert.exact') : t('convert.maxError', { error: t.scientific(m.maxError) }) }),
  ]));
  return [
    html('p', { class: 'precision-summary', text }),
    html('details', {}, [html('summary', { text: t('convert.eachPrecision') }), html('table', { class: 'precisions' }, html('tbody', {}, rows))]),
  ];
}

/**
 * The panel element. `useWeights(bytes, label)` shows a converted file in the page's explorers
 * and rejects with the engine's error when the engine refuses it.
 */
export function convertPanel(useWeights, t = translator('en'), conversionEngine = () => null) {
  const host = html('section', { class: 'convert-host', 'aria-label': t('convert.title') });
  const root = host.attachShadow({ mode: 'open' });
  root.adoptedStyleSheets = [panelSheet()];
  const folderInput = html('input', { type: 'file', webkitdirectory: true, class: 'folder-input' });
  const filesInput = html('input', { type: 'file', multiple: true, accept: '.json,.txt,.safetensors,.bin', class: 'files-input' });
  const progress = html('progress', { max: 1, value: 0 });
  const statusText = html('span', {});
  const cancelButton = html('button', { type: 'button', class: 'cancel', text: t('convert.cancel'), hidden: true });
  const status = html('div', { class: 'status', role: 'status', 'aria-live': 'polite', hidden: true }, [progress, statusText, cancelButton]);
  const refusal = html('div', { class: 'refusal', role: 'alert', hidden: true });
  const result = html('div', { class: 'result', hidden: true });
  const drop = html('div', { class: 'drop' }, [
    html('label', {}, [t('convert.chooseFolder'), folderInput]),
    html('label', {}, [t('convert.orFiles'), filesInput]),
    html('span', { class: 'help', text: t('convert.orDrop') }),
  ]);
  root.append(html('div', { class: 'convert' }, [
    html('h2', { text: t('convert.title') }),
    html('p', { class: 'help', text: t('convert.help') }),
    drop, status, refusal, result,
  ]));

  let downloadUrl = null;
  let busy = false;
  const step = async (text, value) => {
    status.hidden = false;
    statusText.textContent = text;
    progress.value = value;
    await paint();
  };
  const refuse = (headline, message) => {
    status.hidden = true;
    replaceChildrenOf(refusal, [html('strong', { text: headline }), message ? html('span', { class: 'refusal-message', text: message }) : null]);
    refusal.hidden = false;
  };

  // A refusal (ConvertError) names the file and what is wrong; anything else is a bug in the
  // converter, shown with its stack to be reported.
  const refuseError = (error) => {
    if (error instanceof ConvertError) refuse(t('convert.refused'), error.reason ? t(...error.reason) : error.message);
    else refuse(t('convert.failed'), reportableBug(error));
  };

  async function convertEntries(entries) {
    if (busy) return;
    busy = true;
    refusal.hidden = result.hidden = true;
    try {
      await convertChosen(pickCheckpointFiles(entries));
    } catch (error) {
      refuseError(error);
    } finally {
      busy = false;
      folderInput.value = filesInput.value = '';
    }
  }

  async function convertChosen({ chosen, label: folder }) {
    const label = folder ?? t('convert.yourCheckpoint');
    const { names, missing } = checkpointFiles(t, chosen);
    if (missing) { refuse(t('convert.notCheckpoint'), missing); return; }
    const texts = {};
    const total = names.reduce((sum, n) => sum + chosen.get(n).file.size, 0);
    let read = 0;
    for (const name of names) {
      const { file } = chosen.get(name);
      checkFileSize(name, file.size);
      await step(t('convert.reading', { name, size: t.megabytes(file.size) }), 0.3 * (read / total));
      const bytes = new Uint8Array(await file.arrayBuffer());
      texts[FILES[name]] = TEXT_FILES.has(name) ? new TextDecoder().decode(bytes) : bytes;
      read += file.size;
    }
    const conversion = startConversion(texts, label, conversionEngine());
    await step(t('convert.convertingAside'), 0.35);
    cancelButton.hidden = !conversion.cancel;
    cancelButton.onclick = conversion.cancel;
    const converted = await conversion.answer;
    cancelButton.hidden = true;
    if (converted === null) { refuse(t('convert.cancelled'), ''); return; }
    if (converted.refused) {
      const { message, reason } = converted.refused;
      refuse(t('convert.refused'), reason ? t(...reason) : message);
      return;
    }
    if (converted.bug) { refuse(t('convert.failed'), converted.bug); return; }
    const { notes } = converted;
    await step(t('convert.checking', { size: t.megabytes(converted.bytes.length) }), 0.8);
    try {
      await useWeights(converted.bytes, label);
    } catch (error) {
      refuse(t('convert.notLoaded'), Number.isInteger(error?.code) ? engineStatusText(t, error.code) : String(error?.message || error));
      return;
    }
    showResult(converted, label, notes);
  }

  function showResult({ bytes, tensors }, label, notes) {
    status.hidden = true;
    if (downloadUrl) URL.revokeObjectURL(downloadUrl);
    downloadUrl = URL.createObjectURL(new Blob([bytes], { type: 'application/octet-stream' }));
    const fileName = `${label.replace(/[^A-Za-z0-9._-]+/g, '-')}.bin`;
    replaceChildrenOf(result, [
      html('p', { class: 'converted', text: t('convert.converted', { label, size: t.megabytes(bytes.length) }) }),
      ...precisionSummary(t, tensors),
      notes.length ? html('ul', { class: 'converter-notes' }, notes.map((n) => html('li', { text: n.code ? t(n.code, n.params) : n.text }))) : null,
      html('p', {}, [
        html('a', { class: 'download', href: downloadUrl, download: fileName, text: t('convert.download', { file: fileName }) }),
        t('convert.ship', { file: fileName }),
      ]),
    ]);
    result.hidden = false;
  }

  const fromInput = (input) => convertEntries([...input.files].map((file) => ({ file, path: file.webkitRelativePath || file.name })));
  folderInput.addEventListener('change', () => fromInput(folderInput));
  filesInput.addEventListener('change', () => fromInput(filesInput));
  drop.addEventListener('dragover', (event) => { event.preventDefault(); drop.classList.add('over'); });
  drop.addEventListener('dragleave', () => drop.classList.remove('over'));
  drop.addEventListener('drop', async (event) => {
    event.preventDefault();
    drop.classList.remove('over');
    convertEntries(await droppedEntries(event.dataTransfer));
  });
  return host;
}
