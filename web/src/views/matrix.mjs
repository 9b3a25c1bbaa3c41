// Matrix: one head's n × n attention. Long inputs show a readable window of cells with
// their values beside an overview of the whole matrix; tap, click or the arrow keys move it.

import { html } from '../dom.mjs';
import { matrixFigure } from '../figures.mjs';
import { headName } from '../format.mjs';
import { capitalise } from './common.mjs';

const zoomParam = {
  name: 'zoom',
  read: (text, { current }) => (/^\d{1,2}$/.test(String(text).trim())
    ? { set: { matrixZoom: Number(text) } } : { used: ['problem.usedZoom', { zoom: current.matrixZoom }] }),
  write: (state) => (state.matrixZoom ? String(state.matrixZoom) : null),
};

export const matrixView = {
  id: 'matrix',
  labelKey: 'view.matrix',
  state: { matrixCursor: null, matrixZoom: 0 },
  params: [zoomParam],
  focus: '.figure-box svg',
  readout: true,
  ownsClicks: true,
  render(ctx) {
    const { session, run, state, width, theme, t } = ctx;
    const { layer, head, token } = state;
    const n = run.n;
    const rows = [];
    for (let i = 0; i < n; i++) rows.push(session.row(layer, head, i));
    // By default the window holds the chosen row and its largest column (often [CLS]), so its Σ = 1 can be read.
    const cursor = validCursor(state.matrixCursor, n) ?? [token, session.rowStats(layer, head, token).argmax];
    const matrix = matrixFigure({
      width, theme, tokens: run.tokens, rows, selected: token, cursor, zoomOut: state.matrixZoom, t,
      rowStats: (i) => session.rowStats(layer, head, i),
      title: t('matrix.title', { head: capitalise(headName(t, layer, head)), n }),
      subtitle: t('matrix.subtitle', { shade: t(ctx.theme === 'dark' ? 'colour.shadeDark' : 'colour.shadeLight') }),
    });
    labelCells(matrix, rows);
    const { level, max, showValues } = matrix.zoom;
    const { size } = matrix.geometry;
    const zoomButton = (className, text, to, disabled) => html('button', {
      type: 'button', class: `small-button ${className}`, text, disabled, dataset: { zoom: String(to) },
    });
    const notes = max > 0 ? [html('p', { class: 'zoom-controls' }, [
      zoomButton('zoom-in', t('matrix.zoomIn'), level - 1, level === 0), ' ',
      zoomButton('zoom-out', t('matrix.zoomOut'), level + 1, level === max), ' ',
      html('span', { class: 'zoom-state', text: t(showValues ? 'matrix.zoomStateValues' : 'matrix.zoomState', { size, n }) }),
    ])] : [];
    return { figure: matrix.root, notes, wire: (figure, ui) => wireMatrix(figure, ui, matrix, rows) };
  },
};

/** Each drawn cell carries its column and exact weight (its text is rounded), as every bar does. */
function labelCells(matrix, rows) {
  const { colStart } = matrix.geometry;
  for (const rowGroup of matrix.root.querySelectorAll('.matrix-row')) {
    const row = rows[Number(rowGroup.dataset.token)];
    rowGroup.querySelectorAll('rect').forEach((cell, c) => {
      cell.dataset.column = String(colStart + c);
      cell.dataset.value = String(row[colStart + c]);
    });
  }
}

function validCursor(cursor, n) {
  return cursor && cursor[0] < n && cursor[1] < n ? cursor : null;
}

function wireMatrix(figure, ui, matrix, rows) {
  const { left, top, cell, n, rowStart, colStart, size, overview } = matrix.geometry;
  const tokens = ui.tokens;
  const t = ui.t;
  figure.setAttribute('tabindex', '0');
  figure.setAttribute('aria-label', t('matrix.aria', { head: headName(t, ui.state.layer, ui.state.head) }));
  const readout = ui.readout;
  const describe = (i, j) => {
    readout.textContent = t('matrix.readout', { i, from: t.quote(tokens[i]), j, to: t.quote(tokens[j]), value: t.probability(rows[i][j]), times: t.times(rows[i][j] * n, 2) });
  };
  const moveCursor = (i, j, token) => {
    const changes = { matrixCursor: [i, j] };
    if (token !== undefined) changes.token = token;
    ui.select(changes, 'figure');
  };
  const cellAt = (event) => {
    const box = figure.getBoundingClientRect();
    const x = event.clientX - box.left, y = event.clientY - box.top;
    const j = colStart + Math.floor((x - left) / cell), i = rowStart + Math.floor((y - top) / cell);
    if (x >= left && y >= top && i < rowStart + size && j < colStart + size) return [i, j];
    if (overview && x >= overview.x && y >= overview.y && x < overview.x + overview.size && y < overview.y + overview.size) {
      const scale = n / overview.size;
      return { overview: [Math.floor((y - overview.y) * scale), Math.floor((x - overview.x) * scale)] };
    }
    return null;
  };
  figure.addEventListener('pointermove', (event) => {
    const hit = cellAt(event);
    if (Array.isArray(hit)) describe(hit[0], hit[1]);
  });
  figure.addEventListener('click', (event) => {
    const hit = cellAt(event);
    if (Array.isArray(hit)) moveCursor(hit[0], hit[1], hit[0]);
    else if (hit?.overview) moveCursor(hit.overview[0], hit.overview[1]);
  });
  const zoomTo = (level, focus) => ui.select({ matrixZoom: Math.max(0, Math.min(matrix.zoom.max, level)) }, focus);
  for (const button of ui.notes.querySelectorAll('[data-zoom]')) {
    button.addEventListener('click', () => zoomTo(Number(button.dataset.zoom), button.classList.contains('zoom-in') ? '.zoom-in' : '.zoom-out'));
  }
  figure.addEventListener('keydown', (event) => {
    if (event.key === '+' || event.key === '=' || event.key === '-') {
      event.preventDefault();
      zoomTo(matrix.zoom.level + (event.key === '-' ? 1 : -1), 'figure');
      return;
    }
    const [i, j] = ui.state.matrixCursor ?? [ui.state.token, ui.state.token];
    if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      moveCursor(i, j, i);
      return;
    }
    const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    const move = moves[event.key];
    if (!move) return;
    event.preventDefault();
    moveCursor(Math.min(n - 1, Math.max(0, i + move[0])), Math.min(n - 1, Math.max(0, j + move[1])));
  });
  const [i, j] = matrix.cursor;
  describe(i, j);
}
