// Figures that are not rows of bars: the head grid, the attention matrix, the layer strips.

import { svg, textWidth } from './dom.mjs';
import { figureHeader, figureRoot, FIGURE_PAD, colourLegend, fitText, wrapText } from './charts.mjs';
import { sequentialRgb, diverging, inkOn } from './palette.mjs';
import { isSpecialToken, headName } from './format.mjs';
import { translator } from './i18n/index.mjs';

const english = translator('en');

/** The roles a head can have (c/spec.mjs ROLE_BITS); their badges are `badge.<role>` and `badgeShort.<role>`. */
export const ROLES = ['previous', 'next', 'cls-sink', 'sep-sink', 'punct-sink', 'broad'];
export const roleBadge = (t, role) => t(`badge.${role}`);
const POSITIONAL_ROLES = ['previous', 'next'];

export function isPositional(roles) {
  return roles.some((role) => POSITIONAL_ROLES.includes(role));
}

/** Stacks figures vertically in one SVG (nested <svg> elements). */
export function stackFigures(width, parts, label) {
  let y = 0;
  const root = figureRoot(width, 1, label);
  root.append(svg('rect', { x: 0, y: 0, width, height: 1, class: 'fig-bg' }));
  for (const part of parts) {
    part.setAttribute('y', y);
    part.setAttribute('x', 0);
    root.append(part);
    y += Number(part.getAttribute('height'));
  }
  root.setAttribute('height', y);
  root.setAttribute('viewBox', `0 0 ${width} ${y}`);
  root.firstChild.setAttribute('height', y);
  return root;
}

function badgeRows(t, roles, maxWidth, compact = false) {
  const rows = [[]];
  let used = 0;
  for (const role of roles) {
    const text = t(compact ? `badgeShort.${role}` : `badge.${role}`);
    const w = textWidth(text, 10.5, 600) + 10;
    if (used && used + w > maxWidth) {
      rows.push([]);
      used = 0;
    }
    rows.at(-1).push({ role, text, w });
    used += w + 4;
  }
  return rows.filter((r) => r.length);
}

function sparkline(values, { x, y, width, height, colour }) {
  const group = svg('g', { class: 'sparkline', 'aria-hidden': 'true' });
  const n = values.length;
  const step = width / n;
  const peak = Math.max(...values) || 1;
  const uniformY = y + height - (1 / n / Math.max(peak, 0.05)) * height;
  group.append(svg('line', { x1: x, x2: x + width, y1: y + height, y2: y + height, class: 'axis-line' }));
  values.forEach((v, i) => {
    const h = (v / Math.max(peak, 0.05)) * height;
    group.append(svg('rect', {
      x: x + i * step + (step > 3 ? 0.5 : 0), y: y + height - h, width: Math.max(0.6, step - (step > 3 ? 1 : 0)),
      height: Math.max(0.5, h), fill: colour,
    }));
  });
  group.append(svg('line', { x1: x, x2: x + width, y1: uniformY, y2: uniformY, class: 'uniform-line thin' }));
  return group;
}

/**
 * The 4 × 4 head grid for one token. cells: [{layer, head, stats, roles, values}], 0-based.
 */
export function headGridFigure({ width, title, subtitle, cells, layers, heads, selected, colour, token, n, t = english }) {
  const root = figureRoot(width, 1, title);
  const background = svg('rect', { x: 0, y: 0, width, height: 1, class: 'fig-bg' });
  root.append(background);
  let y = figureHeader(root, { title, subtitle, width });
  const labelWidth = width < 520 ? 28 : 64;
  const gap = width < 520 ? 5 : 10;
  const cellWidth = Math.floor((width - 2 * FIGURE_PAD - labelWidth - gap * (heads - 1)) / heads);
  const compact = cellWidth < 110;
  const fit = cellFit(t, cells, cellWidth, compact ? 6 : 10, compact);
  for (let h = 0; h < heads; h++) {
    const x = FIGURE_PAD + labelWidth + h * (cellWidth + gap) + cellWidth / 2;
    root.append(svg('text', { x, y: y + 4, 'text-anchor': 'middle', class: 'col-head-muted', text: t(compact ? 'grid.headShort' : 'grid.head', { head: h + 1 }) }));
  }
  y += 14;
  const grid = svg('g', { role: 'grid', 'aria-label': t('grid.aria', { token }) });
  const badgeHeight = 17;
  const cellHeights = [];
  for (let l = 0; l < layers; l++) {
    let tallest = 0;
    for (let h = 0; h < heads; h++) {
      const cell = cells[l * heads + h];
      tallest = Math.max(tallest, badgeRows(t, cell.roles, cellWidth - 12, compact).length);
    }
    cellHeights.push((compact ? 80 : 92) + tallest * (badgeHeight + 3) + SWITCH_ROW);
  }
  for (let l = 0; l < layers; l++) {
    const row = svg('g', { role: 'row' });
    const cellHeight = cellHeights[l];
    root.append(svg('text', {
      x: FIGURE_PAD, y: y + cellHeight / 2, 'dominant-baseline': 'central', class: 'col-head-muted',
      text: t(compact ? 'grid.layerShort' : 'grid.layer', { layer: l + 1 }),
    }));
    for (let h = 0; h < heads; h++) {
      const cell = cells[l * heads + h];
      const x = FIGURE_PAD + labelWidth + h * (cellWidth + gap);
      row.append(headCell({ cell, x, y, cellWidth, cellHeight, selected: l === selected.layer && h === selected.head, colour, token, n, compact, fit, t }));
    }
    grid.append(row);
    y += cellHeight + gap;
  }
  root.append(grid);
  const height = y + FIGURE_PAD - gap;
  root.setAttribute('height', height);
  root.setAttribute('viewBox', `0 0 ${width} ${height}`);
  background.setAttribute('height', height);
  return root;
}

const SWITCH_ROW = 24;

/** The on/off switch of a head (role switch; its own click, not the one that selects the head). */
export function headSwitch({ x, y, layer, head, off, focusable, t, withText = true }) {
  const group = svg('g', {
    class: 'head-switch', role: 'switch', 'aria-checked': off ? 'false' : 'true', tabindex: focusable ? 0 : -1,
    'aria-label': t('ablation.switchAria', { head: t('grid.cellName', { layer: layer + 1, head: head + 1 }) }),
    dataset: { layer: String(layer + 1), head: String(head + 1) },
  });
  group.append(svg('rect', { x, y, width: 28, height: 14, rx: 7, class: 'switch-track' }));
  group.append(svg('circle', { cx: off ? x + 7 : x + 21, cy: y + 7, r: 5, class: 'switch-knob' }));
  if (withText) group.append(svg('text', { x: x + 34, y: y + 7, 'dominant-baseline': 'central', class: 'switch-text', text: t(off ? 'ablation.off' : 'ablation.on') }));
  return group;
}

/** Whether a switch's on/off word fits beside it in `width` (else the knob and aria say it). */
export function switchTextFits(t, width) {
  return 34 + Math.max(textWidth(t('ablation.on'), 11, 600), textWidth(t('ablation.off'), 11, 600)) <= width;
}

/** The two texts of a head cell's middle line: its ratio (big) and its effective tokens. */
function cellTexts(t, stats) {
  return { ratioText: t.times(stats.ratio, 2), effText: t('grid.effective', { effective: t.number(stats.effective, 1) }) };
}

/**
 * The ratio and "eff" share a line in every cell: when the widest pair does not fit, every
 * cell gets the smaller ratio, then none shows "eff" (still in each cell's label and tooltip),
 * so that the grid reads alike and nothing overlaps.
 */
function cellFit(t, cells, cellWidth, pad, compact) {
  if (compact) return { bigRatio: false, showEff: false };
  const fits = (size) => cells.every(({ stats }) => {
    const { ratioText, effText } = cellTexts(t, stats);
    return textWidth(ratioText, size, 700) + textWidth(effText, 11.5) + 8 <= cellWidth - 2 * pad;
  });
  const bigRatio = fits(21);
  return { bigRatio, showEff: bigRatio || fits(15) };
}

function headCell({ cell, x, y, cellWidth, cellHeight, selected, colour, token, n, compact, fit, t }) {
  const { layer, head, stats, roles, values, off } = cell;
  const label = t('grid.cellLabel', { head: headName(t, layer, head), ratio: t.number(stats.ratio, 2), sum: t.number(stats.sum, 3), effective: t.number(stats.effective, 1), n }) +
    (roles.length ? t('grid.cellRoles', { roles: roles.map((r) => roleBadge(t, r)).join(', ') }) : '');
  const group = svg('g', {
    class: `head-cell${selected ? ' selected' : ''}${off ? ' head-off' : ''}`, role: 'gridcell', tabindex: selected ? 0 : -1,
    'aria-selected': selected ? 'true' : 'false', 'aria-label': label,
    dataset: {
      layer: String(layer + 1), head: String(head + 1), token: String(token),
      sum: String(stats.sum), ratio: String(stats.ratio), max: String(stats.max), effective: String(stats.effective),
      roles: roles.join(' '),
    },
  });
  group.append(svg('rect', { x, y, width: cellWidth, height: cellHeight, rx: 8, class: 'cell-bg' }));
  const pad = compact ? 6 : 10;
  group.append(svg('text', { x: x + pad, y: y + 17, class: 'cell-name', text: t(compact ? 'grid.cellNameShort' : 'grid.cellName', { layer: layer + 1, head: head + 1 }) }));
  const { ratioText, effText } = cellTexts(t, stats);
  const { bigRatio, showEff } = fit;
  if (!compact) {
    group.append(svg('text', {
      x: x + cellWidth - pad, y: y + 17, 'text-anchor': 'end', class: 'cell-sum', text: `\u03a3 ${t.number(stats.sum, 3)}`,
    }));
    if (showEff) group.append(svg('text', { x: x + cellWidth - pad, y: y + 42, 'text-anchor': 'end', class: 'cell-eff', text: effText }));
  }
  group.append(svg('text', {
    x: x + pad, y: y + (compact ? 38 : 42), class: bigRatio ? 'cell-ratio' : 'cell-ratio-compact',
    text: compact ? t.times(stats.ratio, stats.ratio >= 100 ? 0 : stats.ratio >= 10 ? 1 : 2) : ratioText,
  }));
  const sparkTop = compact ? 46 : 52;
  group.append(sparkline(values, { x: x + pad, y: y + sparkTop, width: cellWidth - 2 * pad, height: 24, colour }));
  let by = y + sparkTop + 32;
  for (const badgeRow of badgeRows(t, roles, cellWidth - 2 * pad + 4, compact)) {
    let bx = x + pad;
    for (const badge of badgeRow) {
      group.append(svg('rect', { x: bx, y: by, width: badge.w, height: 17, rx: 8.5, class: `badge badge-${badge.role}` }));
      group.append(svg('text', { x: bx + badge.w / 2, y: by + 12.5, 'text-anchor': 'middle', class: `badge-text badge-text-${badge.role}`, text: badge.text }));
      bx += badge.w + 4;
    }
    by += 20;
  }
  group.append(svg('title', { text: label }));
  group.append(headSwitch({ x: x + pad, y: y + cellHeight - SWITCH_ROW + 2, layer, head, off, focusable: selected, t,
    withText: switchTextFits(t, cellWidth - 2 * pad) }));
  return group;
}

/** Colour of a weight: √(weight ÷ largest weight), so small weights stay visible on long inputs. */
function matrixRgb(value, peak, theme) {
  return sequentialRgb(Math.sqrt(Math.max(0, value) / peak), theme);
}

/** The smallest cell that still holds a value such as ".42". */
const MATRIX_VALUE_CELL = 26;
const MATRIX_LABEL_SPACE = 70;

/**
 * The n × n matrix of one head (rows: the token attending; columns: attended to). When the
 * whole matrix does not fit with readable cells, a window of it is drawn (around `cursor`)
 * beside an overview image of the whole matrix with the window outlined.
 */
export function matrixFigure({ width, theme, title, subtitle, tokens, rows, selected, cursor, rowStats, zoomOut = 0, t = english }) {
  const n = tokens.length;
  const root = figureRoot(width, 1, title);
  const background = svg('rect', { x: 0, y: 0, width, height: 1, class: 'fig-bg' });
  root.append(background);
  let y = figureHeader(root, { title, subtitle, width });
  let peak = 0;
  for (const row of rows) for (const v of row) if (v > peak) peak = v;
  peak = peak > 0 ? peak : 1;
  let widest = 0;
  for (const t of tokens) widest = Math.max(widest, textWidth(t, 12, 750));
  const indexWidth = textWidth(String(n - 1), 11) + 8;
  const labelWidth = Math.min(Math.round(width * 0.3), Math.ceil(widest + indexWidth + 16));
  const available = width - 2 * FIGURE_PAD - labelWidth;
  // Zoom: the readable cell (with its value) halves at each step out, down to the whole matrix.
  const fitCell = available / n;
  const maxZoomOut = fitCell >= MATRIX_VALUE_CELL ? 0 : Math.ceil(Math.log2(MATRIX_VALUE_CELL / fitCell));
  const zoom = Math.max(0, Math.min(maxZoomOut, zoomOut));
  const wanted = Math.max(fitCell, MATRIX_VALUE_CELL / 2 ** zoom);
  const size = Math.min(n, Math.max(4, Math.floor(available / wanted + 1e-9)));
  const cell = Math.min(34, available / size);
  const showValues = cell >= MATRIX_VALUE_CELL - 0.5;
  const labelSize = Math.max(9, Math.min(12, cell - 4));
  const labelEvery = Math.max(1, Math.ceil((labelSize * 1.3 + 1) / cell));
  // Sampled labels keep an even step that passes through the chosen token.
  const labelled = (index) => (((index - selected) % labelEvery) + labelEvery) % labelEvery === 0;
  const windowed = size < n;
  const half = Math.floor(size / 2);
  const rowStart = Math.max(0, Math.min(n - size, cursor[0] - half));
  const colStart = Math.max(0, Math.min(n - size, cursor[1] - half));
  let overview = null;
  if (windowed) {
    const overviewSize = Math.min(160, Math.floor(width * 0.4));
    overview = { x: FIGURE_PAD, y, size: overviewSize };
    root.append(svg('image', {
      x: overview.x, y: overview.y, width: overviewSize, height: overviewSize, href: matrixImage(rows, peak, theme),
      preserveAspectRatio: 'none', class: 'matrix-image',
    }));
    const scale = overviewSize / n;
    root.append(svg('rect', {
      x: overview.x + colStart * scale, y: overview.y + rowStart * scale, width: Math.max(2, size * scale), height: Math.max(2, size * scale),
      class: 'matrix-window',
    }));
    const captionX = overview.x + overviewSize + 12;
    let captionY = y + 12;
    const caption = t('matrix.overviewCaption', { n, rowStart, rowEnd: rowStart + size - 1, colStart, colEnd: colStart + size - 1 });
    for (const line of wrapText(caption, width - captionX - FIGURE_PAD, 12.5)) {
      root.append(svg('text', { x: captionX, y: captionY, class: 'fig-sub', text: line }));
      captionY += 16;
    }
    y += Math.max(overviewSize, captionY - y) + 12;
  }
  const left = FIGURE_PAD + labelWidth;
  const top = y + MATRIX_LABEL_SPACE;
  for (let c = 0; c < size; c++) {
    const j = colStart + c, token = tokens[j];
    if (!labelled(j)) continue;
    const cx = left + c * cell + cell / 2;
    root.append(svg('text', {
      x: cx, y: top - 6, transform: `rotate(-90 ${cx} ${top - 6})`, 'dominant-baseline': 'central',
      class: `tok-sized matrix-col${isSpecialToken(token) ? ' tok-special' : ''}`, 'font-size': labelSize,
      text: fitText(token, MATRIX_LABEL_SPACE - 10, labelSize),
    }));
  }
  for (let r = 0; r < size; r++) {
    const i = rowStart + r, token = tokens[i];
    if (!labelled(i)) continue;
    const cy = top + r * cell + cell / 2;
    root.append(svg('text', {
      x: left - indexWidth - 4, y: cy, 'text-anchor': 'end', 'dominant-baseline': 'central',
      class: `tok-sized${isSpecialToken(token) ? ' tok-special' : ''}${i === selected ? ' tok-chosen' : ''}`, 'font-size': labelSize,
      text: fitText(token, labelWidth - indexWidth - 10, labelSize, i === selected ? 750 : 400),
    }));
    root.append(svg('text', { x: left - 4, y: cy, 'text-anchor': 'end', 'dominant-baseline': 'central', class: 'tok-index', text: String(i) }));
  }
  const cells = svg('g', { class: 'matrix-cells' });
  // Long inputs spread weights thin (1/n each): three decimals keep them apart.
  const decimals = n > 50 ? 3 : 2;
  // English drops the leading zero (.94) to fit the cell; French keeps it (0,94), a smaller type.
  const leadingZero = t.lang === 'fr';
  const valueSize = Math.min(11, cell * (decimals === 3 ? 0.36 : 0.42) * (leadingZero ? (decimals + 1) / (decimals + 2) : 1));
  const cellValue = (v) => (v >= 1 - 0.5 * 10 ** -decimals ? '1' : leadingZero ? t.number(v, decimals) : t.number(v, decimals).replace(/^0/, ''));
  if (!showValues && size > 64) {
    const part = [];
    for (let r = 0; r < size; r++) part.push(rows[rowStart + r].subarray(colStart, colStart + size));
    cells.append(svg('image', {
      x: left, y: top, width: cell * size, height: cell * size, href: matrixImage(part, peak, theme),
      preserveAspectRatio: 'none', class: 'matrix-image',
    }));
  }
  for (let r = 0; r < size && (showValues || size <= 64); r++) {
    const i = rowStart + r;
    const stats = rowStats(i);
    const rowGroup = svg('g', { class: 'matrix-row', dataset: { token: String(i), sum: String(stats.sum), ratio: String(stats.ratio) } });
    for (let c = 0; c < size; c++) {
      const j = colStart + c, v = rows[i][j];
      const rgb = matrixRgb(v, peak, theme);
      rowGroup.append(svg('rect', { x: left + c * cell, y: top + r * cell, width: cell + 0.3, height: cell + 0.3, fill: `rgb(${rgb.join(',')})` }));
      if (showValues) rowGroup.append(svg('text', {
        x: left + c * cell + cell / 2, y: top + r * cell + cell / 2, 'text-anchor': 'middle', 'dominant-baseline': 'central',
        class: 'cell-value', 'font-size': valueSize, fill: inkOn(rgb), text: cellValue(v),
      }));
    }
    cells.append(rowGroup);
  }
  root.append(cells);
  root.append(svg('text', { x: FIGURE_PAD, y: top - 8, class: 'axis', text: t('matrix.fromTo') }));
  if (selected >= rowStart && selected < rowStart + size) {
    root.append(svg('rect', { x: left - 1, y: top + (selected - rowStart) * cell - 1, width: size * cell + 2, height: cell + 2, class: 'matrix-chosen' }));
  }
  const cursorRect = svg('rect', {
    x: left + (cursor[1] - colStart) * cell, y: top + (cursor[0] - rowStart) * cell, width: cell, height: cell, class: 'matrix-cursor',
  });
  root.append(cursorRect);
  const bottom = top + size * cell + 18;
  const high = t.number(peak, 3), caption = t('matrix.sqrtScale');
  const legendNeeds = textWidth('0', 11) + textWidth(caption, 11) + textWidth(high, 11) + 28;  // the three labels side by side
  colourLegend(root, {
    x: left, y: bottom, width: Math.min(width - left - FIGURE_PAD, Math.max(Math.min(220, size * cell), legendNeeds)), theme, low: '0', high, caption,
  });
  const height = bottom + 44;
  root.setAttribute('height', height);
  root.setAttribute('viewBox', `0 0 ${width} ${height}`);
  background.setAttribute('height', height);
  return { root, geometry: { left, top, cell, n, rowStart, colStart, size, overview }, cursorRect, cursor, zoom: { level: zoom, max: maxZoomOut, showValues } };
}

function matrixImage(rows, peak, theme) {
  const n = rows.length;
  const canvas = document.createElement('canvas');
  canvas.width = n;
  canvas.height = n;
  const context = canvas.getContext('2d');
  const image = context.createImageData(n, n);
  rows.forEach((row, i) => row.forEach((v, j) => {
    const [r, g, b] = matrixRgb(v, peak, theme);
    const k = (i * n + j) * 4;
    image.data[k] = r; image.data[k + 1] = g; image.data[k + 2] = b; image.data[k + 3] = 255;
  }));
  context.putImageData(image, 0, 0);
  return canvas.toDataURL('image/png');
}

/** Heat strips of vectors (the layer walkthrough): [{label, values, note}] */
export function stripFigure({ width, theme, title, subtitle, strips, t = english }) {
  const root = figureRoot(width, 1, title);
  const background = svg('rect', { x: 0, y: 0, width, height: 1, class: 'fig-bg' });
  root.append(background);
  let y = figureHeader(root, { title, subtitle, width });
  const stripWidth = width - 2 * FIGURE_PAD;
  for (const strip of strips) {
    const group = svg('g', { class: 'strip', dataset: strip.data || {} });
    const labelLines = wrapText(strip.label, stripWidth, 13, 650);
    for (const line of labelLines) {
      group.append(svg('text', { x: FIGURE_PAD, y: y + 12, class: 'col-head', text: line }));
      y += 17;
    }
    const noteFits = labelLines.length === 1 &&
      textWidth(labelLines[0], 13, 650) + textWidth(strip.note, 12.5, 600) + 16 <= stripWidth;
    if (noteFits) {
      group.append(svg('text', { x: FIGURE_PAD + stripWidth, y: y - 5, 'text-anchor': 'end', class: 'col-stat col-stat-main', text: strip.note }));
    } else {
      group.append(svg('text', { x: FIGURE_PAD, y: y + 12, class: 'col-stat col-stat-main', text: strip.note }));
      y += 17;
    }
    y += 3;
    const count = strip.values.length;
    const w = stripWidth / count;
    let limit = 0;
    for (const v of strip.values) limit = Math.max(limit, Math.abs(v));
    limit = limit || 1;
    strip.values.forEach((v, i) => {
      group.append(svg('rect', { x: FIGURE_PAD + i * w, y, width: w + 0.3, height: 28, fill: diverging(v / limit, theme) }));
    });
    group.append(svg('rect', { x: FIGURE_PAD, y, width: stripWidth, height: 28, class: 'legend-frame' }));
    if (strip.segments) {
      for (let s = 0; s < strip.segments; s++) {
        const sx = FIGURE_PAD + (s * stripWidth) / strip.segments;
        if (s) group.append(svg('line', { x1: sx, x2: sx, y1: y - 3, y2: y + 31, class: 'segment-line' }));
        const segmentLabel = t(stripWidth / strip.segments >= 56 ? 'grid.head' : 'grid.headShort', { head: s + 1 });
        group.append(svg('text', { x: sx + stripWidth / strip.segments / 2, y: y + 44, 'text-anchor': 'middle', class: 'axis', text: segmentLabel }));
      }
      y += 14;
    }
    group.append(svg('text', { x: FIGURE_PAD, y: y + 42, class: 'axis', text: t('strip.scale', { limit: t.number(limit, 2) }) }));
    root.append(group);
    y += 58;
  }
  colourLegend(root, { x: FIGURE_PAD, y, width: 200, theme, low: t('strip.low'), high: t('strip.high'), kind: 'diverging' });
  const height = y + 40;
  root.setAttribute('height', height);
  root.setAttribute('viewBox', `0 0 ${width} ${height}`);
  background.setAttribute('height', height);
  return root;
}

/** A small table of numbers per head (entropy view): values[l][h] with a text per cell. */
export function headTableFigure({ width, theme, title, subtitle, layers, heads, text, value = text, shade, selected, t = english }) {
  const root = figureRoot(width, 1, title);
  const background = svg('rect', { x: 0, y: 0, width, height: 1, class: 'fig-bg' });
  root.append(background);
  let y = figureHeader(root, { title, subtitle, width });
  const labelWidth = width < 520 ? 30 : 64;
  const cellWidth = Math.min(150, (width - 2 * FIGURE_PAD - labelWidth) / heads);
  const cellHeight = 34;
  for (let h = 0; h < heads; h++) {
    root.append(svg('text', { x: FIGURE_PAD + labelWidth + (h + 0.5) * cellWidth, y: y + 4, 'text-anchor': 'middle', class: 'col-head-muted', text: t(width < 520 ? 'grid.headShort' : 'grid.head', { head: h + 1 }) }));
  }
  y += 12;
  for (let l = 0; l < layers; l++) {
    root.append(svg('text', { x: FIGURE_PAD, y: y + cellHeight / 2, 'dominant-baseline': 'central', class: 'col-head-muted', text: t(width < 520 ? 'grid.layerShort' : 'grid.layer', { layer: l + 1 }) }));
    for (let h = 0; h < heads; h++) {
      const x = FIGURE_PAD + labelWidth + h * cellWidth;
      const rgb = sequentialRgb(shade(l, h), theme);
      root.append(svg('rect', {
        x: x + 1, y: y + 1, width: cellWidth - 2, height: cellHeight - 2, rx: 4, fill: `rgb(${rgb.join(',')})`,
        class: 'table-cell', dataset: { layer: String(l + 1), head: String(h + 1), value: value(l, h), shade: String(shade(l, h)) },
      }));
      if (l === selected.layer && h === selected.head) {
        root.append(svg('rect', { x: x + 1, y: y + 1, width: cellWidth - 2, height: cellHeight - 2, rx: 4, class: 'table-chosen' }));
      }
      root.append(svg('text', { x: x + cellWidth / 2, y: y + cellHeight / 2, 'text-anchor': 'middle', 'dominant-baseline': 'central', class: 'table-value', fill: inkOn(rgb), text: text(l, h) }));
    }
    y += cellHeight;
  }
  const height = y + FIGURE_PAD;
  root.setAttribute('height', height);
  root.setAttribute('viewBox', `0 0 ${width} ${height}`);
  background.setAttribute('height', height);
  return root;
}

export function messageFigure({ width, title, lines }) {
  const root = figureRoot(width, 1, title);
  const background = svg('rect', { x: 0, y: 0, width, height: 1, class: 'fig-bg' });
  root.append(background);
  const y = figureHeader(root, { title, subtitle: lines, width });
  root.setAttribute('height', y + 8);
  root.setAttribute('viewBox', `0 0 ${width} ${y + 8}`);
  background.setAttribute('height', y + 8);
  return root;
}

