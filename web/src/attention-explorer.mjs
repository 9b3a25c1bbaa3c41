// Entry point: defines <attention-explorer>. Built into the classic script
// web/dist/attention-explorer.js by tools/build-web.mjs (module scripts do not load from
// file://); over http this file can also be imported as a module.

import { AttentionExplorer } from './explorer.mjs';
import { engineCount } from './loader.mjs';
import { registerView } from './views/index.mjs';
import { html, svg } from './dom.mjs';
import { figureRoot, tokenBarFigure } from './charts.mjs';
import { enumParam, switchParam, layerParam } from './view-state.mjs';

/** Where the built assets (attn.wasm, *.js) live: next to the script that defined us. */
function defaultAssetBase() {
  const script = document.currentScript;
  if (script && script.src) return new URL('./', script.src).href;
  try {
    return new URL('./dist/', document.baseURI).href;
  } catch {
    return null;  // a page with no address to resolve against (about:srcdoc): explorers name theirs (assets=)
  }
}

AttentionExplorer.assetBase = defaultAssetBase();
if (!customElements.get('attention-explorer')) customElements.define('attention-explorer', AttentionExplorer);
// registerView(view) adds a view (views/index.mjs says what a view declares) from a page's own
// script; helpers are the pieces the project's views are made of.
const helpers = { html, svg, figureRoot, tokenBarFigure, enumParam, switchParam, layerParam };
globalThis.AttentionExplorerPage = { engineCount, registerView, helpers };
