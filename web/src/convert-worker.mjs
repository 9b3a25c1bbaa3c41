// The panel's converter in a Worker (tools/build-web.mjs bundles it and gives its text to the
// page, which starts it from a blob URL): the page stays responsive while a checkpoint, hostile
// or not, is converted, and Cancel ends the worker.
import { runConversion } from './convert-run.mjs';
import { Engine } from './engine.mjs';

self.postMessage({ ready: true });  // started: the page's policy allowed this worker
self.onmessage = ({ data: { files, label, wasm } }) => {
  const answer = runConversion(files, label, wasm ? { Engine, wasm } : null);
  self.postMessage(answer, answer.bytes ? [answer.bytes.buffer] : []);
};
