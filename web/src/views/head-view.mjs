// Head view (after BertViz): every token's attention at once, as lines from a left token
// column to a right one, line strength = weight, the layer's heads overlaid in their own
// colours. Hovering or focusing a token on the left isolates its lines.

import { svg, textWidth } from '../dom.mjs';
import { figureHeader, figureRoot, FIGURE_PAD, fitText } from '../charts.mjs';
import { headColour } from '../palette.mjs';
import { isSpecialToken } from '../format.mjs';
import { note, keptTokens, renormalised, renormalisedNote, wireHeadSwitches } from './common.mjs';
import { specialControl } from './controls.mjs';
import { headSwitch } from '../figures.mjs';

/** Lines below this weight are not drawn (they would be invisible anyway)… */
const MIN_LINE_WEIGHT = 0.02;
/** …except each token's TOP_K strongest lines in each head, which are drawn at any length. */
const TOP_K = 3;

/** The indices of the k largest values of a row. */
function topIndices(row, k) {
  return Array.from(row.keys()).sort((a, b) => row[b] - row[a]).slice(0, k);
}
/** Above this many tokens only the chosen token's lines are drawn. */
const ALL_LINES_UP_TO = 64;

export const headView = {
  id: 'head-view',
  aliases: ['lines'],
  labelKey: 'view.lines',
  controls: [specialControl],
  state: { soloHead: null },
  focus: '.hv-left[tabindex="0"]',
  render(ctx) {
    const { session, engine, run, state, width, theme, t } = ctx;
    const { heads } = engine.shape;
    const { layer, token } = state;
    let kept = keptTokens(run.tokens, state.hideSpecial);
    const hiding = kept.length < run.n && kept.length > 0;
    if (!hiding) kept = keptTokens(run.tokens, false);
    const m = kept.length;
    const allLines = m <= ALL_LINES_UP_TO;
    const chosen = kept.indexOf(token);
    const sources = allLines ? kept.map((_, k) => k) : chosen >= 0 ? [chosen] : [];
    const root = figureRoot(width, 1, t('lines.label', { layer: layer + 1 }));
    const background = svg('rect', { x: 0, y: 0, width, height: 1, class: 'fig-bg' });
    root.append(background);
    let y = figureHeader(root, {
      title: t('lines.title', { layer: layer + 1, count: heads }), width,
      subtitle: t(allLines ? 'lines.subtitle' : 'lines.subtitleChosen', { min: t.number(MIN_LINE_WEIGHT, 2), m, k: TOP_K }) +
        (hiding ? t('lines.hidden') : ''),
    });
    const off = (h) => session.removedHeads().some(([l, rh]) => l === layer && rh === h);
    const solo = state.soloHead !== null && state.soloHead < heads ? state.soloHead : null;
    y = drawLegend(root, { x: FIGURE_PAD, y, width: width - 2 * FIGURE_PAD, heads, theme, selectedHead: state.head, layer, off, solo, t });
    const rowHeight = m <= 40 ? 20 : 16;
    let widest = 0;
    for (const i of kept) widest = Math.max(widest, textWidth(run.tokens[i], 12.5, 750));
    const labelWidth = Math.min(Math.round(width * 0.3), Math.ceil(widest + 34));
    const xLeft = FIGURE_PAD + labelWidth, xRight = width - FIGURE_PAD - labelWidth;
    const top = y + 6;
    const rowY = (k) => top + k * rowHeight + rowHeight / 2;
    const lines = svg('g', { class: 'hv-lines' });
    const rowsByHead = [];
    for (let h = 0; h < heads; h++) {
      rowsByHead.push(sources.map((k) => {
        const row = session.row(layer, h, kept[k]);
        return hiding ? renormalised(row, kept) : Float32Array.from(kept, (j) => row[j]);
      }));
    }
    sources.forEach((k, s) => {
      const group = svg('g', { class: `hv-from${kept[k] === token ? ' chosen' : ''}`, dataset: { from: String(kept[k]) } });
      for (let h = 0; h < heads; h++) {
        const row = rowsByHead[h][s];
        const strongest = new Set(topIndices(row, TOP_K));
        row.forEach((w, to) => {
          if (w < MIN_LINE_WEIGHT && !strongest.has(to)) return;
          group.append(svg('line', {
            x1: xLeft, y1: rowY(k), x2: xRight, y2: rowY(to), stroke: headColour(h, heads, theme),
            'stroke-width': 2, 'stroke-opacity': Math.max(0.08, Math.min(1, w)).toFixed(3), class: `hv-line${off(h) ? ' off' : ''}`,
            dataset: { head: String(h + 1), to: String(kept[to]), weight: String(w) },
          }));
        });
      }
      lines.append(group);
    });
    root.append(lines);
    const labels = svg('g', { class: 'hv-labels' });
    kept.forEach((i, k) => {
      const special = isSpecialToken(run.tokens[i]) ? ' tok-special' : '';
      const text = fitText(run.tokens[i], labelWidth - 12, 12.5, 750);
      labels.append(svg('text', {
        x: xLeft - 8, y: rowY(k), 'text-anchor': 'end', 'dominant-baseline': 'central', tabindex: i === token ? 0 : -1,
        class: `tok hv-left${special}${i === token ? ' tok-chosen' : ''}`, dataset: { index: String(i) }, role: 'button',
        'aria-label': t('lines.tokenAria', { index: i, token: run.tokens[i] }), text,
      }));
      labels.append(svg('text', {
        x: xRight + 8, y: rowY(k), 'dominant-baseline': 'central', class: `tok hv-right${special}`, text,
      }));
    });
    root.append(labels);
    const height = top + m * rowHeight + FIGURE_PAD;
    root.setAttribute('height', height);
    root.setAttribute('viewBox', `0 0 ${width} ${height}`);
    background.setAttribute('height', height);
    const notes = [
      note(t('lines.hint', { layer: layer + 1 }), 'hint'),
      hiding ? note(renormalisedNote(t), 'warning renormalised') : null,
    ];
    root.dataset.solo = solo === null ? '' : String(solo + 1);
    return { figure: root, notes, wire: wireHeadView };
  },
};

function drawLegend(root, { x, y, width, heads, theme, selectedHead, layer, off, solo, t }) {
  let cx = x;
  let cy = y + 4;
  for (let h = 0; h < heads; h++) {
    const label = t('grid.head', { head: h + 1 });
    const labelWidth = textWidth(label, 12.5, h === selectedHead || h === solo ? 700 : 400);
    const switchText = Math.max(textWidth(t('ablation.on'), 11, 600), textWidth(t('ablation.off'), 11, 600));
    const w = 22 + labelWidth + 10 + 34 + switchText + 18;
    if (cx > x && cx + w > x + width) { cx = x; cy += 24; }
    const item = svg('g', {
      class: 'hv-legend-item', role: 'button', tabindex: 0, 'aria-pressed': h === solo ? 'true' : 'false',
      'aria-label': t('lines.legendAria', { head: h + 1 }), dataset: { head: String(h + 1) },
    });
    item.append(svg('rect', { x: cx, y: cy - 6, width: 22 + labelWidth + 4, height: 16, fill: 'transparent' }));
    item.append(svg('rect', { x: cx, y: cy, width: 16, height: 4, fill: headColour(h, heads, theme), class: 'hv-swatch' }));
    item.append(svg('text', { x: cx + 22, y: cy + 2, 'dominant-baseline': 'central', class: `axis${h === selectedHead ? ' hv-current' : ''}`, text: label }));
    root.append(item);
    root.append(headSwitch({ x: cx + 22 + labelWidth + 10, y: cy - 5, layer, head: h, off: off(h), focusable: true, t }));
    cx += w;
  }
  return cy + 18;
}

/** Shows only head `head`'s lines (1-based, as text), or every head's when it is ''. */
function showHeadAlone(figure, head) {
  for (const line of figure.querySelectorAll('.hv-line')) line.classList.toggle('solo-hidden', head !== '' && line.dataset.head !== head);
}

function wireHeadView(figure, ui) {
  wireHeadSwitches(figure, ui);
  const pinned = figure.dataset.solo;
  showHeadAlone(figure, pinned);
  for (const item of figure.querySelectorAll('.hv-legend-item')) {
    const head = item.dataset.head;
    const pick = () => ui.select({ soloHead: pinned === head ? null : Number(head) - 1 }, `.hv-legend-item[data-head="${head}"]`);
    item.addEventListener('pointerenter', () => showHeadAlone(figure, head));
    item.addEventListener('pointerleave', () => showHeadAlone(figure, pinned));
    item.addEventListener('focus', () => showHeadAlone(figure, head));
    item.addEventListener('blur', () => showHeadAlone(figure, pinned));
    item.addEventListener('click', pick);
    item.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' || event.key === ' ') { event.preventDefault(); pick(); }
    });
  }
  const isolate = (index) => {
    figure.classList.toggle('isolating', index !== null);
    for (const group of figure.querySelectorAll('.hv-from')) group.classList.toggle('on', group.dataset.from === String(index));
  };
  const labels = [...figure.querySelectorAll('.hv-left')];
  for (const label of labels) {
    label.addEventListener('pointerenter', () => isolate(label.dataset.index));
    label.addEventListener('pointerleave', () => isolate(null));
    label.addEventListener('focus', () => isolate(label.dataset.index));
    label.addEventListener('blur', () => isolate(null));
    label.addEventListener('click', () => ui.select({ token: Number(label.dataset.index) }, 'figure'));
  }
  figure.addEventListener('keydown', (event) => {
    const at = labels.indexOf(event.target);
    if (at < 0) return;
    if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      ui.select({ token: Number(event.target.dataset.index) }, 'figure');
    } else if (event.key === 'Escape') {
      isolate(null);
    } else if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      const next = labels[Math.min(labels.length - 1, Math.max(0, at + (event.key === 'ArrowDown' ? 1 : -1)))];
      event.target.tabIndex = -1;
      next.tabIndex = 0;
      next.focus();
    }
  });
}
