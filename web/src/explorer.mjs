// <attention-explorer>: the custom element. It composes parts that own their state, each given
// what it needs of the element through a small host interface: a model loader
// (explorer/models.mjs: the engine shown, the page's or a converted one, and the watch on its
// weights), a run scheduler (explorer/scheduler.mjs: the engine sessions, sentence B's included,
// and their runs), the settings (explorer/settings.mjs: attributes, hash, selection, heads
// switched off, the token kept across edits), the load messages (explorer/loading.mjs: what is
// said while loading and on errors), the token strip (explorer/token-strip.mjs) and the control
// panel (explorer/dom.mjs, with the shadow DOM). The page's engine (and the one copy of the
// weights) is shared by every explorer through loader.mjs. This file is the element's life cycle
// and the drawing of a view. A view declares what it needs (views/index.mjs): nothing here names one.

import { html, replaceChildrenOf } from './dom.mjs';
import { STATUS } from './engine.mjs';
import { readControls, readHashControls, controlNames, initialState, cleanSentence, isHeadOff } from './view-state.mjs';
import { VIEWS, viewById, layersShown, fitStateToShape } from './views/index.mjs';
import { headName, fileSafe } from './format.mjs';
import { messageFigure } from './figures.mjs';
import { saveSvg, savePng } from './export.mjs';
import { translator, languageFor } from './i18n/index.mjs';
import { LoadMessages } from './explorer/loading.mjs';
import { Settings } from './explorer/settings.mjs';
import { RunScheduler, nextFrame } from './explorer/scheduler.mjs';
import { TokenStrip } from './explorer/token-strip.mjs';
import { buildDom, ControlPanel } from './explorer/dom.mjs';
import { ModelLoader } from './explorer/models.mjs';
import { languageWatcher } from './explorer/language.mjs';

const LONG_FIGURE_TOKENS = 40;
const ROWS_AROUND = 24;  // rows drawn beyond those in sight, so a short scroll finds them there

/** The parts of a figure that draw their rows as they come into sight: itself, or figures stacked in it. */
const lazyFigures = (figure) => [figure, ...figure.querySelectorAll('svg')].filter((f) => f.dataset.lazyRows !== undefined && f.drawRows);
const CONTROL_MODES = ['full', 'compact', 'none'];
const english = translator('en');
let firstRowMarked = false;
let explorerCount = 0;

export class AttentionExplorer extends HTMLElement {
  static get observedAttributes() { return [...controlNames(VIEWS), 'theme', 'lang', 'controls']; }

  constructor() {
    super();
    this.uid = `ae${++explorerCount}`;
    this.state = initialState(VIEWS);
    this.loader = new ModelLoader(this, (weights) => this.messages.weightsArrived(weights));
    this.runs = new RunScheduler(this.runHost());
    this.settings = new Settings(this.settingsHost());
    this.messages = new LoadMessages(this.loadHost());
    this.tokens = new TokenStrip(this.tokenHost());
    this.controlPanel = new ControlPanel(this.controlHost());
    this.inputStart = null;
    this.figureWidth = 0;
    this.t = english;
    this.tEnglish = english;     // console warnings stay in English
    this.ready = new Promise((resolve, reject) => { this.resolveReady = resolve; this.rejectReady = reject; });
    this.ready.catch(() => {});
  }

  partId(name) { return `${this.uid}-${name}`; }

  // The loader's engine and model, the scheduler's sessions and runs, as the rest of the element
  // (and a page's script) reads them.
  get engine() { return this.loader.engine; }
  get model() { return this.loader.model; }
  get session() { return this.runs.session; }
  get run() { return this.runs.run; }
  get compareSession() { return this.runs.compareSession; }
  get compareRun() { return this.runs.compareRun; }
  get runJob() { return this.runs.job; }
  get frameQueued() { return this.runs.frameQueued; }
  get lastRunMs() { return this.runs.lastRunMs; }

  runNow() { this.runs.runNow(); }

  /** The pickers, the model card and the views' controls, built again for the model's shape. */
  buildShapeControls() { this.controlPanel.buildShape(); }

  /**
   * A host interface for one of the element's parts: `methods`, with the state, the model,
   * sentence A's run, the DOM parts and the language read as they are when the part reads them.
   */
  hostWith(methods) {
    const explorer = this;
    return Object.defineProperties(methods, Object.getOwnPropertyDescriptors({
      get state() { return explorer.state; },
      get engine() { return explorer.engine; },
      get run() { return explorer.run; },
      get parts() { return explorer.parts; },
      get t() { return explorer.t; },
    }));
  }

  /** What the run scheduler reads of this element and tells it (RunScheduler's `host`). */
  runHost() {
    const explorer = this;
    return {
      get state() { return explorer.state; },
      get engine() { return explorer.engine; },
      connected: () => this.isConnected,
      began: () => { this.settings.chooseToken(); this.tokens.update(); },
      draw: () => {
        const drawing = performance.now();
        this.renderView();
        this.settings.updateHash();
        performance.measure('attn-draw', { start: drawing, end: performance.now() });
      },
      finished: () => this.tokens.updateMaskPredictions(),
      failed: (error) => this.messages.runFailed(error),
      compareFailed: (error) => this.messages.showViewError(error),
      needsWeights: (text) => this.messages.waitForWeights(text),
      weightsFailed: (error) => this.messages.showFirstError(error),
      waiting: () => this.renderView(),
      busy: (on) => { this.parts.busy.hidden = !on; },
      compareBegan: () => this.controlPanel.syncView(),
    };
  }

  /** What the settings read of this element and ask of it (Settings' `host`). */
  settingsHost() {
    const explorer = this;
    return this.hostWith({
      get tEnglish() { return explorer.tEnglish; },
      attribute: (name) => this.getAttribute(name),
      keepsHash: () => this.hasAttribute('hash'),
      prefersDark: () => Boolean(this.themeQuery?.matches),
      find: (selector) => this.shadowRoot.querySelector(selector),
      syncControls: () => this.controlPanel.sync(),
      draw: () => this.renderView(),
      runNow: () => this.runNow(),
      request: () => this.runs.request(),
      forgetCompare: () => this.runs.forgetCompare(),
      typedAt: (time) => { this.inputStart = time; },
    });
  }

  /** What the load messages read of this element and ask of it (LoadMessages' `host`). */
  loadHost() {
    return this.hostWith({
      connected: () => this.isConnected,
      runNow: () => this.runNow(),
      draw: () => this.renderView(),
      replacedFigure: () => { this.currentFigure = null; this.markDrawn(); },
      waitingLayer: () => this.runs.waitingLayer,
      viewDrawnWhileWaiting: () => Boolean(this.runs.job?.drawn),
      predictionsShown: () => this.tokens.predictionsShown(),
      updatePredictions: () => this.tokens.updateMaskPredictions(),
      forgetRun: () => { this.runs.forgetRuns(); this.tokens.clear(); },
    });
  }

  /** What the token strip reads of this element (TokenStrip's `host`). */
  tokenHost() {
    const explorer = this;
    return this.hostWith({
      get session() { return explorer.session; },
      waitingLayer: () => this.runs.waitingLayer,
    });
  }

  /** What the control panel reads of this element and asks of it (ControlPanel's `host`). */
  controlHost() {
    return this.hostWith({
      partId: (name) => this.partId(name),
      viewInterface: () => this.viewInterface(),
      select: (changes, focus) => this.settings.setSelection(changes, focus),
      markSelectedToken: () => this.tokens.markSelected(),
    });
  }

  connectedCallback() {
    this.language = languageWatcher(this, () => this.onLanguageChange());
    this.t = translator(languageFor(this.language.tag()));
    if (!this.shadowRoot) buildDom(this);
    const names = controlNames(VIEWS);
    this.pendingControls = [{ source: 'attribute', raw: readControls((name) => this.getAttribute(name), names) }];
    if (this.hasAttribute('hash')) {
      this.pendingControls.push({ source: 'URL', raw: readHashControls(location.hash, names) });
      this.onHashChange = () => {
        this.settings.apply(readHashControls(location.hash, names), 'URL');
        this.settings.refresh();
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
    this.language?.stop();
    this.loader.unwatch();
    this.runs.close();
  }

  attributeChangedCallback(name, old, value) {
    if (name === 'lang') { this.onLanguageChange(); return; }
    if (!this.parts || !this.engine || old === value) return;
    if (name === 'theme') { this.settings.checkTheme(); this.renderView(); return; }
    if (name === 'controls') { this.controlsChecked = false; this.renderView(); return; }
    if (value === null) return;
    this.settings.apply({ [name]: value }, 'attribute');
    this.settings.refresh();
  }

  /** Loads the page's engine (or finds it loaded), then opens a session on it. */
  async start() {
    if (this.engine) { this.loader.watch(); this.openSession(); return; }
    const assetBase = this.getAttribute('assets') || this.constructor.assetBase;
    try {
      await this.loader.load({
        assetBase, wasm: this.getAttribute('wasm'), weights: this.getAttribute('weights'),
      }, (progress) => this.messages.showProgress(progress));
    } catch (error) {
      this.messages.showError(error);
      this.rejectReady(error);
      return;
    }
    if (!this.isConnected) return;
    this.loader.watch();
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
    this.loader.use(bytes, () => this.runs.close());
    const { layers, heads } = this.engine.shape;
    Object.assign(this.state, { layer: Math.min(this.state.layer, layers - 1), head: Math.min(this.state.head, heads - 1) });
    fitStateToShape(this.state, this.engine.shape, true);
    this.tokens.forget();
    this.controlPanel.forget();
    this.dataset.model = label;
    this.openSession();
  }

  /** A session on the engine: the controls its shape sizes, the settings given until now, a run. */
  openSession() {
    this.runs.open(this.engine);
    if (!this.controlPanel.built) this.controlPanel.buildShape();
    for (const { raw, source } of this.pendingControls || []) this.settings.apply(raw, source);
    this.pendingControls = [];
    fitStateToShape(this.state, this.engine.shape);
    this.settings.checkTheme();
    this.parts.status.hidden = true;
    this.parts.main.hidden = false;
    this.controlPanel.sync();
    this.runNow();
  }

  /** The language changed (this element's or an ancestor's lang): everything is drawn again in it. */
  onLanguageChange() {
    if (!this.parts || !this.language) return;
    const lang = languageFor(this.language.tag());
    if (lang === this.t.lang) return;
    this.t = translator(lang);
    buildDom(this);
    this.resizeObserver?.disconnect();
    this.resizeObserver?.observe(this.parts.panel);
    if (this.messages.sayAgain()) return;
    this.tokens.forget();
    this.controlPanel.buildShape();
    this.settings.showProblems();
    this.parts.status.hidden = true;
    this.parts.main.hidden = false;
    this.controlPanel.sync();
    if (this.run) { this.tokens.update(); this.renderView(); }
  }

  /** What a view's controls and wire get: the state to read and a few ways to change it. */
  viewInterface() {
    const explorer = this;
    return {
      get state() { return explorer.state; },
      get shape() { return explorer.engine.shape; },
      get tokens() { return explorer.run?.tokens ?? []; },
      get t() { return explorer.t; },
      id: (name) => explorer.partId(name),
      select: (changes, focus) => explorer.settings.setSelection(changes, focus),
      type: (changes, event) => explorer.settings.typed(changes, event),
      runNow: (changes) => { Object.assign(explorer.state, changes); explorer.runs.forgetCompare(); explorer.runNow(); },
      toggleHead: (layer, head, focus) => explorer.settings.toggleHead(layer, head, focus),
      isOff: (layer, head) => isHeadOff(explorer.state, layer, head),
      get readout() { return explorer.parts.hoverReadout; },
      get notes() { return explorer.parts.notes; },
    };
  }

  onResize() {
    const width = Math.floor(this.parts.panel.clientWidth);
    this.panelWidth = width;  // read here, where layout is clean: a redraw does not force one
    if (!width || Math.abs(width - this.figureWidth) < 2) return;
    if (this.resizeQueued) return;
    this.resizeQueued = true;
    nextFrame(() => { this.resizeQueued = false; this.renderView(); });
  }

  renderView() {
    if (!this.run || !this.session) return;
    const theme = this.settings.theme();
    const t = this.t;
    this.parts.root.classList.toggle('theme-dark', theme === 'dark');
    this.parts.root.classList.toggle('theme-light', theme !== 'dark');
    this.applyControlsMode();
    this.figureWidth = Math.max(240, Math.floor(this.panelWidth || this.parts.panel.clientWidth || 640));
    const state = this.state;
    const view = viewById(state.view) ?? VIEWS[0];
    if (!this.layersDone(view)) return;
    const context = {
      engine: this.engine, session: this.session, run: this.run, state, width: this.figureWidth, theme, t,
      compare: view.compareText ? { session: this.compareSession, run: this.compareRun } : null,
    };
    let result;
    try {
      result = view.render(context);
    } catch (error) {
      const notLoaded = error.code === STATUS.NOT_LOADED;
      if (notLoaded && this.runs.redrawWhenRun()) return;  // drawn when the run has it
      if (notLoaded && this.engine.loading) this.messages.waitForWeights(view.compareText?.(state) ?? state.sentence);
      else this.messages.showViewError(error);
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
    result.wire?.(result.figure, this.viewInterface());
    if (this.controlsMode !== 'full' && !view.ownsClicks) this.wireFigureTokens(result.figure);
    this.scrollChosenIntoView(result.figure);
    this.showRemovedHeads();
    this.parts.which.replaceChildren(
      html('strong', { text: headName(t, state.layer, state.head) }), t('which.rowOf'),
      html('strong', { text: t.quote(this.run.tokens[state.token]) }), t('which.token', { index: state.token }),
    );
    this.markDrawn();
  }

  /**
   * Whether the runs the view reads have the layers it shows. If not, the run under way draws it
   * when they are done; while a layer's weights are still arriving, the figure says so.
   */
  layersDone(view) {
    const done = this.runs.hasLayers(view, layersShown(this.state, this.engine.shape));
    if (done === false && this.runs.waitingLayer !== null) this.showLayersWaiting(this.runs.waitingLayer);
    return done === true;
  }

  /** The figure while the weights of layer `layer` (from 0) arrive: how far they are. */
  showLayersWaiting(layer) {
    const t = this.t, engine = this.engine;
    const { layers } = engine.shape;
    const figure = messageFigure({
      width: this.figureWidth, title: t('wait.layerTitle', { layer: layer + 1 }),
      lines: [t('wait.layer', { ready: engine.layersReady(), layers, loaded: t.megabytes(engine.weightBytesLoaded()), size: t.megabytes(engine.fileSize) })],
    });
    figure.dataset.waiting = 'layer';
    this.currentFigure = null;
    replaceChildrenOf(this.parts.figureBox, figure);
    this.parts.notes.replaceChildren();
  }

  /**
   * controls="full|compact|none" (any case): compact keeps the layer and head pickers and the
   * token stepper on one line, the figure and one line of reading (no sentence box, token strip,
   * tabs, view controls, notes, buttons or card); none keeps the stepper and the figure. The token
   * is then chosen on the figure (click or tap a row) or with the stepper (buttons, arrow keys).
   */
  applyControlsMode() {
    const given = this.getAttribute('controls');
    const word = given?.trim().toLowerCase() ?? 'full';
    const mode = CONTROL_MODES.includes(word) ? word : 'full';
    if (!this.controlsChecked) {
      this.controlsChecked = true;
      if (given !== null && mode !== word) this.settings.reportProblems([{ name: 'controls', given, source: 'attribute', used: ['problem.usedControls', {}] }]);
    }
    this.controlsMode = mode;
    for (const m of CONTROL_MODES) this.parts.root.classList.toggle(`controls-${m}`, m === mode);
    const stepper = this.parts.tokenStepper;
    stepper.hidden = mode === 'full';
    if (mode !== 'full' && this.run) {
      const { token } = this.state;
      this.parts.tokenStepperShort.textContent = this.t('stepper.tokenShort', { token: this.t.quote(this.run.tokens[token]), index: token, count: this.run.n });
      this.parts.tokenStepperText.textContent = this.t('stepper.token', { token: this.t.quote(this.run.tokens[token]), index: token, count: this.run.n });
      this.parts.tokenPrevious.disabled = token <= 0;
      this.parts.tokenNext.disabled = token >= this.run.n - 1;
    }
    this.showCompactReading(mode);
  }

  /**
   * controls="compact": one line under the figure reads the chosen head's row for the chosen
   * token (Σ, ratio to uniform, effective tokens), in place of the notes.
   */
  showCompactReading(mode) {
    const line = this.parts.compactReading;
    line.hidden = mode !== 'compact' || !this.run || !this.session;
    if (line.hidden) return;
    const { layer, head, token } = this.state;
    const n = this.run.n;
    if (layer >= this.session.layersDone() || token >= n) {
      line.textContent = '';
      return;
    }
    const t = this.t;
    const stats = this.session.rowStats(layer, head, token);
    line.textContent = t('compact.reading', {
      sum: t.number(stats.sum, 3), ratio: t.number(stats.ratio, 2), effective: t.number(stats.effective, 1), n,
    });
    line.dataset.sum = String(stats.sum);
    line.dataset.ratio = String(stats.ratio);
    line.dataset.effective = String(stats.effective);
  }

  /** Without the token strip, a click or tap on a row of a figure drawn a row per token picks that token. */
  wireFigureTokens(figure) {
    const top = Number(figure.dataset.rowTop), rowHeight = Number(figure.dataset.rowHeight);
    if (!(rowHeight > 0)) return;
    figure.addEventListener('click', (event) => {
      const box = figure.getBoundingClientRect();
      const scale = box.height / Number(figure.getAttribute('height') || box.height);
      const index = Math.floor(((event.clientY - box.top) / scale - top) / rowHeight);
      if (index >= 0 && index < this.run.n && index !== this.state.token) this.settings.setSelection({ token: index });
    });
    figure.style.cursor = 'pointer';
  }

  /** The line saying which heads are switched off, with its reset button; hidden when none is. */
  showRemovedHeads() {
    const off = this.session.removedHeads();
    const t = this.t;
    this.parts.ablation.hidden = off.length === 0;
    this.dataset.headsOff = String(off.length);
    if (!off.length) return;
    this.parts.ablationText.replaceChildren(
      html('strong', { text: t('ablation.count', { count: off.length }) }),
      t('ablation.which', { heads: off.map(([l, h]) => t('grid.cellName', { layer: l + 1, head: h + 1 })).join(', ') }),
    );
  }

  /** Long figures scroll inside their box: keep the chosen token's row in sight, once the frame
   * lays the figure out (reading its size now would lay out the whole page at once); then the
   * rows in sight of a figure that draws them as they come (charts.mjs lazyRows), and more as
   * the box scrolls. */
  scrollChosenIntoView(figure) {
    requestAnimationFrame(() => {
      if (!figure.isConnected) return;
      this.scrollToChosen(figure);
      this.drawRowsInSight(figure);
    });
    const box = this.parts.figureBox;
    box.onscroll = lazyFigures(figure).length ? () => {
      if (this.rowsQueued) return;
      this.rowsQueued = true;
      requestAnimationFrame(() => { this.rowsQueued = false; if (figure.isConnected) this.drawRowsInSight(figure); });
    } : null;
  }

  drawRowsInSight(figure) {
    const lazy = lazyFigures(figure);
    if (!lazy.length) return;
    const box = this.parts.figureBox;
    const scale = figure.getBoundingClientRect().width / Number(figure.getAttribute('width')) || 1;
    const top = box.scrollTop / scale, bottom = (box.scrollTop + box.clientHeight) / scale;
    for (const part of lazy) {
      const offset = part === figure ? 0 : Number(part.getAttribute('y') || 0);
      const rowTop = offset + Number(part.dataset.rowTop), rowHeight = Number(part.dataset.rowHeight);
      part.drawRows(Math.floor((top - rowTop) / rowHeight) - ROWS_AROUND, Math.ceil((bottom - rowTop) / rowHeight) + ROWS_AROUND);
    }
  }

  scrollToChosen(figure) {
    const box = this.parts.figureBox;
    const top = Number(figure.dataset.rowTop), rowHeight = Number(figure.dataset.rowHeight);
    if (!(rowHeight > 0) || figure.dataset.keepTop || box.scrollHeight <= box.clientHeight) { box.scrollTop = 0; return; }
    const y = top + this.state.token * rowHeight;
    if (y < box.scrollTop || y + rowHeight > box.scrollTop + box.clientHeight) box.scrollTop = Math.max(0, y - box.clientHeight / 3);
  }

  markDrawn() {
    performance.mark('attn-redraw');
    if (!firstRowMarked) {
      firstRowMarked = true;
      const engine = this.engine;
      performance.mark('attn-first-row', { detail: { weightBytes: engine?.weightBytesLoaded?.() ?? null, layersReady: engine?.layersReady?.() ?? null } });
    }
    this.engine?.loading?.startBackground();  // the rest of the weights, now that a figure is up
    if (this.inputStart !== null) {
      performance.measure('attn-keystroke', { start: this.inputStart, end: performance.now() });
      this.inputStart = null;
    }
    this.dataset.drawn = String((Number(this.dataset.drawn) || 0) + 1);
  }

  selectView(view, focusTab = false) {
    this.state.view = view;
    if (viewById(view)?.compareText) this.runs.forgetCompare();
    this.settings.setSelection({}, focusTab ? 'tab' : null);
  }

  async exportFigure(format) {
    if (!this.currentFigure) return;
    for (const part of lazyFigures(this.currentFigure)) part.drawAllRows();
    const s = this.state;
    const name = `attention-${s.view}-layer${s.layer + 1}-head${s.head + 1}-token${s.token}-${fileSafe(this.run.tokens[s.token])}`;
    if (format === 'svg') saveSvg(this.currentFigure, name);
    else await savePng(this.currentFigure, name);
  }

  /** A converted model no explorer shows any more is freed. */
  releaseModel() {
    this.loader.release();
  }
}

AttentionExplorer.assetBase = null;
