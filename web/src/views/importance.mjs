// Head importance: what removing each head (and each whole layer) does to the model's right
// answer — the causal reading beside attention paid and contribution made. By default for the
// chosen word (Session.importanceWord: one engine call, the word masked, or at a [MASK] the word
// the reader says belongs there); the mean over every word is an explicit choice (over=all),
// computed once per run and removal set (Session.importance) step by step between frames, with
// progress. Map and bars show the same quantity, on one absolute scale in nats.

import { svg, textWidth } from '../dom.mjs';
import { figureHeader, figureRoot, FIGURE_PAD, colourLegend, fitText, seriesColours, wrapText } from '../charts.mjs';
import { diverging, inkOn } from '../palette.mjs';
import { messageFigure } from '../figures.mjs';
import { headName, isBoundaryToken, isMaskToken, tokenPhrase, largest, total } from '../format.mjs';
import { enumParam } from '../view-state.mjs';
import { html } from '../dom.mjs';
import { toggle } from '../widgets.mjs';
import { importanceInWorkers, warmImportanceWorkers } from '../importance-workers.mjs';
import { capitalise, note, weightsWaitText } from './common.mjs';

/** Time given to the computation per frame when it runs between frames (a step that would end later waits for the next). */
const SLICE_MS = 30;
/** While workers compute, the progress drawn at most this often. */
const PROGRESS_MS = 100;
/** Larger than this (targets × tokens), the map is not computed: each target is a forward pass of every token. */
const MAX_WORK = 128 * 128;
const CELL_HEIGHT = 32;
/** The colour scale's end, in nats: a Δ of this size or more is drawn at full strength, whatever the sentence. */
export const COLOUR_NATS = 1;
/** Work (tokens × probes) under which one word's importance is computed at once in the render. */
const WORD_AT_ONCE = 64 * 24;
/** Longest answer a reader can type. */
const MAX_ANSWER = 40;
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
    job = { memo: session.runMemo, steps: null, progress: { done: 0, total: targets * shape.layers }, listeners: new Set() };
    jobs.set(session, job);
  }
  if (!job.running && !(job.steps === null && runInWorkers(session, job))) {
    job.steps ??= session.importanceSteps();
    runBetweenFrames(session, job);
  }
  return { job };
}

const notify = (job, done) => { for (const listener of job.listeners) listener(done); };

/** Whether the job's run is still the session's and a figure still waits for it (listeners of figures gone are dropped). */
function stillWanted(session, job) {
  for (const listener of job.listeners) if (!listener.figure.isConnected) job.listeners.delete(listener);
  return session.runMemo === job.memo && job.listeners.size > 0;
}

/** The job in the page's workers (importance-workers.mjs): true when they took it. */
function runInWorkers(session, job) {
  const offThread = importanceInWorkers(session, (progress) => {
    // a new run, or no figure waiting for it: the workers stop, and the view starts them again when shown
    if (!stillWanted(session, job)) {
      job.running = false;
      if (jobs.get(session) === job) jobs.delete(session);
      offThread.cancel();
      return;
    }
    job.progress = progress;
    // the progress line drawn at most every PROGRESS_MS: its drawing takes the workers' cores
    if (performance.now() - (job.drawnAt ?? 0) < PROGRESS_MS) return;
    job.drawnAt = performance.now();
    notify(job, false);
  });
  if (!offThread) return false;
  job.running = true;
  offThread.result.then((value) => {
    job.running = false;
    if (session.runMemo !== job.memo) return;
    job.done = true;
    session.memo('importance', () => ({ ...value, computeMs: value.ms, workers: offThread.workers }));
    notify(job, true);
  }, (error) => {
    if (jobs.get(session) !== job) return;  // cancelled: a later job, or none, stands for it
    job.running = false;
    if (session.runMemo !== job.memo) return;
    if (error?.fallback) {  // no worker could run it: the page's thread, between frames
      job.steps = session.importanceSteps();
      runBetweenFrames(session, job);
      return;
    }
    job.error = error;
    notify(job, true);
  });
  return true;
}

function runBetweenFrames(session, job) {
  job.running = true;
  const slice = () => {
    // A new run (or removal set), or no figure waiting for it (another view): it stops, and the
    // view takes it up again where it was when it is shown.
    if (!stillWanted(session, job)) { job.running = false; return; }
    const start = performance.now();
    let step;
    try {
      // steps while the next one, as long as the last, still ends within the slice
      let last = 0;
      do {
        const at = performance.now();
        step = job.steps.next();
        last = performance.now() - at;
      } while (!step.done && performance.now() - start + last < SLICE_MS);
    } catch (error) {
      job.error = error;
      job.running = false;
      notify(job, true);
      return;
    }
    job.computeMs = (job.computeMs ?? 0) + performance.now() - start;
    if (step.done) {
      job.running = false;
      job.done = true;
      session.memo('importance', () => ({ ...step.value, computeMs: job.computeMs }));
      notify(job, true);
      return;
    }
    job.progress = step.value;
    notify(job, false);
    setTimeout(slice, 0);
  };
  setTimeout(slice, 0);
}

function targetsText(t, importance) {
  if (importance.maskedInTurn) return t('imp.targetsInTurn', { count: importance.targets.length });
  const list = importance.targets.map((target) => t('imp.maskAnswer', { index: target.position, answer: t.quote(target.answer.token) })).join(', ');
  return t('imp.targetsMask', { count: importance.targets.length, list });
}

/** The vocabulary id of the word the reader typed: {id} when it is one token, else {problem}. */
function answerIdOf(engine, text) {
  const word = String(text ?? '').trim();
  if (!word) return { id: null };
  const tokens = engine.tokenize(word);
  const inner = tokens.ids.filter((_, i) => !isBoundaryToken(tokens.tokens[i]));
  return inner.length === 1 ? { id: inner[0] } : { id: null, problem: word };
}

/** What the chosen word's reading measures, in a sentence: its target, its answer and where that answer comes from. */
function wordTargetText(t, run, result, problem) {
  const phrase = tokenPhrase(t, run.tokens[result.position], result.position);
  if (!result.masked) return t('imp.targetWord', { phrase, answer: t.quote(result.answer.token) });
  const top = t.quote(result.top1.token);
  if (result.answerGiven) return t('imp.targetMaskGiven', { index: result.position, answer: t.quote(result.answer.token), top });
  if (problem) return t('imp.targetMaskUnknown', { index: result.position, word: t.quote(problem), top });
  return t('imp.targetMaskTop', { index: result.position, top });
}

/** One word's reading in the shape of the mean: {heads, layers, changed}. */
function wordShown(result) {
  const changedOf = (top1) => Float32Array.from(top1, (id) => Number(id !== result.top1.id));
  return { heads: result.heads, layers: result.layers, changed: { heads: changedOf(result.headTop1), layers: changedOf(result.layerTop1) } };
}

/** Δ (nats) to a fill on the absolute scale: ±COLOUR_NATS and beyond at full strength. */
function fillOf(delta, theme) {
  return diverging(Math.max(-1, Math.min(1, delta / COLOUR_NATS)), theme);
}

function drawMap(root, { y, width, theme, shown, layers, heads, selected, off, t }) {
  const labelWidth = Math.ceil(Math.max(...Array.from({ length: layers }, (_, l) => textWidth(t('grid.layerShort', { layer: l + 1 }), 11, 400)))) + 10;
  const columns = heads + 1;
  const gap = 8;
  const cellWidth = Math.min(120, Math.floor((width - 2 * FIGURE_PAD - labelWidth - gap) / columns));
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
      const delta = whole ? shown.layers[l] : shown.heads[l * heads + c];
      const changed = whole ? shown.changed.layers[l] : shown.changed.heads[l * heads + c];
      const switchedOff = !whole && off.has(l * heads + c);
      const fill = switchedOff ? 'none' : fillOf(delta, theme);
      const x = columnX(c);
      const chosen = !whole && l === selected.layer && c === selected.head;
      const cell = svg('g', {
        class: `imp-cell${whole ? ' imp-layer' : ''}${switchedOff ? ' imp-off' : ''}`, role: 'gridcell', tabindex: chosen ? 0 : -1, 'aria-selected': String(chosen),
        'aria-label': switchedOff ? t('imp.offAria', { head: headName(t, l, c) }) : t(whole ? 'imp.layerAria' : 'imp.cellAria', {
          head: whole ? '' : headName(t, l, c), layer: l + 1, delta: t.number(delta, 3), changed: t.percent(changed),
        }),
        dataset: { layer: String(l + 1), head: whole ? '' : String(c + 1), delta: String(delta), changed: String(changed), off: String(switchedOff) },
      });
      cell.append(svg('rect', { x: x + 1, y: y + 1, width: cellWidth - 2, height: CELL_HEIGHT - 2, rx: 4, fill, class: 'imp-bg' }));
      if (chosen) cell.append(svg('rect', { x: x + 1, y: y + 1, width: cellWidth - 2, height: CELL_HEIGHT - 2, rx: 4, class: 'imp-chosen' }));
      cell.append(svg('text', {
        x: x + cellWidth / 2, y: y + CELL_HEIGHT / 2, 'text-anchor': 'middle', 'dominant-baseline': 'central',
        class: switchedOff ? 'table-value imp-off-text' : 'table-value', fill: switchedOff ? undefined : inkOn(rgbOf(fill)),
        text: switchedOff ? fitText(t('imp.off'), cellWidth - 4, 11) : t.number(delta, cellWidth < 44 ? 1 : 2),
      }));
      row.append(cell);
    }
    grid.append(row);
    y += CELL_HEIGHT;
  }
  root.append(grid);
  y += 12;
  const legendWidth = Math.min(300, width - 2 * FIGURE_PAD);
  const legend = svg('g', { class: 'imp-legend', dataset: { nats: String(COLOUR_NATS) } });
  colourLegend(legend, {
    x: FIGURE_PAD, y, width: legendWidth, theme, kind: 'diverging', caption: t('imp.legendZero'),
    low: t('imp.legendLow', { value: t.number(-COLOUR_NATS, 0) }), high: t('imp.legendHigh', { value: t.number(COLOUR_NATS, 0) }),
  });
  y += 40;
  for (const line of wrapText(t('imp.legendMeaning'), width - 2 * FIGURE_PAD, 11, 400)) {
    legend.append(svg('text', { x: FIGURE_PAD, y, class: 'axis imp-legend-meaning', text: line }));
    y += 14;
  }
  root.append(legend);
  return { y: y + 8 };
}

/** Attention paid and contribution made for the chosen token and head, on 0–1 bars. */
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

/**
 * The effect on its own axis, in nats, centred on 0: −A … +A with A the colour scale's end or
 * the effect's size rounded up to a half nat, labelled.
 */
function drawEffect(root, { y, width, t, theme, value, label, text }) {
  const reach = Math.max(COLOUR_NATS, Math.ceil(Math.abs(value) * 2) / 2);
  const labelWidth = Math.ceil(textWidth(label, 12.5, 600)) + 10;
  const valueWidth = Math.ceil(textWidth(text, 12, 600)) + 10;
  const x = FIGURE_PAD + labelWidth;
  const axisWidth = Math.max(60, width - 2 * FIGURE_PAD - labelWidth - valueWidth);
  const zero = x + axisWidth / 2;
  const at = (v) => zero + (v / reach) * (axisWidth / 2);
  const group = svg('g', { class: 'imp-bar imp-bar-effect', dataset: { kind: 'effect', value: String(value), reach: String(reach) } });
  group.append(svg('text', { x: FIGURE_PAD, y: y + 9, 'dominant-baseline': 'central', class: 'cell-name', text: label }));
  group.append(svg('rect', { x, y, width: axisWidth, height: 18, class: 'imp-bar-bg' }));
  const end = at(Math.max(-reach, Math.min(reach, value)));
  group.append(svg('rect', { x: Math.min(zero, end), y: y + 2, width: Math.abs(end - zero), height: 14, fill: fillOf(value < 0 ? -COLOUR_NATS : COLOUR_NATS, theme), class: 'bar' }));
  group.append(svg('line', { x1: zero, x2: zero, y1: y - 2, y2: y + 22, class: 'imp-axis-zero' }));
  group.append(svg('text', { x: x + axisWidth + 6, y: y + 9, 'dominant-baseline': 'central', class: 'val', text }));
  const ticks = svg('g', { class: 'imp-effect-axis' });
  for (const v of [-reach, 0, reach]) {
    ticks.append(svg('line', { x1: at(v), x2: at(v), y1: y + 18, y2: y + 23, class: 'imp-axis-tick' }));
    ticks.append(svg('text', { x: at(v), y: y + 34, 'text-anchor': v < 0 ? 'start' : v > 0 ? 'end' : 'middle', class: 'axis', text: (v > 0 ? '+' : '') + t.number(v, v % 1 ? 1 : 0) }));
  }
  ticks.append(svg('text', { x: zero, y: y + 48, 'text-anchor': 'middle', class: 'axis imp-axis-label', text: t('imp.effectAxis') }));
  group.append(ticks);
  root.append(group);
  return y + 58;
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

/** Importance for the chosen word (the default) or the mean over every word. */
const overControl = {
  name: 'over',
  state: { importanceOver: 'word' },
  params: [enumParam('over', {
    values: ['word', 'all'], toState: (word) => ({ importanceOver: word }), fromState: (s) => s.importanceOver,
    isDefault: (s) => s.importanceOver === 'word', used: (s) => [s.importanceOver === 'all' ? 'problem.usedOverAll' : 'problem.usedOverWord', {}],
  })],
  build(ui) {
    const { input, control } = toggle('over-toggle', null, ui.t('control.importanceAll'), (on) => ui.select({ importanceOver: on ? 'all' : 'word' }));
    return { element: control, sync: (state) => { input.checked = state.importanceOver === 'all'; } };
  },
};

/** The word the reader says belongs at the chosen [MASK] (answer=); shown when a [MASK] is chosen. */
const answerControl = {
  name: 'answer',
  state: { answer: '' },
  params: [{
    name: 'answer',
    read: (text) => ({ set: { answer: String(text).trim().slice(0, MAX_ANSWER) } }),
    write: (state) => state.answer || null,
  }],
  build(ui) {
    const input = html('input', { type: 'text', class: 'answer-input', maxlength: String(MAX_ANSWER), spellcheck: 'false', autocomplete: 'off' });
    const label = html('label', { class: 'answer-label' }, [html('span', { text: ui.t('control.answer') }), input]);
    const control = html('div', { class: 'view-control answer-control' }, [label]);
    input.addEventListener('change', () => ui.select({ answer: input.value.trim().slice(0, MAX_ANSWER) }));
    return {
      element: control,
      sync: (state) => {
        if (document.activeElement !== input && input.getRootNode().activeElement !== input) input.value = state.answer;
        control.hidden = !isMaskToken(ui.tokens[state.token]) || state.importanceOver === 'all';
      },
    };
  },
};

export const importanceView = {
  id: 'head-importance',
  layersShown: (state, shape) => shape.layers,
  aliases: ['importance'],
  labelKey: 'view.importance',
  controls: [overControl, answerControl],
  focus: '.imp-cell[tabindex="0"]',
  render(ctx) {
    const { engine, state, width, t } = ctx;
    if (!engine.hasMlm()) {
      return { figure: messageFigure({ width, title: t('imp.title'), lines: [t('imp.noMlm')] }), notes: [] };
    }
    warmImportanceWorkers(engine, { meanAsked: state.importanceOver === 'all' });
    if (engine.loading && engine.partsMissing() > 0) {
      const waiting = engine.loading.ensureAll();
      waiting.catch(() => {});  // a refusal is shown by the explorer
      return {
        figure: messageFigure({ width, title: t('imp.title'), lines: [weightsWaitText(t, engine)] }),
        notes: [], wire: (figure, ui) => waiting.then(() => { if (figure.isConnected) ui.select({}); }, () => {}),
      };
    }
    return state.importanceOver === 'all' ? renderAll(ctx) : renderWord(ctx);
  },
};

/** The chosen word's importance: computed at once when small, else just after this frame. */
function renderWord(ctx) {
  const { session, engine, run, state, width, t } = ctx;
  const { token } = state;
  if (isBoundaryToken(run.tokens[token])) {
    return { figure: messageFigure({ width, title: t('imp.titleWord'), lines: [t('imp.pickWord', { token: t.quote(run.tokens[token]) })] }), notes: [] };
  }
  const { id: answerId, problem } = isMaskToken(run.tokens[token]) ? answerIdOf(engine, state.answer) : { id: null };
  const key = `importance:${token}:${answerId ?? ''}`;
  const { layers, heads } = engine.shape;
  if (!session.runMemo.has(key) && run.n * layers * (heads + 1) > WORD_AT_ONCE) {
    const figure = messageFigure({ width, title: t('imp.titleWord'), lines: [t('imp.computingWord')] });
    figure.classList.add('imp-progress');
    return {
      figure, notes: [], wire: (shown, ui) => setTimeout(() => {
        if (!shown.isConnected) return;
        try { session.importanceWord(token, answerId); } catch { /* drawn again, the render reports it */ }
        ui.select({});
      }, 0),
    };
  }
  const result = session.importanceWord(token, answerId);
  const subtitle = [wordTargetText(t, run, result, problem), t('imp.subtitleWord')];
  return drawImportance(ctx, { title: t('imp.titleWord'), subtitle, shown: wordShown(result), effect: { value: result.heads[state.layer * heads + state.head], own: true }, ms: result.ms, kind: 'word', result });
}

/** The mean over every word (or every [MASK]): computed step by step between frames. */
function renderAll(ctx) {
  const { session, engine, run, state, width, t } = ctx;
  const { heads } = engine.shape;
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
  const shown = { heads: importance.mean.heads, layers: importance.mean.layers, changed: importance.changed };
  const subtitle = [targetsText(t, importance), t('imp.subtitle')];
  return drawImportance(ctx, { title: t('imp.title'), subtitle, shown, effect: { value: shown.heads[state.layer * heads + state.head], own: false },
    ms: importance.computeMs ?? importance.ms, kind: 'all', importance });
}

/** Map, legend, bars and effect axis of one quantity (`shown`): the chosen word's Δ or the mean over the words. */
function drawImportance(ctx, { title, subtitle, shown, effect, ms, kind, importance, result }) {
  const { session, engine, run, state, width, theme, t } = ctx;
  const { layers, heads } = engine.shape;
  const { layer, head, token } = state;
  const removedHeads = session.removedHeads();
  const off = new Set(removedHeads.map(([l, h]) => l * heads + h));
  const root = figureRoot(width, 1, title);
  const background = svg('rect', { x: 0, y: 0, width, height: 1, class: 'fig-bg' });
  root.append(background);
  let y = figureHeader(root, {
    title, width,
    subtitle: [...subtitle, removedHeads.length ? t('imp.onTopOf', { count: removedHeads.length }) : ''].filter(Boolean),
  });
  y = drawMap(root, { y, width, theme, shown, layers, heads, selected: state, off, t }).y;
  const row = session.row(layer, head, token);
  const norms = session.contributions(layer, head, token);
  const attended = largest(row).index;
  const contributionShare = norms[attended] / (total(norms) || 1);
  const { head: headColourFill, second } = seriesColours(theme);
  const chosenOff = off.has(layer * heads + head);
  for (const line of wrapText(t('imp.barsTitle', { head: capitalise(headName(t, layer, head)), phrase: tokenPhrase(t, run.tokens[token], token) }), width - 2 * FIGURE_PAD, 15, 700)) {
    root.append(svg('text', { x: FIGURE_PAD, y: y + 4, class: 'fig-title imp-bars-title', text: line }));
    y += 20;
  }
  if (chosenOff) {
    for (const line of wrapText(t('imp.chosenOff', { head: capitalise(headName(t, layer, head)) }), width - 2 * FIGURE_PAD, 12.5, 600)) {
      root.append(svg('text', { x: FIGURE_PAD, y: y + 4, class: 'fig-sub imp-off-line', text: line }));
      y += 18;
    }
    y += 4;
  }
  const attendedName = t.quote(run.tokens[attended]);
  const offSuffix = chosenOff ? ` ${t('imp.offShort')}` : '';
  y = drawBars(root, {
    y, width, bars: [
      { kind: 'attention', label: t('imp.barAttention'), value: row[attended], share: row[attended], colour: headColourFill, text: t.number(row[attended], 3) + offSuffix },
      { kind: 'contribution', label: t('imp.barContribution'), value: contributionShare, share: chosenOff ? 0 : contributionShare, colour: second, text: chosenOff ? t('imp.offShort') : t.percent(contributionShare) },
    ],
  });
  y += 6;
  const effectLabel = t(kind === 'word' ? 'imp.barEffect' : 'imp.barEffectMean');
  y = drawEffect(root, { y, width, t, theme, value: effect.value, label: effectLabel, text: chosenOff ? t('imp.offShort') : t('imp.nats', { delta: t.number(effect.value, 3) }) });
  root.dataset.importanceMs = String(ms);
  root.dataset.over = kind;
  root.dataset.maskedInTurn = String(importance ? importance.maskedInTurn : !result.masked);
  if (result) Object.assign(root.dataset, { target: String(result.position), answer: String(result.answer.id), answerGiven: String(result.answerGiven) });
  const height = y + FIGURE_PAD;
  root.setAttribute('height', height);
  root.setAttribute('viewBox', `0 0 ${width} ${height}`);
  background.setAttribute('height', height);
  const effectNote = kind === 'word' ? 'imp.measureEffectWord' : 'imp.measureEffectMean';
  const notes = [
    note(t('imp.measureAttention', { token: attendedName }), 'reading imp-measure'),
    note(t('imp.measureContribution', { token: attendedName }), 'reading imp-measure'),
    note(t(effectNote, { token: t.quote(run.tokens[token]) }), 'reading imp-measure'),
    note(t('imp.scaleNote', { nats: t.number(COLOUR_NATS, 0) }), 'reading imp-scale'),
    note(t('imp.hint'), 'hint'),
  ];
  return { figure: root, notes, wire: wireMap };
}

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
