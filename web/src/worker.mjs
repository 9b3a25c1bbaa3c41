// The page's worker (tools/build-web.mjs bundles it and gives its text to the page, which starts
// it from a blob URL, as a page opened from file:// can): the panel's converter, so the page
// stays responsive while a checkpoint, hostile or not, is converted (Cancel ends the worker);
// and a share of the mean head importance (importance-workers.mjs), so that it runs on the
// machine's other cores and never on the page's thread.
import { runConversion } from './convert-run.mjs';
import { Engine } from './engine.mjs';
import { importanceShare } from './importance-run.mjs';

self.postMessage({ ready: true });  // started: the page's policy allowed this worker
self.onmessage = async ({ data }) => {
  if (data.importance) {
    const answer = await importanceShare(data.importance, (progress) => self.postMessage({ progress }));
    self.postMessage(answer);
    return;
  }
  const { files, label, wasm } = data;
  const answer = runConversion(files, label, wasm ? { Engine, wasm } : null);
  self.postMessage(answer, answer.bytes ? [answer.bytes.buffer] : []);
};
