// <attention-explorer>: the custom element. It owns one engine Session, the controls and
// the current view; the engine itself (and the one copy of the weights) is shared by every
// explorer on the page through loader.mjs.

import { html, replaceChildrenOf, sharedStyleSheet } from './dom.mjs';
import { loadEngine, weightsProgressText } from './loader.mjs';
import { STATUS } from './engine.mjs';
import { Engine } from './engine.mjs';
import { convertPanel } from './convert-panel.mjs';
import { EXPLORER_CSS } from './styles.mjs';
import {
  DEFAULT_SENTENCE, CONTROL_NAMES, readControls, readHashControls, resolveControls, writeHash, cleanSentence,
  MAX_SENTENCE_CHARS, parseTokenSpec, resolveTokenSpec, tokenSpecOf, findSameToken, quoteGiven,
} from './view-state.mjs';
import { VIEWS, VIEW_IDS, viewById } from './views/index.mjs';
import { predictionCaveat, NO_MLM_HEAD } from './views/mlm.mjs';
import { modelCardPanel } from './model-card.mjs';
import { headName, changeOneWord, fileSafe, isSpecialToken, percent, megabytes } from './format.mjs';
import { saveSvg, savePng } from './export.mjs';

const OBSERVED = [...CONTROL_NAMES, 'theme'];
const HEAVY_RUN_MS = 45;       // runs slower than this wait for a pause in typing
const HEAVY_TOKENS = 96;       // so do runs on longer texts
const TYPING_PAUSE_MS = 220;
const LONG_FIGURE_TOKENS = 40;
let firstRowMarked = false;
const explorerSheet = sharedStyleSheet(EXPLORER_CSS);

/** Calls fn once on the next animation frame (or after 50 ms if frames are not running). */
function nextFrame(fn) {
  let done = false;
  const once = () => { if (!done) { done = true; fn(); } };
  requestAnimationFrame(once);
  setTimeout(once, 50);
}

/** Keyboard movement in a one-dimensional list: the new index, or null for other keys. */
function listMove(key, index, count) {
  switch (key) {
    case 'ArrowLeft': case 'ArrowUp': return Math.max(0, index - 1);
    case 'ArrowRight': case 'ArrowDown': return Math.min(count - 1, index + 1);
    case 'Home': return 0;
    case 'End': return count - 1;
    default: return null;
  }
}

let explorerCount = 0;

// The weights file converted in the page, with its engine and the explorers showing it. It runs
// in the page engine's wasm instance (the same module and memory), beside the default model.
let converted = null;

function convertedModel(pageEngine, bytes) {
  if (converted?.bytes !== bytes) converted = { bytes, engine: new Engine(pageEngine.x, pageEngine.heap.memory, bytes), users: new Set() };
  return converted;
}

/** Shows a converted weights file in every explorer of the document. */
function useWeightsEverywhere(bytes, label) {
  return Promise.all([...document.querySelectorAll('attention-explorer')].map((explorer) => explorer.useWeights(bytes, label)));
}

export class AttentionExplorer extends HTMLElement {
  static get observedAttributes() { return OBSERVED; }

  constructor() {
    super();
    this.uid = `ae${++explorerCount}`;
    this.state = {
      sentence: DEFAULT_SENTENCE, layer: 0, head: 0, token: 1, view: VIEWS[0].id, rolloutLayer: null, whatIf: false,
      compareSentence: null, matrixCursor: null, matrixZoom: 0, scale: 'auto', hideSpecial: false,
    };
    this.tokenSpec = null;       // a token asked for by an attribute or the hash, resolved after the run
    this.tokenIdentity = null;   // the chosen token's text and occurrence, kept across edits
    this.engine = null;
    this.session = null;
    this.compareSession = null;
    this.run = null;
    this.compareRun = null;
    this.lastRunMs = 0;
    this.frameBusy = false;
    this.frameQueued = false;
    this.pauseTimer = 0;
    this.inputStart = null;
    this.figureWidth = 0;
    this.ready = new Promise((resolve, reject) => { this.resolveReady = resolve; this.rejectReady = reject; });
    this.ready.catch(() => {});
  }

  connectedCallback() {
    if (!this.shadowRoot) this.buildDom();
    this.pendingControls = [{ source: 'attribute', raw: readControls((name) => this.getAttribute(name)) }];
    if (this.hasAttribute('hash')) {
      this.pendingControls.push({ source: 'URL', raw: readHashControls(location.hash) });
      this.onHashChange = () => {
        this.applyControls(readHashControls(location.hash), 'URL');
        this.refresh();
      };
      window.addEventListener('hashchange', this.onHashChange);
    }
    const sentence = this.pendingControls.map((c) => c.raw.sentence).filter((t) => t !== undefined).pop();
    if (sentence !== undefined) this.parts.sentence.value = this.state.sentence = cleanSentence(sentence);
    this.themeQuery = matchMedia('(prefers-color-scheme: dark)');
    this.onThemeChange = () => this.renderView();
    this.themeQuery.addEventListener('change', this.onThemeChange);
    this.resizeObserver = new ResizeObserver(() => this.onResize());
    this.resizeObserver.observe(this.parts.panel);
    this.start();
  }

  disconnectedCallback() {
    if (this.onHashChange) window.removeEventListener('hashchange', this.onHashChange);
    this.themeQuery?.removeEventListener('change', this.onThemeChange);
    this.resizeObserver?.disconnect();
    this.stopListening?.();
    this.stopListening = null;
    this.session?.destroy();
    this.compareSession?.destroy();
    this.session = this.compareSession = null;
  }

  attributeChangedCallback(name, old, value) {
    if (!this.parts || !this.engine || old === value) return;
    if (name === 'theme') { this.checkTheme(); this.renderView(); return; }
    if (value === null) return;
    this.applyControls({ [name]: value }, 'attribute');
    this.refresh();
  }

  // ---- loading -------------------------------------------------------------------------

  async start() {
    if (this.engine) { this.listenToWeights(); this.openSession(); return; }
    const assetBase = this.getAttribute('assets') || AttentionExplorer.assetBase;
    try {
      this.engine = await loadEngine({
        assetBase, wasm: this.getAttribute('wasm'), weights: this.getAttribute('weights'),
      }, (progress) => this.showProgress(progress));
    } catch (error) {
      this.showError(error);
      this.rejectReady(error);
      return;
    }
    if (!this.isConnected) return;
    this.listenToWeights();
    this.openSession();
    this.resolveReady(this);
  }

  /**
   * Shows another model: `bytes`, a weights file (the page's converter makes one). Explorers
   * given the same bytes share one engine. Rejects with the engine's EngineError when it
   * refuses the file.
   */
  async useWeights(bytes, label) {
    await this.ready;
    const model = convertedModel(this.engine, bytes);
    this.session?.destroy();
    this.compareSession?.destroy();
    this.session = this.compareSession = this.run = this.compareRun = null;
    if (this.model !== model) {
      this.releaseModel();
      model.users.add(this);
      this.model = model;
    }
    this.engine = model.engine;
    this.listenToWeights();  // a converted model is whole: the default model's parts no longer matter here
    const { layers, heads } = this.engine.shape;
    Object.assign(this.state, { layer: Math.min(this.state.layer, layers - 1), head: Math.min(this.state.head, heads - 1), rolloutLayer: null });
    this.tokenKey = null;
    this.controlsBuilt = false;
    this.dataset.model = label;
    this.openSession();
  }

  /** Arrivals and failures of the engine's weights parts, until disconnected or another model is shown. */
  listenToWeights() {
    this.stopListening?.();
    this.stopListening = this.engine.loading?.onChange((state) => this.onWeightsArrived(state)) ?? null;
  }

  /** A converted model no explorer shows any more is freed. */
  releaseModel() {
    const model = this.model;
    this.model = null;
    if (!model) return;
    model.users.delete(this);
    if (model.users.size) return;
    model.engine.destroy();
    if (converted === model) converted = null;
  }

  /** A part of the weights arrived (or was refused): what waited for it is drawn again. */
  onWeightsArrived({ missing, error, background }) {
    // A part fetched while idle that the network failed to bring is fetched again when a run
    // needs it; a part the engine refused (its bytes are corrupted) is said at once.
    if (error) { if (!background || Number.isInteger(error.code)) this.showFirstError(error); return; }
    if (!this.run || !this.isConnected) return;
    if (!this.parts.maskPredictions.hidden) this.updateMaskPredictions();
    if (this.state.view === 'mlm' && (missing === 0 || missing % 8 === 0)) this.renderView();
  }

  /** A run that needs rows of the weights not yet arrived: they are fetched first. */
  waitForWeights(text = this.state.sentence) {
    const sentence = this.state.sentence;
    this.engine.loading.ensureText(text).then(() => {
      if (this.state.sentence === sentence && this.isConnected) this.runNow();
    }, (error) => this.showFirstError(error));
  }

  /** The first part of the weights refused or missing is the one named; later ones follow from it.
   * A drawn explorer keeps its figure: the notice goes in place of the view that needs the part,
   * with a control that fetches it again. */
  showFirstError(error) {
    const drawn = this.run && !this.parts.main.hidden;
    if (drawn && !Number.isInteger(error.code)) this.showMissingWeights(error);
    else if (this.parts.error.hidden) this.showError(error, { keepFigure: drawn });
  }

  showMissingWeights(error) {
    const retry = () => {
      this.engine.loading.ensure(this.engine.loading.failedParts(), 'high')
        .then(() => { if (this.isConnected) this.runNow(); }, (again) => this.showMissingWeights(again));
    };
    this.currentFigure = null;
    replaceChildrenOf(this.parts.figureBox, html('div', { class: 'error weights-missing', role: 'alert' }, [
      html('strong', { text: 'This view needs a part of the model weights that could not be loaded.' }),
      html('span', { class: 'error-message', text: error.message }),
      html('button', { type: 'button', class: 'small-button retry-weights', text: 'Try again', onclick: retry }),
    ]));
    this.parts.notes.replaceChildren();
    this.markDrawn();
  }

  openSession() {
    if (!this.session) this.session = this.engine.createSession();
    if (!this.controlsBuilt) this.buildShapeControls();
    for (const { raw, source } of this.pendingControls || []) this.applyControls(raw, source);
    this.pendingControls = [];
    this.checkTheme();
    this.parts.status.hidden = true;
    this.parts.main.hidden = false;
    this.syncControls();
    this.runNow();
  }

  showProgress({ message, loaded, total }) {
    const { statusText, progress, progressBar } = this.parts;
    const known = total > 1;
    statusText.textContent = known
      ? `${message[0].toUpperCase()}${message.slice(1)}: ${megabytes(loaded)} of ${megabytes(total)}\u2026`
      : `${message[0].toUpperCase()}${message.slice(1)}\u2026`;
    progress.classList.toggle('indeterminate', !known && total === 0);
    progressBar.style.width = known ? `${Math.min(100, (100 * loaded) / total).toFixed(1)}%` : total === 1 ? '100%' : '';
    progress.setAttribute('aria-valuenow', known ? String(Math.round((100 * loaded) / total)) : '');
  }

  showError(error, { keepFigure = false } = {}) {
    this.parts.status.hidden = true;
    this.parts.main.hidden = !keepFigure;
    const headline = {
      weights: 'the model weights could not be loaded or were refused',
      wasm: 'the engine (WebAssembly) could not be loaded',
    }[error.part] ?? 'the engine failed';
    replaceChildrenOf(this.parts.error, [
      html('strong', { text: `The attention explorer could not start: ${headline}.` }),
      html('span', { class: 'error-message', text: error.message }),
      Number.isInteger(error.code) && error.part ? html('span', { text: ` (engine code ${error.code})` }) : null,
    ]);
    this.parts.error.dataset.part = error.part || 'unknown';
    if (Number.isInteger(error.code) && error.part) this.parts.error.dataset.code = String(error.code);
    this.parts.error.hidden = false;
  }

  /** A view that could not be drawn says so in place of its figure; the rest keeps working. */
  showViewError(error) {
    this.currentFigure = null;
    replaceChildrenOf(this.parts.figureBox, html('p', { class: 'error', role: 'alert' }, [
      html('strong', { text: 'This view could not be drawn.' }), html('span', { text: String(error.message || error) }),
    ]));
    this.parts.notes.replaceChildren();
    this.markDrawn();
  }

  // ---- state ---------------------------------------------------------------------------

  /**
   * Applies raw control texts (from attributes or the URL hash) checked against the loaded
   * model; each value that cannot be used is reported (console and a visible notice).
   */
  applyControls(raw, source) {
    const { layers, heads } = this.engine.shape;
    const { settings, problems } = resolveControls(raw, { layers, heads, viewIds: VIEW_IDS, current: this.state });
    const { tokenSpec, ...rest } = settings;
    Object.assign(this.state, rest);
    if ('sentence' in rest && this.parts.sentence.value !== this.state.sentence) this.parts.sentence.value = this.state.sentence;
    if ('compareSentence' in rest) this.compareRun = null;
    if (tokenSpec !== undefined) {
      const spec = parseTokenSpec(tokenSpec);
      if (spec) this.tokenSpec = { spec, given: tokenSpec, source };
      else problems.push({ name: 'token', given: tokenSpec, used: null });
    }
    this.reportProblems(problems.map((p) => ({ ...p, source })));
  }

  /** Console warnings and a visible notice naming each unusable value and what is used instead. */
  reportProblems(problems) {
    if (!problems.length) return;
    this.problems = [...(this.problems || []), ...problems].slice(-8);
    for (const p of problems) {
      console.warn(`<attention-explorer>: ${p.source} ${p.name}=${JSON.stringify(p.given)} cannot be used; ${p.used ?? 'ignored'}.`);
    }
    replaceChildrenOf(this.parts.problems, this.problems.map((p) => html('li', {}, [
      html('code', { text: `${p.name}=` }), quoteGiven(p.given), ` (${p.source}) cannot be used: showing ${p.used ?? 'the default'} instead.`,
    ])));
    this.parts.problemBox.hidden = false;
  }

  refresh() {
    this.syncControls();
    if (this.session) this.runNow();
  }

  setSelection(changes, focusTarget = null) {
    Object.assign(this.state, changes);
    if ('token' in changes && this.run) this.tokenIdentity = tokenSpecOf(changes.token, this.run.tokens);
    this.syncControls();
    this.renderView();
    this.updateHash();
    if (focusTarget) this.focusPart(focusTarget);
  }

  focusPart(target) {
    const root = this.shadowRoot;
    const selectors = {
      token: '.token[aria-selected="true"]', layer: '.layer-picker [aria-checked="true"]',
      head: '.head-picker [aria-checked="true"]', tab: '.tab[aria-selected="true"]',
      cell: '.head-cell.selected', rollout: '.rollout-picker [aria-checked="true"]', matrix: '.figure-box svg',
      lines: '.hv-left[tabindex="0"]',
    };
    root.querySelector(selectors[target] ?? target)?.focus();
  }

  /** Keeps the URL hash in step, a moment after the last change (replaceState is slow). */
  updateHash() {
    if (!this.hasAttribute('hash') || !this.run) return;
    clearTimeout(this.hashTimer);
    this.hashTimer = setTimeout(() => {
      const hash = writeHash(this.state);
      if (location.hash !== hash) history.replaceState(null, '', hash);
    }, 150);
  }

  // ---- running the model ---------------------------------------------------------------

  /** Called on every keystroke: runs now, or once per frame, or after a pause for long text. */
  requestRun() {
    if (!this.session) return;
    if (this.isHeavy()) {
      clearTimeout(this.pauseTimer);
      this.parts.busy.hidden = false;
      this.pauseTimer = setTimeout(() => this.runNow(), TYPING_PAUSE_MS);
      return;
    }
    if (this.frameBusy) {
      if (!this.frameQueued) {
        this.frameQueued = true;
        nextFrame(() => { this.frameQueued = false; this.runNow(); });
      }
      return;
    }
    this.runNow();
  }

  /** Whether runs are slow enough that typing should not wait for them. The first run of a
   * page is slow (the wasm warms up), so the faster of the last two runs decides. */
  isHeavy() {
    const recent = this.runTimes || [];
    const fastest = recent.length >= 2 ? Math.min(...recent) : 0;
    return (this.run?.n ?? 0) > HEAVY_TOKENS || fastest > HEAVY_RUN_MS;
  }

  runNow() {
    if (!this.session) return;
    this.frameBusy = true;
    nextFrame(() => { this.frameBusy = false; });
    this.parts.busy.hidden = true;
    const started = performance.now();
    try {
      this.run = this.session.runText(this.state.sentence);
    } catch (error) {
      if (error.code === STATUS.NOT_LOADED && this.engine.loading) this.waitForWeights();
      else this.showViewError(error);
      return;
    }
    this.lastRunMs = performance.now() - started;
    this.runTimes = [...(this.runTimes || []).slice(-1), this.lastRunMs];
    performance.measure('attn-run', { start: started, end: started + this.lastRunMs });
    this.chooseToken();
    if (viewById(this.state.view)?.needsCompare) {
      try {
        this.runCompare();
      } catch (error) {
        if (error.code !== STATUS.NOT_LOADED || !this.engine.loading) throw error;
        this.waitForWeights(this.compareText());
        return;
      }
    }
    const drawing = performance.now();
    this.updateTokens();
    this.renderView();
    this.updateHash();
    performance.measure('attn-draw', { start: drawing, end: performance.now() });
  }

  /**
   * The token after a run: the one an attribute or the hash asked for (index or word), else
   * the same token as before (same text, same occurrence), else the first word.
   */
  chooseToken() {
    const tokens = this.run.tokens;
    let index = null;
    if (this.tokenSpec) {
      const { spec, given, source } = this.tokenSpec;
      this.tokenSpec = null;
      index = resolveTokenSpec(spec, tokens);
      if (index === null) {
        const fallback = Math.min(1, tokens.length - 1);
        this.reportProblems([{ name: 'token', given, source, used: `token ${fallback} \u201c${tokens[fallback]}\u201d (not in this ${tokens.length}-token sentence)` }]);
      }
      if (index !== null) this.tokenIdentity = tokenSpecOf(index, tokens);
    } else if (this.tokenIdentity) {
      index = findSameToken(this.tokenIdentity, tokens);
    } else if (this.state.token < tokens.length) {
      index = this.state.token;
      this.tokenIdentity = tokenSpecOf(index, tokens);
    }
    // A token that is gone (for now: it may come back as the reader types) is remembered;
    // meanwhile the first word is shown.
    this.state.token = index ?? Math.min(1, tokens.length - 1);
  }

  compareText() {
    return this.state.compareSentence ?? changeOneWord(this.state.sentence);
  }

  runCompare() {
    if (!this.compareSession) this.compareSession = this.engine.createSession();
    const text = this.compareText();
    if (this.parts.compareInput.value !== text && this.shadowRoot.activeElement !== this.parts.compareInput) {
      this.parts.compareInput.value = text;
    }
    this.compareRun = this.compareSession.runText(text);
  }

  // ---- tokens --------------------------------------------------------------------------

  updateTokens() {
    const run = this.run;
    const key = run.ids.join(',');
    if (key !== this.tokenKey) {
      this.tokenKey = key;
      const codePoints = [...this.state.sentence];
      replaceChildrenOf(this.parts.tokens, run.tokens.map((token, i) => this.tokenChip(token, i, run.offsets[i], codePoints)));
    }
    this.markSelectedToken();
    const { truncated, fullLength, n } = run;
    const pieces = run.tokens.filter((t) => t.startsWith('##')).length;
    this.parts.tokenCount.textContent = `${n} tokens, including [CLS] and [SEP]` + (pieces ? ` \u00b7 ${pieces} WordPiece continuation${pieces > 1 ? 's' : ''} (##)` : '');
    this.parts.truncation.hidden = !truncated;
    this.parts.truncation.textContent = truncated ? `Truncated to ${n} tokens (the text gives ${fullLength}). Only the first ${n} are shown.` : '';
    this.updateMaskPredictions();
  }

  tokenChip(token, index, [start, end], codePoints) {
    const special = isSpecialToken(token);
    const piece = token.startsWith('##');
    const source = end > start ? codePoints.slice(start, end).join('') : '';
    return html('button', {
      type: 'button', class: `token${special ? ' special' : ''}`, role: 'option', tabindex: -1,
      'aria-selected': 'false', dataset: { token: String(index) },
      title: special ? `token ${index}: ${token} (added by the tokenizer)` : `token ${index}: \u201c${token}\u201d from \u201c${source}\u201d (characters ${start}\u2013${end})`,
      'aria-label': `token ${index}: ${token}`,
    }, [
      html('span', { class: 'index', text: String(index) }),
      html('span', { class: 'piece' }, piece ? [html('span', { class: 'piece-mark', text: '##' }), token.slice(2)] : token),
    ]);
  }

  markSelectedToken() {
    const chips = this.parts.tokens.children;
    const previous = this.parts.tokens.querySelector('[aria-selected="true"]');
    if (previous) { previous.setAttribute('aria-selected', 'false'); previous.tabIndex = -1; }
    const chip = chips[this.state.token];
    if (chip) {
      chip.setAttribute('aria-selected', 'true');
      chip.tabIndex = 0;
      this.parts.tokens.setAttribute('aria-activedescendant', '');
    }
  }

  updateMaskPredictions() {
    const masks = [];
    this.run.tokens.forEach((t, i) => { if (t === '[MASK]') masks.push(i); });
    const box = this.parts.maskPredictions;
    box.hidden = masks.length === 0;
    if (!masks.length) { box.replaceChildren(); return; }
    if (!this.engine.hasMlm()) { replaceChildrenOf(box, html('p', { class: 'mask-caveat', text: NO_MLM_HEAD })); return; }
    if (this.engine.loading && this.engine.partsMissing() > 0) {
      replaceChildrenOf(box, html('p', { class: 'mask-waiting', role: 'status', text: weightsProgressText(this.engine) }));
      this.engine.loading.ensureAll().catch(() => {});  // a refusal is shown by onWeightsArrived
      return;
    }
    replaceChildrenOf(box, [
      masks.slice(0, 4).map((position) => {
        const predictions = this.session.mlm(position, 5);
        return html('p', { class: 'mask-line', dataset: { position: String(position) } }, [
          html('b', { text: `[MASK] at token ${position} \u2192 ` }),
          predictions.map((p, k) => [k ? ' \u00b7 ' : '', html('span', { dataset: { probability: String(p.probability) }, text: `\u201c${p.token}\u201d ${percent(p.probability)}` })]),
        ]);
      }),
      html('p', { class: 'mask-caveat', text: predictionCaveat(this.engine.modelCard()) }),
    ]);
  }

  // ---- views ---------------------------------------------------------------------------

  checkTheme() {
    const given = this.getAttribute('theme');
    if (given !== null && given !== 'light' && given !== 'dark') {
      this.reportProblems([{ name: 'theme', given, source: 'attribute', used: `the reader\u2019s system setting (${this.theme()}; use light or dark)` }]);
    }
  }

  theme() {
    const forced = this.getAttribute('theme');
    if (forced === 'dark' || forced === 'light') return forced;
    return this.themeQuery?.matches ? 'dark' : 'light';
  }

  onResize() {
    const width = Math.floor(this.parts.panel.clientWidth);
    if (!width || Math.abs(width - this.figureWidth) < 2) return;
    if (this.resizeQueued) return;
    this.resizeQueued = true;
    nextFrame(() => { this.resizeQueued = false; this.renderView(); });
  }

  renderView() {
    if (!this.run || !this.session) return;
    const theme = this.theme();
    this.parts.root.classList.toggle('theme-dark', theme === 'dark');
    this.parts.root.classList.toggle('theme-light', theme !== 'dark');
    this.figureWidth = Math.max(300, Math.floor(this.parts.panel.clientWidth || 640));
    const state = this.state;
    if (state.rolloutLayer === null) state.rolloutLayer = this.engine.shape.layers - 1;
    const view = viewById(state.view) ?? VIEWS[0];
    const context = {
      engine: this.engine, session: this.session, run: this.run, state, width: this.figureWidth, theme,
      compare: view.needsCompare ? { session: this.compareSession, run: this.compareRun } : null,
    };
    let result;
    try {
      if (view.needsCompare && !this.compareRun) {
        this.runCompare();
        context.compare = { session: this.compareSession, run: this.compareRun };
      }
      result = view.render(context);
    } catch (error) {
      if (error.code === STATUS.NOT_LOADED && this.engine.loading) this.waitForWeights(this.compareText());
      else this.showViewError(error);
      return;
    }
    this.currentFigure = result.figure;
    result.figure.dataset.view = view.id;
    // Long inputs give figures taller than a screen: they scroll inside their box.
    this.parts.figureBox.classList.toggle('long', this.run.n > LONG_FIGURE_TOKENS);
    replaceChildrenOf(this.parts.figureBox, result.figure);
    replaceChildrenOf(this.parts.notes, result.notes);
    this.parts.hoverReadout.textContent = '';
    this.parts.hoverReadout.hidden = !view.readout;
    result.wire?.(result.figure, this);
    this.scrollChosenIntoView(result.figure);
    this.parts.which.replaceChildren(
      html('strong', { text: headName(state.layer, state.head) }), ' \u00b7 row of ',
      html('strong', { text: `\u201c${this.run.tokens[state.token]}\u201d` }), ` (token ${state.token})`,
    );
    this.markDrawn();
  }

  /** Long figures scroll inside their box: keep the chosen token's row in sight. */
  scrollChosenIntoView(figure) {
    const box = this.parts.figureBox;
    const top = Number(figure.dataset.rowTop), rowHeight = Number(figure.dataset.rowHeight);
    if (!(rowHeight > 0) || box.scrollHeight <= box.clientHeight) { box.scrollTop = 0; return; }
    const y = top + this.state.token * rowHeight;
    if (y < box.scrollTop || y + rowHeight > box.scrollTop + box.clientHeight) box.scrollTop = Math.max(0, y - box.clientHeight / 3);
  }

  markDrawn() {
    performance.mark('attn-redraw');
    if (!firstRowMarked) {
      firstRowMarked = true;
      performance.mark('attn-first-row', { detail: { weightBytes: this.engine?.weightBytesLoaded?.() ?? null } });
    }
    if (this.inputStart !== null) {
      performance.measure('attn-keystroke', { start: this.inputStart, end: performance.now() });
      this.inputStart = null;
    }
    this.dataset.drawn = String((Number(this.dataset.drawn) || 0) + 1);
  }

  // ---- controls ------------------------------------------------------------------------

  syncControls() {
    const { layer, head, view, rolloutLayer, whatIf, scale, hideSpecial } = this.state;
    const check = (group, value) => {
      for (const button of group.children) {
        const on = Number(button.dataset.value) === value;
        button.setAttribute('aria-checked', String(on));
        button.tabIndex = on ? 0 : -1;
      }
    };
    check(this.parts.layerPicker, layer);
    check(this.parts.headPicker, head);
    if (this.engine) check(this.parts.rolloutPicker, rolloutLayer ?? this.engine.shape.layers - 1);
    for (const tab of this.parts.tabs.children) {
      const on = tab.dataset.view === view;
      tab.setAttribute('aria-selected', String(on));
      tab.tabIndex = on ? 0 : -1;
    }
    this.parts.panel.setAttribute('aria-labelledby', `${this.uid}-tab-${view}`);
    this.parts.whatIf.checked = whatIf;
    this.parts.fixedScale.checked = scale === 'fixed';
    this.parts.hideSpecial.checked = hideSpecial;
    const shown = viewById(view)?.controls ?? [];
    for (const [name, element] of Object.entries(this.parts.viewControlParts)) element.hidden = !shown.includes(name);
    this.parts.viewControls.hidden = shown.length === 0;
    if (this.run) this.markSelectedToken();
  }

  /** The pickers whose size is the model's: built once the engine (and its shape) is known. */
  buildShapeControls() {
    const { layers, heads } = this.engine.shape;
    const parts = this.parts;
    parts.layerPicker.replaceWith(parts.layerPicker = this.segmented('Layer', layers, 'layer-picker', (i) => this.setSelection({ layer: i }, 'layer')));
    parts.headPicker.replaceWith(parts.headPicker = this.segmented('Head', heads, 'head-picker', (i) => this.setSelection({ head: i }, 'head')));
    parts.rolloutPicker.replaceWith(parts.rolloutPicker = this.segmented('Rollout through layer', layers, 'rollout-picker', (i) => this.setSelection({ rolloutLayer: i }, 'rollout')));
    parts.whatIfLabel.textContent = `Draw the row without dividing q\u00b7k by \u221ad = ${Number(Math.sqrt(this.engine.shape.headSize).toFixed(2))}`;
    replaceChildrenOf(parts.modelCard, modelCardPanel(this.engine));
    this.controlsBuilt = true;
  }

  segmented(label, count, className, onPick) {
    const group = html('div', { class: `segmented ${className}`, role: 'radiogroup', 'aria-label': label });
    for (let i = 0; i < count; i++) {
      group.append(html('button', {
        type: 'button', role: 'radio', 'aria-checked': 'false', tabindex: -1, dataset: { value: String(i) },
        'aria-label': `${label} ${i + 1}`, text: String(i + 1), onclick: () => onPick(i),
      }));
    }
    group.addEventListener('keydown', (event) => {
      const current = [...group.children].findIndex((b) => b.getAttribute('aria-checked') === 'true');
      const next = listMove(event.key, current, count);
      if (next === null) return;
      event.preventDefault();
      onPick(next);
    });
    return group;
  }

  buildDom() {
    const root = this.attachShadow({ mode: 'open' });
    root.adoptedStyleSheets = [explorerSheet()];
    const id = (name) => `${this.uid}-${name}`;
    const parts = (this.parts = {});
    parts.statusText = html('span', { text: 'Loading the attention explorer\u2026' });
    parts.progressBar = html('div', { class: 'progress-bar' });
    parts.progress = html('div', { class: 'progress indeterminate', role: 'progressbar', 'aria-label': 'Loading', 'aria-valuemin': 0, 'aria-valuemax': 100 }, parts.progressBar);
    parts.status = html('div', { class: 'status', role: 'status', 'aria-live': 'polite' }, [parts.progress, parts.statusText]);
    parts.error = html('div', { class: 'error', role: 'alert', hidden: true });

    parts.sentence = html('textarea', {
      id: id('sentence'), rows: 2, spellcheck: 'false', maxlength: MAX_SENTENCE_CHARS, autocomplete: 'off',
    });
    parts.sentence.value = this.state.sentence;
    parts.sentence.addEventListener('input', (event) => {
      this.inputStart = event.timeStamp;
      this.state.sentence = cleanSentence(parts.sentence.value);
      if (this.state.compareSentence === null) this.compareRun = null;
      this.requestRun();
    });
    parts.tokenCount = html('span', {});
    parts.busy = html('span', { class: 'busy', hidden: true, text: 'updating after you pause typing\u2026' });
    parts.truncation = html('p', { class: 'notice', role: 'status', hidden: true });
    parts.tokens = html('div', {
      class: 'tokens', role: 'listbox', 'aria-orientation': 'horizontal', id: id('tokens'),
      'aria-label': 'Tokens: choose the token whose attention row is shown (arrow keys move)',
    });
    parts.tokens.addEventListener('click', (event) => {
      const chip = event.target.closest('.token');
      if (chip) this.setSelection({ token: Number(chip.dataset.token) }, 'token');
    });
    parts.tokens.addEventListener('keydown', (event) => {
      const next = listMove(event.key, this.state.token, this.run?.n ?? 0);
      if (next === null) return;
      event.preventDefault();
      this.setSelection({ token: next }, 'token');
    });
    parts.maskPredictions = html('div', { class: 'mask-predictions', 'aria-live': 'polite', hidden: true });

    parts.layerPicker = this.segmented('Layer', 0, 'layer-picker', () => {});
    parts.headPicker = this.segmented('Head', 0, 'head-picker', () => {});
    parts.which = html('span', { class: 'which', 'aria-live': 'polite' });

    parts.tabs = html('div', { class: 'tabs', role: 'tablist', 'aria-label': 'Views' },
      VIEWS.map((view) => html('button', {
        type: 'button', role: 'tab', class: 'tab', id: id(`tab-${view.id}`), 'aria-controls': id('panel'),
        dataset: { view: view.id }, text: view.label, tabindex: -1,
        onclick: () => this.selectView(view.id),
      })));
    parts.tabs.addEventListener('keydown', (event) => {
      const index = VIEWS.findIndex((v) => v.id === this.state.view);
      const next = listMove(event.key, index, VIEWS.length);
      if (next === null) return;
      event.preventDefault();
      this.selectView(VIEWS[next].id, true);
    });

    parts.rolloutPicker = this.segmented('Rollout through layer', 0, 'rollout-picker', () => {});
    parts.rolloutControl = html('div', { class: 'view-control' }, [html('span', { class: 'picker-label', text: 'Rollout through layer' }), parts.rolloutPicker]);
    const toggle = (className, tag, label, onChange) => {
      const input = html('input', { type: 'checkbox', class: className });
      input.addEventListener('change', () => onChange(input.checked));
      const text = html('span', { text: label });
      return { input, text, control: html('div', { class: 'view-control' }, [html('label', { class: 'toggle' }, [input, tag, text])]) };
    };
    const whatIf = toggle('whatif-toggle', html('span', { class: 'whatif-tag', text: 'WHAT-IF' }), 'Draw the row without dividing q\u00b7k by \u221ad',
      (on) => this.setSelection({ whatIf: on }));
    parts.whatIf = whatIf.input;
    parts.whatIfLabel = whatIf.text;
    parts.scalingControl = whatIf.control;
    const scale = toggle('scale-toggle', null, 'Fixed 0\u20131 scale (compare heads on one scale)',
      (on) => this.setSelection({ scale: on ? 'fixed' : 'auto' }));
    parts.fixedScale = scale.input;
    const special = toggle('special-toggle', null, 'Hide [CLS] and [SEP] and renormalise the other weights',
      (on) => this.setSelection({ hideSpecial: on }));
    parts.hideSpecial = special.input;
    parts.compareInput = html('textarea', { id: id('compare'), rows: 2, spellcheck: 'false', maxlength: MAX_SENTENCE_CHARS, class: 'compare-input' });
    parts.compareInput.addEventListener('input', (event) => {
      this.inputStart = event.timeStamp;
      this.state.compareSentence = cleanSentence(parts.compareInput.value);
      this.requestRun();
    });
    parts.compareControl = html('div', { class: 'view-control' }, [
      html('div', { class: 'compare-box' }, [
        html('label', { class: 'field-label', for: id('compare') }, ['Sentence B ', html('span', { class: 'field-help', text: '(sentence A is the one above; by default B changes one word)' })]),
        parts.compareInput,
      ]),
      html('button', {
        type: 'button', class: 'small-button', text: 'Reset B to A with one word changed',
        onclick: () => { this.state.compareSentence = null; this.compareRun = null; this.runNow(); },
      }),
    ]);
    parts.viewControlParts = {
      rollout: parts.rolloutControl, whatif: parts.scalingControl, compare: parts.compareControl,
      scale: scale.control, special: special.control,
    };
    parts.viewControls = html('div', { class: 'view-controls' }, Object.values(parts.viewControlParts));
    parts.problems = html('ul', {});
    parts.problemBox = html('div', { class: 'problems', role: 'status', hidden: true }, [
      html('strong', { text: 'Some settings of this explorer could not be used:' }), parts.problems,
    ]);
    parts.modelCard = html('div', { class: 'model-card-box' });
    parts.figureBox = html('div', { class: 'figure-box' });
    parts.hoverReadout = html('p', { class: 'hover-readout', 'aria-live': 'polite', hidden: true });
    parts.notes = html('div', { class: 'notes' });
    parts.actions = html('div', { class: 'actions' }, [
      html('button', { type: 'button', class: 'save-png', text: 'Save PNG', onclick: () => this.exportFigure('png') }),
      html('button', { type: 'button', class: 'save-svg', text: 'Save SVG', onclick: () => this.exportFigure('svg') }),
    ]);
    parts.panel = html('div', { class: 'panel', role: 'tabpanel', id: id('panel') },
      [parts.viewControls, parts.figureBox, parts.hoverReadout, parts.notes, parts.actions]);

    parts.main = html('div', { class: 'main', hidden: true }, [
      parts.problemBox,
      html('label', { class: 'field-label', for: id('sentence') }, ['Sentence ', html('span', { class: 'field-help', text: '(type to update; try [MASK] in place of a word)' })]),
      parts.sentence,
      html('div', { class: 'token-info' }, [parts.tokenCount, parts.busy]),
      parts.truncation,
      parts.tokens,
      parts.maskPredictions,
      html('div', { class: 'pickers' }, [
        html('div', { class: 'picker' }, [html('span', { class: 'picker-label', 'aria-hidden': 'true', text: 'Layer' }), parts.layerPicker]),
        html('div', { class: 'picker' }, [html('span', { class: 'picker-label', 'aria-hidden': 'true', text: 'Head' }), parts.headPicker]),
        parts.which,
      ]),
      parts.tabs,
      parts.panel,
      parts.modelCard,
    ]);
    parts.root = html('div', { class: 'explorer', part: 'explorer' }, [parts.status, parts.error, parts.main]);
    if (this.hasAttribute('allow-convert')) parts.root.append(convertPanel(useWeightsEverywhere));
    root.append(parts.root);
  }

  selectView(view, focusTab = false) {
    this.state.view = view;
    if (viewById(view)?.needsCompare) this.compareRun = null;
    this.setSelection({}, focusTab ? 'tab' : null);
  }

  async exportFigure(format) {
    if (!this.currentFigure) return;
    const s = this.state;
    const name = `attention-${s.view}-layer${s.layer + 1}-head${s.head + 1}-token${s.token}-${fileSafe(this.run.tokens[s.token])}`;
    if (format === 'svg') saveSvg(this.currentFigure, name);
    else await savePng(this.currentFigure, name);
  }
}

AttentionExplorer.assetBase = null;
