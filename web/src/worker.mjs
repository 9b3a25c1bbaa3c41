// The page's worker (tools/build-web.mjs bundles it and gives its text to the page, which starts
// it from a blob URL, as a page opened from file:// can): the panel's converter, so the page
// stays responsive while a checkpoint, hostile or not, is converted (Cancel ends the worker);
// or one of importance-workers.mjs's pool, which loads the page's model once ({load}) and runs
// shares of the mean head importance ({importance, job}; {cancel: job} stops one), so that it
// runs on the machine's other cores and never on the page's thread.
import { runConversion } from './convert-run.mjs';
import { Engine } from './engine.mjs';
import { importanceShare, shareEngine } from './importance-run.mjs';

let modelSent;
// {engine}, or a share's failure answer, once the model has been sent (jobs may come before it)
const loaded = new Promise((resolve) => { modelSent = resolve; });
const cancelled = new Set();

self.postMessage({ ready: true });  // started: the page's policy allowed this worker
self.onmessage = async ({ data }) => {
  if (data.load) {
    modelSent(shareEngine(data.load));
  } else if (data.cancel) {
    cancelled.add(data.cancel);
  } else if (data.importance) {
    const { job } = data;
    const start = await loaded;
    const answer = start.engine
      ? await importanceShare(start.engine, data.importance, (progress) => self.postMessage({ job, progress }), () => cancelled.has(job))
      : start;
    cancelled.delete(job);
    self.postMessage({ job, ...answer });
  } else {
    const { files, label, wasm } = data;
    const answer = runConversion(files, label, wasm ? { Engine, wasm } : null);
    self.postMessage(answer, answer.bytes ? [answer.bytes.buffer] : []);
  }
};
