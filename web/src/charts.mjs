// Figures drawn as SVG: token rows of bars, heat maps, strips. Each figure starts with a
// title that names the attention it shows, so an exported picture explains itself.

import { svg, textWidth } from './dom.mjs';
import { probability, fixed, isSpecialToken } from './format.mjs';
import { SERIES, sequentialRgb, diverging } from './palette.mjs';

export const FIGURE_PAD = 14;
const TITLE_SIZE = 15;
const LINE = 18;

/** A round upper bound for an axis that must show `value`. */
export function niceMax(value) {
  if (!(value > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10]) {
    if (value <= step * power * 1.0000001) return step * power;
  }
  return 10 * power;
}

/** Wraps text into lines of at most `width` px. */
export function wrapText(text, width, size = 13, weight = 400) {
  const words = String(text).split(/\s+/);
  const lines = [];
  let line = '';
  for (const word of words) {
    const next = line ? `${line} ${word}` : word;
    if (line && textWidth(next, size, weight) > width) {
      lines.push(line);
      line = word;
    } else line = next;
  }
  if (line) lines.push(line);
  return lines;
}

/** Title and subtitle lines at the top of a figure; returns the y below them. */
export function figureHeader(parent, { title, subtitle = [], width }) {
  let y = FIGURE_PAD + TITLE_SIZE;
  for (const line of wrapText(title, width - 2 * FIGURE_PAD, TITLE_SIZE, 700)) {
    parent.append(svg('text', { x: FIGURE_PAD, y, class: 'fig-title', text: line }));
    y += LINE + 2;
  }
  for (const paragraph of [subtitle].flat()) {
    for (const line of wrapText(paragraph, width - 2 * FIGURE_PAD, 13)) {
      parent.append(svg('text', { x: FIGURE_PAD, y: y - 2, class: 'fig-sub', text: line }));
      y += LINE - 1;
    }
  }
  return y + 4;
}

export function figureRoot(width, height, label) {
  return svg('svg', {
    class: 'figure', width, height, viewBox: `0 0 ${width} ${height}`,
    role: 'group', 'aria-label': label, xmlns: 'http://www.w3.org/2000/svg',
  });
}

function rowHeightFor(n) {
  if (n <= 40) return 22;
  if (n <= 80) return 14;
  return Math.max(2, Math.min(12, Math.floor(1400 / n)));
}

function tokenColumnWidth(tokens, width, showLabels, indexText) {
  if (!showLabels) return 44;
  let widest = 0;
  for (const token of tokens) widest = Math.max(widest, textWidth(token, 12.5));
  const lastIndex = indexText ? indexText(tokens.length - 1) : String(tokens.length - 1);
  const indexWidth = textWidth(lastIndex, 11) + 10;
  return Math.min(Math.round(width * 0.32), Math.ceil(widest + indexWidth + 12));
}

function drawTokenLabels(parent, { tokens, labels, top, rowHeight, labelWidth, selected, showLabels, indexText }) {
  const group = svg('g', { class: 'token-labels' });
  const every = showLabels ? 1 : Math.ceil(12 / rowHeight);
  tokens.forEach((token, i) => {
    if (!showLabels && i % every !== 0 && i !== selected) return;
    const y = top + i * rowHeight + rowHeight / 2;
    const size = showLabels ? 12.5 : 10;
    if (showLabels) {
      group.append(svg('text', { x: FIGURE_PAD, y, class: 'tok-index', 'dominant-baseline': 'central', text: indexText ? indexText(i) : String(i) }));
    }
    const special = isSpecialToken(token) ? ' tok-special' : '';
    const chosen = i === selected ? ' tok-chosen' : '';
    const label = labels ? labels[i] : token;
    group.append(svg('text', {
      x: FIGURE_PAD + labelWidth - 10, y, 'text-anchor': 'end', 'dominant-baseline': 'central',
      class: `tok${special}${chosen}`, 'font-size': size, text: showLabels ? label : String(i),
    }));
  });
  parent.append(group);
}

function columnHeading(parent, column, x, y, width) {
  parent.append(svg('text', { x, y, class: 'col-head', fill: column.colour, text: column.heading }));
  (column.stats || []).forEach((line, k) => {
    const cls = k === 0 && column.emphasiseStats ? 'col-stat col-stat-main' : 'col-stat';
    parent.append(svg('text', { x, y: y + 17 + k * 16, class: cls, text: line }));
  });
  if (width < 0) parent.lastChild.remove();
}

function drawProbabilityColumn(group, column, geometry) {
  const { x, width, top, rowHeight, n, showValues, theme } = geometry;
  const valueWidth = showValues ? 50 : 6;
  const barWidth = Math.max(20, width - valueWidth);
  const scaleMax = column.scaleMax ?? niceMax(Math.max(...column.values));
  const scale = (v) => (Math.max(0, v) / scaleMax) * barWidth;
  group.append(svg('rect', {
    x, y: top, width: barWidth, height: n * rowHeight, class: 'plot-bg',
  }));
  column.values.forEach((value, i) => {
    const y = top + i * rowHeight;
    const barHeight = Math.max(1, rowHeight - (rowHeight > 8 ? 6 : 1));
    group.append(svg('rect', {
      x, y: y + (rowHeight - barHeight) / 2, width: Math.max(0.5, scale(value)), height: barHeight,
      fill: column.colour, class: 'bar', dataset: { token: String(i), value: String(value) },
    }, [svg('title', { text: `${column.tokens[i]} (token ${i}): ${column.format(value)}` })]));
    if (showValues) {
      group.append(svg('text', {
        x: x + width, y: y + rowHeight / 2, 'text-anchor': 'end', 'dominant-baseline': 'central',
        class: 'val', text: column.format(value, i),
      }));
    }
  });
  if (column.uniform) {
    const ux = x + scale(column.uniform);
    group.append(svg('line', {
      x1: ux, x2: ux, y1: top - 4, y2: top + n * rowHeight + 20, class: 'uniform-line',
    }));
    group.append(svg('text', {
      x: ux, y: top + n * rowHeight + 31, 'text-anchor': ux - x < 40 ? 'start' : 'middle', class: 'uniform-label',
      text: `dashed: 1/n = ${probability(column.uniform)}`,
    }));
  }
  drawAxis(group, { x, width: barWidth, y: top + n * rowHeight, scaleMax, theme });
}

function drawSignedColumn(group, column, geometry) {
  const { x, width, top, rowHeight, n, showValues, theme } = geometry;
  const valueWidth = showValues ? 56 : 6;
  const barWidth = Math.max(24, width - valueWidth);
  const limit = column.scaleMax ?? niceMax(Math.max(1e-6, ...column.values.map(Math.abs)));
  const middle = x + barWidth / 2;
  const scale = (v) => (v / limit) * (barWidth / 2);
  group.append(svg('rect', { x, y: top, width: barWidth, height: n * rowHeight, class: 'plot-bg' }));
  column.values.forEach((value, i) => {
    const y = top + i * rowHeight;
    const barHeight = Math.max(1, rowHeight - (rowHeight > 8 ? 6 : 1));
    const length = scale(value);
    group.append(svg('rect', {
      x: length < 0 ? middle + length : middle, y: y + (rowHeight - barHeight) / 2,
      width: Math.max(0.5, Math.abs(length)), height: barHeight,
      fill: diverging(value < 0 ? -0.85 : 0.85, theme), class: 'bar',
      dataset: { token: String(i), value: String(value) },
    }, [svg('title', { text: `${column.tokens[i]} (token ${i}): ${column.format(value)}` })]));
    if (showValues) {
      group.append(svg('text', {
        x: x + width, y: y + rowHeight / 2, 'text-anchor': 'end', 'dominant-baseline': 'central',
        class: 'val', text: column.format(value, i),
      }));
    }
  });
  group.append(svg('line', { x1: middle, x2: middle, y1: top - 4, y2: top + n * rowHeight + 4, class: 'zero-line' }));
  const axisY = top + n * rowHeight;
  for (const [tx, label] of [[x, -limit], [middle, 0], [x + barWidth, limit]]) {
    group.append(svg('line', { x1: tx, x2: tx, y1: axisY, y2: axisY + 4, class: 'axis-line' }));
    group.append(svg('text', { x: tx, y: axisY + 16, 'text-anchor': 'middle', class: 'axis', text: fixed(label, limit < 0.01 ? 4 : limit < 0.1 ? 3 : 2) }));
  }
}

function drawAxis(group, { x, width, y, scaleMax }) {
  group.append(svg('line', { x1: x, x2: x + width, y1: y, y2: y, class: 'axis-line' }));
  const ticks = width > 160 ? [0, scaleMax / 2, scaleMax] : [0, scaleMax];
  for (const tick of ticks) {
    const tx = x + (tick / scaleMax) * width;
    group.append(svg('line', { x1: tx, x2: tx, y1: y, y2: y + 4, class: 'axis-line' }));
    group.append(svg('text', {
      x: tx, y: y + 16, 'text-anchor': tick === 0 ? 'start' : tick === scaleMax ? 'end' : 'middle',
      class: 'axis', text: niceTick(tick),
    }));
  }
}

function niceTick(value) {
  if (value === 0) return '0';
  if (value >= 10) return String(Math.round(value));
  if (value >= 1) return String(Number(value.toFixed(1)));
  return String(Number(value.toPrecision(2)));
}

/**
 * One bar per token in one or more side-by-side columns.
 * columns: [{heading, stats: [lines], values, kind: 'probability'|'signed', colour,
 *            uniform, scaleMax, format(v, i), data: {…data attributes}, className}]
 */
export function tokenBarFigure({ width, theme, title, subtitle, tokens, labels, selected, columns, label, indexText }) {
  const n = tokens.length;
  const rowHeight = rowHeightFor(n);
  const showLabels = rowHeight >= 11;
  const labelWidth = tokenColumnWidth(labels || tokens, width, showLabels, indexText);
  const gap = columns.length > 1 ? 30 : 0;
  const available = width - 2 * FIGURE_PAD - labelWidth - gap * (columns.length - 1);
  const columnWidth = Math.max(60, Math.floor(available / columns.length));
  const showValues = showLabels && columnWidth >= 90;

  const body = svg('g');
  let y = figureHeader(body, { title, subtitle, width });
  const statLines = Math.max(...columns.map((c) => (c.stats || []).length));
  const headingY = y + 8;
  const top = headingY + 10 + statLines * 16;
  drawTokenLabels(body, { tokens, labels, top, rowHeight, labelWidth, selected, showLabels, indexText });
  columns.forEach((column, k) => {
    const x = FIGURE_PAD + labelWidth + k * (columnWidth + gap);
    const group = svg('g', { class: `bar-column ${column.className || ''}`.trim(), dataset: column.data || {} });
    if (column.ariaLabel) group.setAttribute('aria-label', column.ariaLabel);
    columnHeading(group, column, x, headingY, columnWidth);
    const geometry = { x, width: columnWidth, top, rowHeight, n, showValues, theme };
    const full = { format: probability, tokens, ...column };
    if (column.kind === 'signed') drawSignedColumn(group, full, geometry);
    else drawProbabilityColumn(group, full, geometry);
    body.append(group);
  });
  if (selected !== null && selected !== undefined && selected < n) {
    body.append(svg('rect', {
      x: FIGURE_PAD - 4, y: top + selected * rowHeight, width: width - 2 * FIGURE_PAD + 8,
      height: rowHeight, class: 'chosen-band', rx: 3, 'pointer-events': 'none',
    }));
  }
  const hasUniform = columns.some((c) => c.uniform);
  const height = top + n * rowHeight + (hasUniform ? 44 : 30);
  const root = figureRoot(width, height, label || title);
  root.append(svg('rect', { x: 0, y: 0, width, height, class: 'fig-bg' }), body);
  return root;
}

/** Legend: a colour ramp with its end values. */
export function colourLegend(parent, { x, y, width, theme, low, high, caption, kind = 'sequential' }) {
  const steps = 24;
  for (let s = 0; s < steps; s++) {
    const t = s / (steps - 1);
    const fill = kind === 'sequential' ? `rgb(${sequentialRgb(t, theme).join(',')})` : diverging(t * 2 - 1, theme);
    parent.append(svg('rect', { x: x + (s * width) / steps, y, width: width / steps + 0.5, height: 10, fill }));
  }
  parent.append(svg('rect', { x, y, width, height: 10, class: 'legend-frame' }));
  parent.append(svg('text', { x, y: y + 24, class: 'axis', text: low }));
  parent.append(svg('text', { x: x + width, y: y + 24, 'text-anchor': 'end', class: 'axis', text: high }));
  if (caption) parent.append(svg('text', { x: x + width / 2, y: y + 24, 'text-anchor': 'middle', class: 'axis', text: caption }));
}

export function seriesColours(theme) {
  return SERIES[theme];
}
