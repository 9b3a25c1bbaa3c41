// The browser side of bench/profile.mjs: the engine loaded as the explorer loads it
// (web/src/loader.mjs), the profiling module and the peak fetched from the server.
import { loadEngine } from '../web/src/loader.mjs';
import { loadPeak } from './measure.mjs';
import { engineTimer, loadProfiler, profileLengths } from './profile-core.mjs';

async function bytes(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

window.profileRun = async ({ wasm, weights, profile, peak, lengths, repeats }) => {
  const engine = await loadEngine({ assetBase: new URL('/web/dist/', location.href).href, wasm, weights });
  const profiler = await loadProfiler(await bytes(profile), await bytes(weights));
  const peakRates = peak ? await loadPeak(await bytes(peak)) : null;
  for (let i = 0; i < 6; i++) peakRates?.measure();
  const { sentences } = await (await fetch('/tests/fixtures/attention.json')).json();
  return profileLengths({ profiler, timer: engineTimer(engine), peak: peakRates, sentences, lengths, repeats,
    log: (line) => console.log(line) });
};
window.profileReady = true;
