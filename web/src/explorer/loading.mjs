// What is said while loading and on errors: the progress line, what could not be loaded or run,
// the weights a run waits for and those that arrive. A part of <attention-explorer>
// (explorer.mjs).

import { html, replaceChildrenOf } from '../dom.mjs';
import { STATUS } from '../engine.mjs';
import { viewById, layersShown } from '../views/index.mjs';

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

export class LoadMessages {
  /**
   * `host`, what the messages read of the element and ask of it:
   *   parts, t, state, engine, run  the DOM parts, the language, the state, the model, sentence A's run
   *   connected()                   whether the element is still on the page
   *   runNow()                      a run of the state's text
   *   draw()                        the view is drawn again
   *   replacedFigure()              a message stands in place of the figure (nothing to export)
   *   waitingLayer()                the layer whose weights the run under way waits for, or null
   *   viewDrawnWhileWaiting()       whether the view is drawn while the run waits for a layer
   *   predictionsShown(), updatePredictions()  the [MASK] predictions of the token strip
   *   forgetRun()                   no run is on show any more (the scheduler's and the strip's)
   */
  constructor(host) {
    this.host = host;
    this.lastProgress = null;  // said again in another language
    this.lastError = null;     // said again in another language, in place of the explorer
  }

  /** The language changed: what was said in place of the explorer is said again; whether it was. */
  sayAgain() {
    if (this.lastError) { this.showError(this.lastError); return true; }
    if (this.host.engine) return false;
    if (this.lastProgress) this.showProgress(this.lastProgress);
    return true;
  }

  /** A part of the weights arrived (or was refused): what waited for it is drawn again. A part
   * fetched while idle that the network failed to bring is fetched again when a run needs it;
   * a part the engine refused (its bytes are corrupted) is said at once. */
  weightsArrived({ missing, error, background }) {
    const { host } = this;
    if (error) { if (!background || Number.isInteger(error.code)) this.showFirstError(error); return; }
    if (!host.run || !host.connected()) return;
    if (host.waitingLayer() !== null) { if (!host.viewDrawnWhileWaiting()) host.draw(); return; }  // its progress
    if (host.predictionsShown()) host.updatePredictions();
    if (viewById(host.state.view)?.redrawsAsWeightsArrive && (missing === 0 || missing % 8 === 0)) host.draw();
  }

  /** A run that needs rows of the weights not yet arrived: they are fetched first, and the layers
   * the view shows with them; the run begins once the rows are in, and computes each layer as its
   * weights arrive (a view waiting for one says so). */
  waitForWeights(text = this.host.state.sentence) {
    const { host } = this;
    const { sentence } = host.state;
    const loading = host.engine.loading;
    loading.ensureLayers(layersShown(host.state, host.engine.shape)).catch(() => {});  // the run says what fails
    loading.ensureText(text).then(() => {
      if (host.state.sentence === sentence && host.connected()) host.runNow();
    }, (error) => this.showFirstError(error));
  }

  /** The first part of the weights refused or missing is the one named; later ones follow from it.
   * A drawn explorer keeps its figure: a part the network did not bring is said in place of the
   * view that needs it, with a control that fetches it again. */
  showFirstError(error) {
    const { run, parts } = this.host;
    const drawn = run && !parts.main.hidden;
    if (drawn && !Number.isInteger(error.code)) this.showMissingWeights(error);
    else if (parts.error.hidden) this.showError(error, { keepFigure: drawn });
  }

  showMissingWeights(error) {
    const { host } = this;
    const { t, engine } = host;
    const retry = () => {
      engine.loading.ensure(engine.loading.failedParts(), 'high')
        .then(() => { if (host.connected()) host.runNow(); }, (again) => this.showMissingWeights(again));
    };
    this.showInPlaceOfFigure(html('div', { class: 'error weights-missing', role: 'alert' }, [
      html('strong', { text: t('error.weightsMissing') }),
      html('span', { class: 'error-message', text: errorDetail(t, error, engine) }),
      html('button', { type: 'button', class: 'small-button retry-weights', text: t('error.retry'), onclick: retry }),
    ]));
  }

  /** The progress line: what is loading (by part), and how much of it has arrived. */
  showProgress(progress) {
    this.lastProgress = progress;
    const { part, message, loaded, total } = progress;
    const { statusText: line, progress: bar, progressBar } = this.host.parts;
    const { t } = this.host;
    const what = /^decoding/.test(message) ? `progress.decoding.${part}` : /^starting/.test(message) ? 'progress.starting' : `progress.loading.${part}`;
    const known = total > 1;
    line.textContent = known
      ? t('progress.amount', { what: t(what), loaded: t.megabytes(loaded), total: t.megabytes(total) })
      : t('progress.plain', { what: t(what) });
    bar.classList.toggle('indeterminate', !known && total === 0);
    progressBar.style.width = known ? `${Math.min(100, (100 * loaded) / total).toFixed(1)}%` : total === 1 ? '100%' : '';
    bar.setAttribute('aria-valuenow', known ? String(Math.round((100 * loaded) / total)) : '');
  }

  showError(error, { keepFigure = false } = {}) {
    if (!keepFigure) this.lastError = error;  // redrawn in another language in place of the explorer
    const { t, parts, engine } = this.host;
    parts.status.hidden = true;
    parts.main.hidden = !keepFigure;
    const headline = t({ weights: 'error.headlineWeights', wasm: 'error.headlineWasm' }[error.part] ?? 'error.headlineEngine');
    const coded = Number.isInteger(error.code) && error.part;
    replaceChildrenOf(parts.error, [
      html('strong', { text: t('error.cannotStart', { headline }) }),
      html('span', { class: 'error-message', text: errorDetail(t, error, engine) }),
      coded ? html('span', { text: t('error.code', { code: error.code }) }) : null,
    ]);
    parts.error.dataset.part = error.part || 'unknown';
    if (coded) parts.error.dataset.code = String(error.code);
    parts.error.hidden = false;
  }

  /**
   * A run that failed (out of memory, numbers that are not finite): the session holds no run any
   * more, so nothing of the previous text stays on show as if it were this one's — the token
   * strip is emptied and the view says why, until a run succeeds.
   */
  runFailed(error) {
    this.host.forgetRun();
    this.showViewError(error);
  }

  /** A view that could not be drawn says so in place of its figure; the rest keeps working. */
  showViewError(error) {
    const { t } = this.host;
    const detail = Number.isInteger(error.code) ? statusText(t, error.code) : String(error.message || error);
    // Out of memory: the explorers of a page share the engine's memory, and the reader can act on it.
    const hint = Number.isInteger(error.code) && statusName(error.code) === 'NO_MEMORY' ? t('error.noMemoryHint') : null;
    this.showInPlaceOfFigure(html('p', { class: 'error', role: 'alert' }, [
      html('strong', { text: t('error.viewNotDrawn') }), ' ', html('span', { text: detail }),
      hint ? html('span', { class: 'error-hint', text: ` ${hint}` }) : null,
    ]));
  }

  /** `message` in the figure's box, with no notes. */
  showInPlaceOfFigure(message) {
    const { parts } = this.host;
    replaceChildrenOf(parts.figureBox, message);
    parts.notes.replaceChildren();
    this.host.replacedFigure();
  }
}
