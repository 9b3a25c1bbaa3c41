// Figures drawn as SVG: token rows of bars, heat maps, strips. Each figure starts with a
// title that names the attention it shows, so an exported picture explains itself.

import { svg, textWidth } from './dom.mjs';
import { isSpecialToken } from './format.mjs';
import { translator } from './i18n/index.mjs';

const english = translator('en');
import { SERIES, sequentialRgb, diverging } from './palette.mjs';

export const FIGURE_PAD = 14;
const TITLE_SIZE = 15;
const LINE = 18;
const AXIS_SIZE = 11;  // px, .axis in styles.mjs

/** A round upper bound for an axis that must show `value`. */
export function niceMax(value) {
  if (!(value > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10]) {
    if (value <= step * power * 1.0000001) return step * power;
  }
  return 10 * power;
}

/** A word wider than `width` px, cut into pieces that fit (after punctuation where it can). */
function splitLongWord(word, width, size, weight) {
  if (textWidth(word, size, weight) <= width) return [word];
  const pieces = [];
  let piece = '';
  for (const char of word) {
    if (piece && textWidth(piece + char, size, weight) > width) {
      const cut = Math.max(piece.search(/[(·,/\-–][^(·,/\-–]*$/) + 1, 0);
      const keep = cut > 0 && cut < piece.length ? piece.slice(0, cut) : piece;
      pieces.push(keep);
      piece = piece.slice(keep.length);
    }
    piece += char;
  }
  if (piece) pieces.push(piece);
  return pieces;
}

// Where a line may break: white space but the no-break spaces (U+00A0, U+2007, U+202F), which
// keep French guillemets and marks with their word (« cat », 42 %).
const BREAKABLE_SPACE = /[^\S\u00a0\u2007\u202f]+/;

/** The pieces of text between the places a line may break. */
export function breakableWords(text) {
  return String(text).split(BREAKABLE_SPACE).filter(Boolean);
}

/** Wraps text into lines of at most `width` px (a word wider than that is cut). */
export function wrapText(text, width, size = 13, weight = 400) {
  const words = breakableWords(text).flatMap((word) => splitLongWord(word, width, size, weight));
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

/** Rows stay tall enough for a readable label at any n; long figures scroll in their box. */
function rowHeightFor(n) {
  return n <= 40 ? 22 : 16;
}

function tokenColumnWidth(tokens, width, showLabels, indexText) {
  if (!showLabels) return 44;
  let widest = 0;
  for (const token of tokens) widest = Math.max(widest, textWidth(token, 12.5));
  const lastIndex = indexText ? indexText(tokens.length - 1) : String(tokens.length - 1);
  const indexWidth = textWidth(lastIndex, 11) + 10;
  return Math.min(Math.round(width * 0.32), Math.ceil(widest + indexWidth + 12));
}

/** The text fitted to `width` px: whole, or cut with an ellipsis. */
export function fitText(text, width, size = 12.5, weight = 400) {
  if (textWidth(text, size, weight) <= width) return text;
  const chars = [...text];
  while (chars.length > 1 && textWidth(chars.join('') + '\u2026', size, weight) > width) chars.pop();
  return chars.join('') + '\u2026';
}

/** The token labels of rows from … to − 1 are drawn by the function it returns. */
function drawTokenLabels(parent, { tokens, labels, top, rowHeight, labelWidth, selected, indexText }) {
  const group = svg('g', { class: 'token-labels' });
  const indexWidth = textWidth(indexText ? indexText(tokens.length - 1) : String(tokens.length - 1), 11) + 8;
  parent.append(group);
  return (from, to) => {
    for (let i = from; i < to; i++) {
      const token = tokens[i];
      const y = top + i * rowHeight + rowHeight / 2;
      group.append(svg('text', { x: FIGURE_PAD, y, class: 'tok-index', 'dominant-baseline': 'central', text: indexText ? indexText(i) : String(i) }));
      const special = isSpecialToken(token) ? ' tok-special' : '';
      const chosen = i === selected ? ' tok-chosen' : '';
      const label = fitText(labels ? labels[i] : token, labelWidth - indexWidth - 10, 12.5, i === selected ? 750 : 400);
      group.append(svg('text', {
        x: FIGURE_PAD + labelWidth - 10, y, 'text-anchor': 'end', 'dominant-baseline': 'central',
        class: `tok${special}${chosen}`, text: label,
      }));
    }
  };
}

/**
 * Rows of a long figure are drawn in blocks of ROW_BLOCK, as they come into sight
 * (figure.drawRows, called by the explorer as its box scrolls), so that a 512-token figure costs
 * the page about a screen of rows at a time; figures of fewer than LAZY_ROWS_FROM rows are drawn
 * whole. drawAllRows() completes a figure (to save it).
 */
const ROW_BLOCK = 48;
export const LAZY_ROWS_FROM = 96;

function lazyRows(root, n, draw) {
  const drawn = new Uint8Array(Math.ceil(n / ROW_BLOCK));
  root.drawRows = (from, to) => {
    const last = Math.min(drawn.length, Math.ceil(Math.min(n, to) / ROW_BLOCK));
    for (let b = Math.max(0, Math.floor(from / ROW_BLOCK)); b < last; b++) {
      if (drawn[b]) continue;
      drawn[b] = 1;
      draw(b * ROW_BLOCK, Math.min(n, (b + 1) * ROW_BLOCK));
    }
  };
  root.drawAllRows = () => root.drawRows(0, n);
  if (n < LAZY_ROWS_FROM) root.drawAllRows();
  else root.dataset.lazyRows = String(n);
}

// A column heading too narrow for one of its words is set smaller, down to this size, rather than
// cut inside the word ("phras/e A").
const HEADING_MIN_SIZE = 9.5;

/** The font size (≤ size, ≥ HEADING_MIN_SIZE) at which every word of `text` fits `width` px. */
function sizeFitting(text, width, size, weight) {
  const widest = Math.max(0, ...breakableWords(text).map((word) => textWidth(word, size, weight)));
  if (widest <= width) return size;
  return Math.max(HEADING_MIN_SIZE, Math.floor((size * width / widest) * 2) / 2);
}

/** The heading and stat lines of a column, wrapped to its width between words. */
function headingLines(column, width) {
  // A heading without a series colour (the difference column) is written in ink, in both themes.
  const className = column.colour ? 'col-head' : 'col-head col-head-ink';
  const headingSize = sizeFitting(column.heading, width, 13, 650);
  const lines = wrapText(column.heading, width, headingSize, 650).map((text) => ({ text, className, heading: true, size: headingSize }));
  (column.stats || []).forEach((stat, k) => {
    const className = k === 0 && column.emphasiseStats ? 'col-stat col-stat-main' : 'col-stat';
    const weight = k === 0 && column.emphasiseStats ? 600 : 400;
    const size = sizeFitting(stat, width, 12.5, weight);
    for (const text of wrapText(stat, width, size, weight)) lines.push({ text, className, size: size < 12.5 ? size : undefined });
  });
  return lines;
}

function columnHeading(parent, column, x, y, width) {
  headingLines(column, width).forEach((line, k) => {
    const text = svg('text', { x, y: y + k * 16, class: line.className, fill: line.heading ? column.colour : undefined, text: line.text });
    if (line.size && line.size < 13) text.style.fontSize = `${line.size}px`;  // CSSOM: allowed under the page's CSP
    parent.append(text);
  });
}

function drawProbabilityColumn(group, column, geometry) {
  const { x, width, top, rowHeight, n, showValues, t } = geometry;
  const valueWidth = showValues ? 50 : 6;
  const barWidth = Math.max(20, width - valueWidth);
  const scaleMax = column.scaleMax ?? niceMax(Math.max(...column.values));
  const scale = (v) => (Math.max(0, v) / scaleMax) * barWidth;
  group.append(svg('rect', {
    x, y: top, width: barWidth, height: n * rowHeight, class: 'plot-bg',
  }));
  const rows = svg('g');
  group.append(rows);
  if (column.uniform) {
    const ux = x + scale(column.uniform);
    group.append(svg('line', {
      x1: ux, x2: ux, y1: top - 4, y2: top + n * rowHeight + 20, class: 'uniform-line',
    }));
    group.append(svg('text', {
      x: ux, y: top + n * rowHeight + 31, 'text-anchor': ux - x < 16 ? 'start' : 'middle', class: 'uniform-label', text: '1/n',
    }));
  }
  drawAxis(group, { x, width: barWidth, y: top + n * rowHeight, scaleMax, t });
  return (from, to) => {
    for (let i = from; i < to; i++) {
      const value = column.values[i];
      const y = top + i * rowHeight;
      const barHeight = Math.max(1, rowHeight - (rowHeight > 8 ? 6 : 1));
      rows.append(svg('rect', {
        x, y: y + (rowHeight - barHeight) / 2, width: Math.max(0.5, scale(value)), height: barHeight,
        fill: column.colour, class: 'bar', dataset: { token: String(i), value: String(value) },
      }, [svg('title', { text: t('chart.barTitle', { token: column.tokens[i], index: i, value: column.format(value) }) })]));
      if (showValues) {
        rows.append(svg('text', {
          x: x + width, y: y + rowHeight / 2, 'text-anchor': 'end', 'dominant-baseline': 'central',
          class: 'val', text: column.format(value, i),
        }));
      }
    }
  };
}

/**
 * Signed values (differences) on a fixed scale ±column.scaleMax; |value| below
 * column.threshold is drawn as no bar and written "no difference".
 */
function drawSignedColumn(group, column, geometry) {
  const { x, width, top, rowHeight, n, showValues, theme, t } = geometry;
  const valueWidth = showValues ? 56 : 6;
  const barWidth = Math.max(24, width - valueWidth);
  const limit = column.scaleMax;
  const threshold = column.threshold ?? 0;
  const middle = x + barWidth / 2;
  const scale = (v) => (Math.max(-limit, Math.min(limit, v)) / limit) * (barWidth / 2);
  group.append(svg('rect', { x, y: top, width: barWidth, height: n * rowHeight, class: 'plot-bg' }));
  const rows = svg('g');
  group.append(rows);
  group.append(svg('line', { x1: middle, x2: middle, y1: top - 4, y2: top + n * rowHeight + 4, class: 'zero-line' }));
  const axisY = top + n * rowHeight;
  const ticks = [[x, -limit, 'start'], [middle, 0, 'middle'], [x + barWidth, limit, 'end']];
  for (const [tx, label, anchor] of barWidth >= 90 ? ticks : [ticks[0], ticks[2]]) {
    group.append(svg('line', { x1: tx, x2: tx, y1: axisY, y2: axisY + 4, class: 'axis-line' }));
    group.append(svg('text', { x: tx, y: axisY + 16, 'text-anchor': anchor, class: 'axis', text: (label > 0 ? '+' : '') + t.number(label, Number.isInteger(label) ? 0 : 1) }));
  }
  return (from, to) => {
    for (let i = from; i < to; i++) {
      const value = column.values[i];
      const y = top + i * rowHeight;
      const barHeight = Math.max(1, rowHeight - (rowHeight > 8 ? 6 : 1));
      const none = !Number.isFinite(value) || Math.abs(value) < threshold;
      const length = none ? 0 : scale(value);
      if (!none) {
        rows.append(svg('rect', {
          x: length < 0 ? middle + length : middle, y: y + (rowHeight - barHeight) / 2,
          width: Math.max(0.5, Math.abs(length)), height: barHeight,
          fill: diverging(value < 0 ? -0.85 : 0.85, theme), class: 'bar',
          dataset: { token: String(i), value: String(value) },
        }, [svg('title', { text: t('chart.barTitle', { token: column.tokens[i], index: i, value: column.format(value) }) })]));
      }
      if (showValues) {
        rows.append(svg('text', {
          x: x + width, y: y + rowHeight / 2, 'text-anchor': 'end', 'dominant-baseline': 'central',
          class: none ? 'val val-none' : 'val', text: Number.isFinite(value) ? (none ? '=' : column.format(value, i)) : '\u2013',
        }));
      }
    }
  };
}

function drawAxis(group, { x, width, y, scaleMax, t }) {
  group.append(svg('line', { x1: x, x2: x + width, y1: y, y2: y, class: 'axis-line' }));
  const ticks = width > 160 ? [0, scaleMax / 2, scaleMax] : [0, scaleMax];
  for (const tick of ticks) {
    const tx = x + (tick / scaleMax) * width;
    group.append(svg('line', { x1: tx, x2: tx, y1: y, y2: y + 4, class: 'axis-line' }));
    group.append(svg('text', {
      x: tx, y: y + 16, 'text-anchor': tick === 0 ? 'start' : tick === scaleMax ? 'end' : 'middle',
      class: 'axis', text: niceTick(tick, t),
    }));
  }
}

function niceTick(value, t) {
  if (value === 0) return '0';
  if (value >= 10) return t.integer(Math.round(value));
  const rounded = value >= 1 ? Number(value.toFixed(1)) : Number(value.toPrecision(2));
  return t.number(rounded, (String(rounded).split('.')[1] ?? '').length);
}

/**
 * One bar per token in one or more side-by-side columns.
 * columns: [{heading, stats: [lines], values, kind: 'probability'|'signed', colour,
 *            uniform, scaleMax, format(v, i), data: {…data attributes}, className}]
 */
export function tokenBarFigure({ width, theme, title, subtitle, tokens, labels, selected, columns, label, indexText, t = english }) {
  const n = tokens.length;
  const rowHeight = rowHeightFor(n);
  const labelWidth = tokenColumnWidth(labels || tokens, width, true, indexText);
  const gap = columns.length > 1 ? (width < 400 ? 6 : width < 520 ? 14 : 30) : 0;
  const available = width - 2 * FIGURE_PAD - labelWidth - gap * (columns.length - 1);
  const columnWidth = Math.max(44, Math.floor(available / columns.length));
  const showValues = columnWidth >= 110;

  const body = svg('g');
  let y = figureHeader(body, { title, subtitle, width });
  const headingRows = Math.max(...columns.map((c) => headingLines(c, columnWidth).length));
  const headingY = y + 8;
  const top = headingY + 4 + headingRows * 16;
  const rowDrawers = [drawTokenLabels(body, { tokens, labels, top, rowHeight, labelWidth, selected, indexText })];
  columns.forEach((column, k) => {
    const x = FIGURE_PAD + labelWidth + k * (columnWidth + gap);
    const group = svg('g', { class: `bar-column ${column.className || ''}`.trim(), dataset: column.data || {} });
    if (column.ariaLabel) group.setAttribute('aria-label', column.ariaLabel);
    columnHeading(group, column, x, headingY, columnWidth);
    const geometry = { x, width: columnWidth, top, rowHeight, n, showValues, theme, t };
    const full = { format: t.probability, tokens, ...column };
    rowDrawers.push(column.kind === 'signed' ? drawSignedColumn(group, full, geometry) : drawProbabilityColumn(group, full, geometry));
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
  root.dataset.rowTop = String(top);
  root.dataset.rowHeight = String(rowHeight);
  lazyRows(root, n, (from, to) => { for (const draw of rowDrawers) draw(from, to); });
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
  if (!caption) return;
  // Centred between the end values when it clears both by a space, else on a line of its own.
  const clear = width / 2 - Math.max(textWidth(low, AXIS_SIZE), textWidth(high, AXIS_SIZE)) - textWidth(' ', AXIS_SIZE);
  const line = textWidth(caption, AXIS_SIZE) / 2 <= clear ? 24 : 38;
  parent.append(svg('text', { x: x + width / 2, y: y + line, 'text-anchor': 'middle', class: 'axis', text: caption }));
}

export function seriesColours(theme) {
  return SERIES[theme];
}
