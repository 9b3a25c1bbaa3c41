// The explorer's shadow DOM: status and error lines, the sentence box, the token strip, the
// layer and head pickers, the tabs (one per view), the panel with each view's controls, the
// notice of unusable settings and the model card. Built again when the language changes. The
// pickers, tabs and controls are kept in step with the state by a ControlPanel.

import { html, sharedStyleSheet } from '../dom.mjs';
import { EXPLORER_CSS } from '../styles.mjs';
import { cleanSentence, MAX_SENTENCE_CHARS } from '../view-state.mjs';
import { VIEWS, viewById } from '../views/index.mjs';
import { convertPanel } from '../convert-panel.mjs';
import { modelCardPanel } from '../model-card.mjs';
import { listMove, segmented, checkSegmented } from '../widgets.mjs';
import { useWeightsEverywhere } from './models.mjs';
import { Engine } from '../engine.mjs';

const explorerSheet = sharedStyleSheet(EXPLORER_CSS);

function statusParts(parts, t) {
  parts.statusText = html('span', { text: t('status.loadingExplorer') });
  parts.progressBar = html('div', { class: 'progress-bar' });
  parts.progress = html('div', { class: 'progress indeterminate', role: 'progressbar', 'aria-label': t('status.loadingAria'), 'aria-valuemin': 0, 'aria-valuemax': 100 }, parts.progressBar);
  parts.status = html('div', { class: 'status', role: 'status', 'aria-live': 'polite' }, [parts.progress, parts.statusText]);
  parts.error = html('div', { class: 'error', role: 'alert', hidden: true });
}

function sentenceParts(parts, explorer, id, t) {
  parts.sentence = html('textarea', { id: id('sentence'), rows: 2, spellcheck: 'false', maxlength: MAX_SENTENCE_CHARS, autocomplete: 'off' });
  parts.sentence.value = explorer.state.sentence;
  parts.sentence.addEventListener('input', (event) => explorer.settings.typed({ sentence: cleanSentence(parts.sentence.value) }, event));
  parts.tokenCount = html('span', {});
  parts.busy = html('span', { class: 'busy', hidden: true, text: t('tokens.busy') });
  parts.truncation = html('p', { class: 'notice', role: 'status', hidden: true });
  parts.tokens = html('div', {
    class: 'tokens', role: 'listbox', 'aria-orientation': 'horizontal', id: id('tokens'), 'aria-label': t('tokens.listAria'),
  });
  parts.tokens.addEventListener('click', (event) => {
    const chip = event.target.closest('.token');
    if (chip) explorer.settings.setSelection({ token: Number(chip.dataset.token) }, 'token');
  });
  parts.tokens.addEventListener('keydown', (event) => {
    const next = listMove(event.key, explorer.state.token, explorer.run?.n ?? 0);
    if (next === null) return;
    event.preventDefault();
    explorer.settings.setSelection({ token: next }, 'token');
  });
  parts.maskPredictions = html('div', { class: 'mask-predictions', 'aria-live': 'polite', hidden: true });
}

/** One tab per view; the arrow keys, Home and End move along the view list. */
function tabParts(parts, explorer, id, t) {
  parts.tabs = html('div', { class: 'tabs', role: 'tablist', 'aria-label': t('tabs.aria') },
    VIEWS.map((view) => html('button', {
      type: 'button', role: 'tab', class: 'tab', id: id(`tab-${view.id}`), 'aria-controls': id('panel'),
      dataset: { view: view.id }, text: t(view.labelKey), tabindex: -1,
      onclick: () => explorer.selectView(view.id),
    })));
  parts.tabs.addEventListener('keydown', (event) => {
    const index = VIEWS.findIndex((v) => v.id === explorer.state.view);
    const next = listMove(event.key, index, VIEWS.length);
    if (next === null) return;
    event.preventDefault();
    explorer.selectView(VIEWS[next].id, true);
  });
}

function panelParts(parts, explorer, t) {
  parts.viewControls = html('div', { class: 'view-controls' });
  parts.problems = html('ul', {});
  parts.problemBox = html('div', { class: 'problems', role: 'status', hidden: true }, [
    html('strong', { text: t('problem.heading') }), parts.problems,
  ]);
  parts.modelCard = html('div', { class: 'model-card-box' });
  parts.tokenStepperShort = html('span', { class: 'stepper-short', 'aria-hidden': 'true' });
  parts.tokenStepperText = html('span', { class: 'stepper-text', 'aria-live': 'polite' });
  const step = (by) => explorer.settings.setSelection({ token: Math.max(0, Math.min((explorer.run?.n ?? 1) - 1, explorer.state.token + by)) });
  parts.tokenPrevious = html('button', { type: 'button', class: 'stepper-previous', 'aria-label': t('stepper.previous'), text: '\u2039', onclick: () => step(-1) });
  parts.tokenNext = html('button', { type: 'button', class: 'stepper-next', 'aria-label': t('stepper.next'), text: '\u203a', onclick: () => step(1) });
  parts.tokenStepper = html('div', { class: 'token-stepper', role: 'group', 'aria-label': t('stepper.aria'), hidden: true }, [parts.tokenPrevious, parts.tokenStepperShort, parts.tokenStepperText, parts.tokenNext]);
  parts.tokenStepper.addEventListener('keydown', (event) => {
    const by = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -1, ArrowDown: 1 }[event.key];
    if (!by) return;
    event.preventDefault();
    step(by);
    (by < 0 ? parts.tokenPrevious : parts.tokenNext).focus();
  });
  parts.ablationText = html('span', { class: 'ablation-text' });
  parts.ablation = html('div', { class: 'ablation', role: 'status', hidden: true }, [
    parts.ablationText,
    html('button', { type: 'button', class: 'ablation-reset', text: t('ablation.reset'), onclick: () => explorer.settings.setRemovedHeads([], '.tab[aria-selected="true"]') }),
  ]);
  parts.figureBox = html('div', { class: 'figure-box' });
  parts.compactReading = html('p', { class: 'compact-reading', hidden: true });
  parts.hoverReadout = html('p', { class: 'hover-readout', 'aria-live': 'polite', hidden: true });
  parts.notes = html('div', { class: 'notes' });
  parts.actions = html('div', { class: 'actions' }, [
    html('button', { type: 'button', class: 'save-png', text: t('actions.png'), onclick: () => explorer.exportFigure('png') }),
    html('button', { type: 'button', class: 'save-svg', text: t('actions.svg'), onclick: () => explorer.exportFigure('svg') }),
  ]);
  parts.panel = html('div', { class: 'panel', role: 'tabpanel', id: explorer.partId('panel') },
    [parts.viewControls, parts.ablation, parts.figureBox, parts.compactReading, parts.hoverReadout, parts.notes, parts.actions]);
}

/** Builds (or rebuilds, in the current language) the explorer's shadow DOM into explorer.parts. */
export function buildDom(explorer) {
  const root = explorer.shadowRoot ?? explorer.attachShadow({ mode: 'open' });
  root.adoptedStyleSheets = [explorerSheet()];
  const t = explorer.t;
  const id = (name) => explorer.partId(name);
  const parts = (explorer.parts = {});
  statusParts(parts, t);
  sentenceParts(parts, explorer, id, t);
  parts.layerPicker = segmented(t('picker.layer'), 0, 'layer-picker', () => {});
  parts.headPicker = segmented(t('picker.head'), 0, 'head-picker', () => {});
  parts.which = html('span', { class: 'which', 'aria-live': 'polite' });
  tabParts(parts, explorer, id, t);
  panelParts(parts, explorer, t);
  parts.main = html('div', { class: 'main', hidden: true }, [
    parts.problemBox,
    html('label', { class: 'field-label sentence-label', for: id('sentence') }, [t('sentence.label'), ' ', html('span', { class: 'field-help', text: t('sentence.help') })]),
    parts.sentence,
    html('div', { class: 'token-info' }, [parts.tokenCount, parts.busy]),
    parts.truncation,
    parts.tokens,
    parts.maskPredictions,
    // With controls="compact" or "none", the token stepper joins this line (explorer.mjs).
    html('div', { class: 'pickers' }, [
      html('div', { class: 'picker' }, [html('span', { class: 'picker-label', 'aria-hidden': 'true', text: t('picker.layer') }), parts.layerPicker]),
      html('div', { class: 'picker' }, [html('span', { class: 'picker-label', 'aria-hidden': 'true', text: t('picker.head') }), parts.headPicker]),
      parts.which,
      parts.tokenStepper,
    ]),
    parts.tabs,
    parts.panel,
    parts.modelCard,
  ]);
  parts.root = html('div', { class: 'explorer', part: 'explorer' }, [parts.status, parts.error, parts.main]);
  // The page's engine measures the converted file's head roles, as the command line's does.
  const conversionEngine = () => (explorer.engine?.wasmModule ? { Engine, wasm: explorer.engine.wasmModule } : null);
  if (explorer.hasAttribute('allow-convert')) parts.root.append(convertPanel(useWeightsEverywhere, t, conversionEngine));
  root.replaceChildren(parts.root);
}

/**
 * The pickers, the tabs and the views' controls, kept in step with the state. The layer and head
 * pickers and the controls are built once the model's shape is known (again for another model or
 * language).
 */
export class ControlPanel {
  /**
   * `host`, what the panel reads of the element and asks of it:
   *   parts, t, state, engine, run   the DOM parts, the language, the state, the model, sentence A's run
   *   partId(name)                   the id of one of the element's parts
   *   viewInterface()                what a view's controls get (`ui`, views/index.mjs)
   *   select(changes, focus)         the selection changed (a picker was used)
   *   markSelectedToken()            the strip selects the chosen token
   */
  constructor(host) {
    this.host = host;
    this.built = false;            // the shape's pickers and the controls are built
    this.viewControls = new Map(); // each control of the views: {element, sync(state)}
  }

  /** The shape's pickers and the controls are built again when the session opens (another model). */
  forget() {
    this.built = false;
  }

  sync() {
    const { parts, state, run } = this.host;
    checkSegmented(parts.layerPicker, state.layer);
    checkSegmented(parts.headPicker, state.head);
    for (const tab of parts.tabs.children) {
      const on = tab.dataset.view === state.view;
      tab.setAttribute('aria-selected', String(on));
      tab.tabIndex = on ? 0 : -1;
    }
    parts.panel.setAttribute('aria-labelledby', this.host.partId(`tab-${state.view}`));
    this.syncView();
    if (run) this.host.markSelectedToken();
  }

  /** The current view's controls are shown, each in step with the state. */
  syncView() {
    const { parts, state } = this.host;
    const shown = viewById(state.view)?.controls ?? [];
    for (const [control, built] of this.viewControls) {
      built.element.hidden = !shown.includes(control);
      built.sync(state);
    }
    parts.viewControls.hidden = shown.length === 0;
  }

  /** The pickers and controls whose size is the model's: built once the engine (and its shape) is known. */
  buildShape() {
    const { parts, t, engine } = this.host;
    const { layers, heads } = engine.shape;
    const select = (changes, focus) => this.host.select(changes, focus);
    parts.layerPicker.replaceWith(parts.layerPicker = segmented(t('picker.layer'), layers, 'layer-picker', (i) => select({ layer: i }, 'layer'),
      (i) => t('picker.layerButton', { layer: i + 1 })));
    parts.headPicker.replaceWith(parts.headPicker = segmented(t('picker.head'), heads, 'head-picker', (i) => select({ head: i }, 'head'),
      (i) => t('picker.headButton', { head: i + 1 })));
    this.buildViewControls();
    parts.modelCard.replaceChildren(modelCardPanel(engine, t));
    this.built = true;
  }

  /** Each control the views show, built once however many views show it. */
  buildViewControls() {
    const ui = this.host.viewInterface();
    this.viewControls = new Map();
    for (const view of VIEWS) {
      for (const control of view.controls ?? []) if (!this.viewControls.has(control)) this.viewControls.set(control, control.build(ui));
    }
    this.host.parts.viewControls.replaceChildren(...[...this.viewControls.values()].map((built) => built.element));
  }
}
