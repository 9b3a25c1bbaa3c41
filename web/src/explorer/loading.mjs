// Loading: the shared engine and its weights, a converted model, the progress line and the
// messages of what could not be loaded. Methods of <attention-explorer> (see explorer.mjs).

import { html, replaceChildrenOf } from '../dom.mjs';
import { STATUS } from '../engine.mjs';
import { viewById, layersShown, fitStateToShape } from '../views/index.mjs';

/** The status table's name of an engine code ('CHECKSUM' for 5), or null. */
export function statusName(code) {
  return Object.entries(STATUS).find(([, value]) => value === code)?.[0] ?? null;
}

/** What an engine code means, in the reader's language (the C text is for the CLI). */
export function statusText(t, code) {
  const name = statusName(code);
  return name && name !== 'OK' ? t(`status.${name}`) : t('status.unknown', { code });
}

/** "part 7 of 121 (word embeddings rows 1536–1791)" in the reader's language. */
export function partText(t, engine, index) {
  const { count, layer, rows } = engine.partContents(index);
  if (layer !== null) return t('part.layer', { index, count, layer: layer + 1 });
  return rows ? t('part.rows', { index, count, first: rows[0], last: rows[1] }) : t('part.mlmHead', { index, count });
}

/** The detail line of a load or engine error, from its code or its reason, never from C text. */
export function errorDetail(t, error, engine) {
  const [key, vars] = error.reason ?? [null, {}];
  const part = Number.isInteger(vars?.part ?? error.partIndex) && engine?.partContents ? partText(t, engine, vars?.part ?? error.partIndex) : null;
  if (Number.isInteger(error.code)) return part ? t('error.partStatus', { part, status: statusText(t, error.code) }) : statusText(t, error.code);
  if (key === 'load.partsFailed' && engine?.partContents) {
    return t(key, { parts: vars.parts.map((i) => partText(t, engine, i)).join(', '), detail: vars.detail });
  }
  if (key) return t(key, vars);
  return String(error.message || error);
}

export const loading = {
  async start() {
    if (this.engine) { this.loader.watch(); this.openSession(); return; }
    const assetBase = this.getAttribute('assets') || this.constructor.assetBase;
    try {
      await this.loader.load({
        assetBase, wasm: this.getAttribute('wasm'), weights: this.getAttribute('weights'),
      }, (progress) => this.showProgress(progress));
    } catch (error) {
      this.showError(error);
      this.rejectReady(error);
      return;
    }
    if (!this.isConnected) return;
    this.loader.watch();
    this.openSession();
    this.resolveReady(this);
  },

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
    this.tokenKey = null;
    this.controlsBuilt = false;
    this.dataset.model = label;
    this.openSession();
  },

  /** A part of the weights arrived (or was refused): what waited for it is drawn again. A part
   * fetched while idle that the network failed to bring is fetched again when a run needs it;
   * a part the engine refused (its bytes are corrupted) is said at once. */
  onWeightsArrived({ missing, error, background }) {
    if (error) { if (!background || Number.isInteger(error.code)) this.showFirstError(error); return; }
    if (!this.run || !this.isConnected) return;
    if (this.runs.waitingLayer !== null) { if (!this.runs.job.drawn) this.renderView(); return; }  // its progress
    if (!this.parts.maskPredictions.hidden) this.updateMaskPredictions();
    if (viewById(this.state.view)?.redrawsAsWeightsArrive && (missing === 0 || missing % 8 === 0)) this.renderView();
  },

  /** A run that needs rows of the weights not yet arrived: they are fetched first, and the layers
   * the view shows with them; the run begins once the rows are in, and computes each layer as its
   * weights arrive (a view waiting for one says so). */
  waitForWeights(text = this.state.sentence) {
    const sentence = this.state.sentence;
    const loading = this.engine.loading;
    loading.ensureLayers(layersShown(this.state, this.engine.shape)).catch(() => {});  // the run says what fails
    loading.ensureText(text).then(() => {
      if (this.state.sentence === sentence && this.isConnected) this.runNow();
    }, (error) => this.showFirstError(error));
  },

  /** The first part of the weights refused or missing is the one named; later ones follow from it.
   * A drawn explorer keeps its figure: a part the network did not bring is said in place of the
   * view that needs it, with a control that fetches it again. */
  showFirstError(error) {
    const drawn = this.run && !this.parts.main.hidden;
    if (drawn && !Number.isInteger(error.code)) this.showMissingWeights(error);
    else if (this.parts.error.hidden) this.showError(error, { keepFigure: drawn });
  },

  showMissingWeights(error) {
    const t = this.t;
    const retry = () => {
      this.engine.loading.ensure(this.engine.loading.failedParts(), 'high')
        .then(() => { if (this.isConnected) this.runNow(); }, (again) => this.showMissingWeights(again));
    };
    this.currentFigure = null;
    replaceChildrenOf(this.parts.figureBox, html('div', { class: 'error weights-missing', role: 'alert' }, [
      html('strong', { text: t('error.weightsMissing') }),
      html('span', { class: 'error-message', text: errorDetail(t, error, this.engine) }),
      html('button', { type: 'button', class: 'small-button retry-weights', text: t('error.retry'), onclick: retry }),
    ]));
    this.parts.notes.replaceChildren();
    this.markDrawn();
  },

  openSession() {
    this.runs.open(this.engine);
    if (!this.controlsBuilt) this.buildShapeControls();
    for (const { raw, source } of this.pendingControls || []) this.applyControls(raw, source);
    this.pendingControls = [];
    fitStateToShape(this.state, this.engine.shape);
    this.checkTheme();
    this.parts.status.hidden = true;
    this.parts.main.hidden = false;
    this.syncControls();
    this.runNow();
  },

  /** The progress line: what is loading (by part), and how much of it has arrived. */
  showProgress(progress) {
    this.lastProgress = progress;
    const { part, message, loaded, total } = progress;
    const { statusText: line, progress: bar, progressBar } = this.parts;
    const t = this.t;
    const what = /^decoding/.test(message) ? `progress.decoding.${part}` : /^starting/.test(message) ? 'progress.starting' : `progress.loading.${part}`;
    const known = total > 1;
    line.textContent = known
      ? t('progress.amount', { what: t(what), loaded: t.megabytes(loaded), total: t.megabytes(total) })
      : t('progress.plain', { what: t(what) });
    bar.classList.toggle('indeterminate', !known && total === 0);
    progressBar.style.width = known ? `${Math.min(100, (100 * loaded) / total).toFixed(1)}%` : total === 1 ? '100%' : '';
    bar.setAttribute('aria-valuenow', known ? String(Math.round((100 * loaded) / total)) : '');
  },

  showError(error, { keepFigure = false } = {}) {
    if (!keepFigure) this.lastError = error;  // redrawn in another language in place of the explorer
    const t = this.t;
    this.parts.status.hidden = true;
    this.parts.main.hidden = !keepFigure;
    const headline = t({ weights: 'error.headlineWeights', wasm: 'error.headlineWasm' }[error.part] ?? 'error.headlineEngine');
    const coded = Number.isInteger(error.code) && error.part;
    replaceChildrenOf(this.parts.error, [
      html('strong', { text: t('error.cannotStart', { headline }) }),
      html('span', { class: 'error-message', text: errorDetail(t, error, this.engine) }),
      coded ? html('span', { text: t('error.code', { code: error.code }) }) : null,
    ]);
    this.parts.error.dataset.part = error.part || 'unknown';
    if (coded) this.parts.error.dataset.code = String(error.code);
    this.parts.error.hidden = false;
  },

  /**
   * A run that failed (out of memory, numbers that are not finite): the session holds no run any
   * more, so nothing of the previous text stays on show as if it were this one's — the token
   * strip is emptied and the view says why, until a run succeeds.
   */
  runFailed(error) {
    this.runs.forgetRuns();
    this.tokenKey = null;
    this.parts.tokens.replaceChildren();
    this.parts.tokenCount.textContent = '';
    this.parts.maskPredictions.hidden = true;
    this.showViewError(error);
  },

  /** A view that could not be drawn says so in place of its figure; the rest keeps working. */
  showViewError(error) {
    this.currentFigure = null;
    const t = this.t;
    const detail = Number.isInteger(error.code) ? statusText(t, error.code) : String(error.message || error);
    // Out of memory: the explorers of a page share the engine's memory, and the reader can act on it.
    const hint = Number.isInteger(error.code) && statusName(error.code) === 'NO_MEMORY' ? t('error.noMemoryHint') : null;
    replaceChildrenOf(this.parts.figureBox, html('p', { class: 'error', role: 'alert' }, [
      html('strong', { text: t('error.viewNotDrawn') }), ' ', html('span', { text: detail }),
      hint ? html('span', { class: 'error-hint', text: ` ${hint}` }) : null,
    ]));
    this.parts.notes.replaceChildren();
    this.markDrawn();
  },
};
