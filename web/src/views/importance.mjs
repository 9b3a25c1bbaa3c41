// Head importance: what removing each head (and each whole layer) does to the model's right
// answer in this sentence — the causal reading beside attention paid and contribution made.
// Computed once per run and removal set (Session.importance); on large inputs step by step,
// with progress, between frames.

import { svg, textWidth } from '../dom.mjs';
import { figureHeader, figureRoot, FIGURE_PAD, colourLegend, fitText, seriesColours, wrapText } from '../charts.mjs';
import { diverging, inkOn } from '../palette.mjs';
import { messageFigure } from '../figures.mjs';
import { headName, tokenPhrase, largest, total } from '../format.mjs';
import { headListParam } from '../view-state.mjs';
import { capitalise, note } from './common.mjs';
import { weightsWaitText } from './mlm.mjs';

/** Time given to the computation per frame when it runs between frames. */
const SLICE_MS = 30;
/** Larger than this (targets × tokens), the map is not computed: each target is a forward pass of every token. */
const MAX_WORK = 128 * 128;
const CELL_HEIGHT = 32;
const BAR_ROW = 30;

const jobs = new WeakMap();  // session → the importance computation under way {memo, steps, progress}

function rgbOf(text) {
  return text.match(/\d+/g).map(Number);
}

/**
 * The session's importance when it is known, else {job}: the computation, started or under way,
 * runs between frames (a map is one decoder pass per target, layer and removal) and the view is
 * drawn again when it is done.
 */
function importanceOf(session, shape) {
  if (session.runMemo.has('importance')) return { result: session.importance() };
  const targets = session.importanceTargets().positions.length;
  let job = jobs.get(session);
  if (job?.memo === session.runMemo && job.error) { jobs.delete(session); throw job.error; }
  if (!job || job.memo !== session.runMemo || job.done) {
    job = { memo: session.runMemo, steps: session.importanceSteps(), progress: { done: 0, total: targets * shape.layers }, listeners: new Set() };
    jobs.set(session, job);
  }
  if (!job.running) runBetweenFrames(session, job);
  return { job };
}

function runBetweenFrames(session, job) {
  job.running = true;
  const slice = () => {
    // A new run (or removal set), or no figure waiting for it (another view): it stops, and the
    // view takes it up again where it was when it is shown.
    for (const listener of job.listeners) if (!listener.figure.isConnected) job.listeners.delete(listener);
    if (session.runMemo !== job.memo || !job.listeners.size) { job.running = false; return; }
    const start = performance.now();
    let step;
    try {
      do step = job.steps.next(); while (!step.done && performance.now() < start + SLICE_MS);
    } catch (error) {
      job.error = error;
      job.running = false;
      for (const listener of job.listeners) listener(true);
      return;
    }
    job.computeMs = (job.computeMs ?? 0) + performance.now() - start;
    if (step.done) {
      job.running = false;
      job.done = true;
      session.memo('importance', () => ({ ...step.value, computeMs: job.computeMs }));
      for (const listener of job.listeners) listener(true);
      return;
    }
    job.progress = step.value;
    for (const listener of job.listeners) listener(false);
    setTimeout(slice, 0);
  };
  setTimeout(slice, 0);
}

/** The Δ the chosen token's bar shows: its own target's when it is one, else the mean over targets. */
function effectAt(importance, token, index) {
  const own = importance.targets.find((target) => target.position === token);
  return own ? { value: own.heads[index], own: true } : { value: importance.mean.heads[index], own: false };
}

function targetsText(t, importance) {
  if (importance.maskedInTurn) return t('imp.targetsInTurn', { count: importance.targets.length });
  const list = importance.targets.map((target) => t('imp.maskAnswer', { index: target.position, answer: t.quote(target.answer.token) })).join(', ');
  return t('imp.targetsMask', { count: importance.targets.length, list });
}

function drawMap(root, { y, width, theme, importance, layers, heads, selected, t }) {
  const labelWidth = Math.ceil(Math.max(...Array.from({ length: layers }, (_, l) => textWidth(t('grid.layerShort', { layer: l + 1 }), 11, 400)))) + 10;
  const columns = heads + 1;
  const gap = 8;
  const cellWidth = Math.min(120, Math.floor((width - 2 * FIGURE_PAD - labelWidth - gap) / columns));
  const values = [...importance.mean.heads, ...importance.mean.layers];
  const peak = Math.max(1e-6, ...values.map(Math.abs));
  const left = FIGURE_PAD + labelWidth;
  const columnX = (c) => left + c * cellWidth + (c === heads ? gap : 0);
  for (let c = 0; c < columns; c++) {
    const text = c < heads ? t('grid.headShort', { head: c + 1 }) : t('imp.wholeLayer');
    root.append(svg('text', { x: columnX(c) + cellWidth / 2, y: y + 4, 'text-anchor': 'middle', class: 'col-head-muted', text: fitText(text, cellWidth - 4, 11) }));
  }
  y += 14;
  const grid = svg('g', { role: 'grid', 'aria-label': t('imp.mapAria') });
  for (let l = 0; l < layers; l++) {
    const row = svg('g', { role: 'row' });
    root.append(svg('text', { x: FIGURE_PAD, y: y + CELL_HEIGHT / 2, 'dominant-baseline': 'central', class: 'col-head-muted', text: t('grid.layerShort', { layer: l + 1 }) }));
    for (let c = 0; c < columns; c++) {
      const whole = c === heads;
      const delta = whole ? importance.mean.layers[l] : importance.mean.heads[l * heads + c];
      const changed = whole ? importance.changed.layers[l] : importance.changed.heads[l * heads + c];
      const fill = diverging(Math.max(-1, Math.min(1, delta / peak)), theme);
      const x = columnX(c);
      const chosen = !whole && l === selected.layer && c === selected.head;
      const cell = svg('g', {
        class: `imp-cell${whole ? ' imp-layer' : ''}`, role: 'gridcell', tabindex: chosen ? 0 : -1, 'aria-selected': String(chosen),
        'aria-label': t(whole ? 'imp.layerAria' : 'imp.cellAria', {
          head: whole ? '' : headName(t, l, c), layer: l + 1, delta: t.number(delta, 3), changed: t.percent(changed),
        }),
        dataset: { layer: String(l + 1), head: whole ? '' : String(c + 1), delta: String(delta), changed: String(changed) },
      });
      cell.append(svg('rect', { x: x + 1, y: y + 1, width: cellWidth - 2, height: CELL_HEIGHT - 2, rx: 4, fill, class: 'imp-bg' }));
      if (chosen) cell.append(svg('rect', { x: x + 1, y: y + 1, width: cellWidth - 2, height: CELL_HEIGHT - 2, rx: 4, class: 'imp-chosen' }));
      cell.append(svg('text', {
        x: x + cellWidth / 2, y: y + CELL_HEIGHT / 2, 'text-anchor': 'middle', 'dominant-baseline': 'central',
        class: 'table-value', fill: inkOn(rgbOf(fill)), text: t.number(delta, cellWidth < 44 ? 1 : 2),
      }));
      row.append(cell);
    }
    grid.append(row);
    y += CELL_HEIGHT;
  }
  root.append(grid);
  y += 12;
  colourLegend(root, { x: FIGURE_PAD, y, width: Math.min(260, width - 2 * FIGURE_PAD), theme, low: t('imp.legendLow'), high: t('imp.legendHigh'), kind: 'diverging' });
  return { y: y + 44, peak };
}

/** Attention paid, contribution made and the head's effect, for the chosen token and head, side by side. */
function drawBars(root, { y, width, bars }) {
  const labelWidth = Math.ceil(Math.max(...bars.map((b) => textWidth(b.label, 12.5, 600)))) + 10;
  const valueWidth = Math.ceil(Math.max(...bars.map((b) => textWidth(b.text, 12, 600)))) + 10;
  const barWidth = Math.max(40, width - 2 * FIGURE_PAD - labelWidth - valueWidth);
  for (const bar of bars) {
    const group = svg('g', { class: `imp-bar imp-bar-${bar.kind}`, dataset: { kind: bar.kind, value: String(bar.value) } });
    group.append(svg('text', { x: FIGURE_PAD, y: y + 9, 'dominant-baseline': 'central', class: 'cell-name', text: bar.label }));
    const x = FIGURE_PAD + labelWidth;
    group.append(svg('rect', { x, y, width: barWidth, height: 18, class: 'imp-bar-bg' }));
    group.append(svg('rect', { x, y, width: Math.max(0, Math.min(1, bar.share)) * barWidth, height: 18, fill: bar.colour, class: 'bar' }));
    group.append(svg('text', { x: x + barWidth + 6, y: y + 9, 'dominant-baseline': 'central', class: 'val', text: bar.text }));
    root.append(group);
    y += BAR_ROW;
  }
  return y;
}

function progressFigure({ width, t, progress }) {
  const root = messageFigure({ width, title: t('imp.title'), lines: [t('imp.computingNote')] });
  const height = Number(root.getAttribute('height')) + 24;
  root.append(svg('text', { x: FIGURE_PAD, y: height - 14, class: 'fig-sub imp-progress-text', text: t('imp.computing', { done: progress.done, total: progress.total }) }));
  root.setAttribute('height', height);
  root.setAttribute('viewBox', `0 0 ${width} ${height}`);
  root.querySelector('.fig-bg').setAttribute('height', height);
  root.classList.add('imp-progress');
  return root;
}

export const importanceView = {
  id: 'head-importance',
  layersShown: (state, shape) => shape.layers,
  aliases: ['importance'],
  labelKey: 'view.importance',
  state: { off: [] },
  params: [headListParam('off', 'off', (s) => ['problem.usedOff', { count: s.off.length, heads: s.off.map(([l, h]) => `${l + 1}.${h + 1}`).join(',') }])],
  focus: '.imp-cell[tabindex="0"]',
  render(ctx) {
    const { session, engine, run, state, width, theme, t } = ctx;
    const { layers, heads } = engine.shape;
    if (!engine.hasMlm()) {
      return { figure: messageFigure({ width, title: t('imp.title'), lines: [t('imp.noMlm')] }), notes: [] };
    }
    if (engine.loading && engine.partsMissing() > 0) {
      const waiting = engine.loading.ensureAll();
      waiting.catch(() => {});  // a refusal is shown by the explorer
      return {
        figure: messageFigure({ width, title: t('imp.title'), lines: [weightsWaitText(t, engine)] }),
        notes: [], wire: (figure, ui) => waiting.then(() => { if (figure.isConnected) ui.select({}); }, () => {}),
      };
    }
    const targets = session.importanceTargets().positions.length;
    if (targets * run.n > MAX_WORK && !session.runMemo.has('importance')) {
      return { figure: messageFigure({ width, title: t('imp.title'), lines: [t('imp.tooLong', { count: targets, n: run.n })] }), notes: [] };
    }
    const { result: importance, job } = importanceOf(session, engine.shape);
    if (!importance) {
      return { figure: progressFigure({ width, t, progress: job.progress }), notes: [], wire: (figure, ui) => wireProgress(figure, ui, job) };
    }
    if (!importance.targets.length) {
      return { figure: messageFigure({ width, title: t('imp.title'), lines: [t('imp.noTargets')] }), notes: [] };
    }
    const { layer, head, token } = state;
    const removed = session.removedHeads().length;
    const root = figureRoot(width, 1, t('imp.title'));
    const background = svg('rect', { x: 0, y: 0, width, height: 1, class: 'fig-bg' });
    root.append(background);
    let y = figureHeader(root, {
      title: t('imp.title'), width,
      subtitle: [targetsText(t, importance, run.tokens), t('imp.subtitle'), removed ? t('imp.onTopOf', { count: removed }) : ''].filter(Boolean),
    });
    const map = drawMap(root, { y, width, theme, importance, layers, heads, selected: state, t });
    y = map.y;
    const row = session.row(layer, head, token);
    const norms = session.contributions(layer, head, token);
    const attended = largest(row).index;
    const contributionShare = norms[attended] / (total(norms) || 1);
    const effect = effectAt(importance, token, layer * heads + head);
    const { head: headColourFill, second } = seriesColours(theme);
    for (const line of wrapText(t('imp.barsTitle', { head: capitalise(headName(t, layer, head)), phrase: tokenPhrase(t, run.tokens[token], token) }), width - 2 * FIGURE_PAD, 15, 700)) {
      root.append(svg('text', { x: FIGURE_PAD, y: y + 4, class: 'fig-title imp-bars-title', text: line }));
      y += 20;
    }
    const attendedName = t.quote(run.tokens[attended]);
    y = drawBars(root, {
      y, width, t, bars: [
        { kind: 'attention', label: t('imp.barAttention'), value: row[attended], share: row[attended], colour: headColourFill, text: t.number(row[attended], 3) },
        { kind: 'contribution', label: t('imp.barContribution'), value: contributionShare, share: contributionShare, colour: second, text: t.percent(contributionShare) },
        { kind: 'effect', label: t('imp.barEffect'), value: effect.value, share: Math.abs(effect.value) / map.peak, colour: diverging(-0.8, theme), text: t('imp.nats', { delta: t.number(effect.value, 3) }) },
      ],
    });
    root.dataset.importanceMs = String(importance.computeMs ?? importance.ms);
    root.dataset.maskedInTurn = String(importance.maskedInTurn);
    const height = y + FIGURE_PAD;
    root.setAttribute('height', height);
    root.setAttribute('viewBox', `0 0 ${width} ${height}`);
    background.setAttribute('height', height);
    const notes = [
      note(t('imp.measureAttention', { token: attendedName }), 'reading imp-measure'),
      note(t('imp.measureContribution', { token: attendedName }), 'reading imp-measure'),
      note(t(effect.own ? 'imp.measureEffectOwn' : 'imp.measureEffectMean', { token: t.quote(run.tokens[token]) }), 'reading imp-measure'),
      note(t('imp.hint'), 'hint'),
    ];
    return { figure: root, notes, wire: wireMap };
  },
};

function wireProgress(figure, ui, job) {
  const listener = (done) => {
    if (!figure.isConnected) { job.listeners.delete(listener); return; }
    if (done) { job.listeners.delete(listener); ui.select({}); return; }
    const line = figure.querySelector('.imp-progress-text');
    if (line) line.textContent = ui.t('imp.computing', { done: job.progress.done, total: job.progress.total });
  };
  listener.figure = figure;
  job.listeners.add(listener);
}

function wireMap(figure, ui) {
  for (const cell of figure.querySelectorAll('.imp-cell:not(.imp-layer)')) {
    cell.addEventListener('click', () => ui.select({ layer: Number(cell.dataset.layer) - 1, head: Number(cell.dataset.head) - 1 }, 'figure'));
  }
  figure.addEventListener('keydown', (event) => {
    const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    const move = moves[event.key];
    if (!move) return;
    event.preventDefault();
    const { layers, heads } = ui.shape;
    const layer = Math.min(layers - 1, Math.max(0, ui.state.layer + move[0]));
    const head = Math.min(heads - 1, Math.max(0, ui.state.head + move[1]));
    ui.select({ layer, head }, 'figure');
  });
}
