// <attention-explorer>: the custom element. It owns one engine Session, the controls and
// the current view; the engine itself (and the one copy of the weights) is shared by every
// explorer on the page through loader.mjs. Its jobs live in explorer/: loading (and the
// converted-model registry), settings (attributes, hash, selection), runs (scheduling), the
// token strip and the DOM; this file is the element's life cycle and the drawing of a view.

import { html, replaceChildrenOf } from './dom.mjs';
import { STATUS } from './engine.mjs';
import { readControls, readHashControls, controlNames, initialState, cleanSentence } from './view-state.mjs';
import { VIEWS, viewById } from './views/index.mjs';
import { headName, fileSafe } from './format.mjs';
import { saveSvg, savePng } from './export.mjs';
import { translator, languageFor } from './i18n/index.mjs';
import { loading } from './explorer/loading.mjs';
import { settings } from './explorer/settings.mjs';
import { runs, nextFrame } from './explorer/runs.mjs';
import { tokenStrip } from './explorer/token-strip.mjs';
import { buildDom, controls } from './explorer/dom.mjs';
import { releaseModel } from './explorer/models.mjs';
import { languageWatcher } from './explorer/language.mjs';

const LONG_FIGURE_TOKENS = 40;
const english = translator('en');
let firstRowMarked = false;
let explorerCount = 0;

export class AttentionExplorer extends HTMLElement {
  static get observedAttributes() { return [...controlNames(VIEWS), 'theme', 'lang']; }

  constructor() {
    super();
    this.uid = `ae${++explorerCount}`;
    this.state = initialState(VIEWS);
    this.tokenSpec = null;       // a token asked for by an attribute or the hash, resolved after the run
    this.tokenIdentity = null;   // the chosen token's text and occurrence, kept across edits
    this.engine = this.session = this.compareSession = this.run = this.compareRun = null;
    this.lastRunMs = 0;
    this.frameBusy = this.frameQueued = false;
    this.pauseTimer = 0;
    this.inputStart = null;
    this.figureWidth = 0;
    this.t = english;
    this.tEnglish = english;     // console warnings stay in English
    this.ready = new Promise((resolve, reject) => { this.resolveReady = resolve; this.rejectReady = reject; });
    this.ready.catch(() => {});
  }

  partId(name) { return `${this.uid}-${name}`; }

  connectedCallback() {
    this.language = languageWatcher(this, () => this.onLanguageChange());
    this.t = translator(languageFor(this.language.tag()));
    if (!this.shadowRoot) buildDom(this);
    const names = controlNames(VIEWS);
    this.pendingControls = [{ source: 'attribute', raw: readControls((name) => this.getAttribute(name), names) }];
    if (this.hasAttribute('hash')) {
      this.pendingControls.push({ source: 'URL', raw: readHashControls(location.hash, names) });
      this.onHashChange = () => {
        this.applyControls(readHashControls(location.hash, names), 'URL');
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
    this.language?.stop();
    this.stopListening?.();
    this.stopListening = null;
    this.session?.destroy();
    this.compareSession?.destroy();
    this.session = this.compareSession = null;
  }

  attributeChangedCallback(name, old, value) {
    if (name === 'lang') { this.onLanguageChange(); return; }
    if (!this.parts || !this.engine || old === value) return;
    if (name === 'theme') { this.checkTheme(); this.renderView(); return; }
    if (value === null) return;
    this.applyControls({ [name]: value }, 'attribute');
    this.refresh();
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
    if (this.lastError) { this.showError(this.lastError); return; }
    if (!this.engine) { if (this.lastProgress) this.showProgress(this.lastProgress); return; }
    this.tokenKey = null;
    this.buildShapeControls();
    this.showProblems();
    this.parts.status.hidden = true;
    this.parts.main.hidden = false;
    this.syncControls();
    if (this.run) { this.updateTokens(); this.renderView(); }
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
      select: (changes, focus) => explorer.setSelection(changes, focus),
      type: (changes, event) => explorer.typed(changes, event),
      runNow: (changes) => { Object.assign(explorer.state, changes); explorer.compareRun = null; explorer.runNow(); },
      get readout() { return explorer.parts.hoverReadout; },
      get notes() { return explorer.parts.notes; },
    };
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
    const t = this.t;
    this.parts.root.classList.toggle('theme-dark', theme === 'dark');
    this.parts.root.classList.toggle('theme-light', theme !== 'dark');
    this.figureWidth = Math.max(300, Math.floor(this.parts.panel.clientWidth || 640));
    const state = this.state;
    if (state.rolloutLayer === null) state.rolloutLayer = this.engine.shape.layers - 1;
    const view = viewById(state.view) ?? VIEWS[0];
    const context = {
      engine: this.engine, session: this.session, run: this.run, state, width: this.figureWidth, theme, t,
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
    result.wire?.(result.figure, this.viewInterface());
    this.scrollChosenIntoView(result.figure);
    this.parts.which.replaceChildren(
      html('strong', { text: headName(t, state.layer, state.head) }), t('which.rowOf'),
      html('strong', { text: t.quote(this.run.tokens[state.token]) }), t('which.token', { index: state.token }),
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

  /** A converted model no explorer shows any more is freed. */
  releaseModel() {
    releaseModel(this.model, this);
    this.model = null;
  }
}

Object.assign(AttentionExplorer.prototype, loading, settings, runs, tokenStrip, controls);
AttentionExplorer.assetBase = null;
