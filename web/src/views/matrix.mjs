// Matrix: one head's n × n attention. Long inputs show a readable window of cells with
// their values beside an overview of the whole matrix; tap, click or the arrow keys move it.

import { html } from '../dom.mjs';
import { matrixFigure } from '../figures.mjs';
import { headName, probability } from '../format.mjs';
import { capitalise } from './common.mjs';

export const matrixView = {
  id: 'matrix',
  label: 'Matrix',
  controls: [],
  readout: true,
  render(ctx) {
    const { session, run, state, width, theme } = ctx;
    const { layer, head, token } = state;
    const n = run.n;
    const rows = [];
    for (let i = 0; i < n; i++) rows.push(session.row(layer, head, i));
    const cursor = validCursor(state.matrixCursor, n) ?? [token, token];
    const matrix = matrixFigure({
      width, theme, tokens: run.tokens, rows, selected: token, cursor, zoomOut: state.matrixZoom,
      rowStats: (i) => session.rowStats(layer, head, i),
      title: `${capitalise(headName(layer, head))} \u2014 the full ${n} \u00d7 ${n} attention matrix`,
      subtitle: 'Row i: how token i spreads its attention over the columns; every row sums to 1 (a softmax). ' +
        'Darker = more weight. Tap, click or hover a cell for its value; the arrow keys move, Enter picks the row\u2019s token, + and \u2212 zoom.',
    });
    labelCells(matrix, rows);
    const { level, max, showValues } = matrix.zoom;
    const { size } = matrix.geometry;
    const zoomButton = (className, text, to, disabled) => html('button', {
      type: 'button', class: `small-button ${className}`, text, disabled, dataset: { zoom: String(to) },
    });
    const notes = max > 0 ? [html('p', { class: 'zoom-controls' }, [
      zoomButton('zoom-in', 'Zoom in (+)', level - 1, level === 0), ' ',
      zoomButton('zoom-out', 'Zoom out (\u2212)', level + 1, level === max), ' ',
      html('span', { class: 'zoom-state', text: `${size} \u00d7 ${size} of ${n} \u00d7 ${n} tokens` + (showValues ? ', with values' : ', values on tap or hover') }),
    ])] : [];
    return { figure: matrix.root, notes, wire: (figure, explorer) => wireMatrix(figure, explorer, matrix, rows) };
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

function wireMatrix(figure, explorer, matrix, rows) {
  const { left, top, cell, n, rowStart, colStart, size, overview } = matrix.geometry;
  const tokens = explorer.run.tokens;
  figure.setAttribute('tabindex', '0');
  figure.setAttribute('aria-label', `${headName(explorer.state.layer, explorer.state.head)} attention matrix; arrow keys move, Enter picks the row's token`);
  const readout = explorer.parts.hoverReadout;
  const describe = (i, j) => {
    readout.textContent = `row ${i} \u201c${tokens[i]}\u201d \u2192 column ${j} \u201c${tokens[j]}\u201d: ${probability(rows[i][j])}` +
      ` (${(rows[i][j] * n).toFixed(2)}\u00d7 uniform)`;
  };
  const moveCursor = (i, j, token) => {
    const changes = { matrixCursor: [i, j] };
    if (token !== undefined) changes.token = token;
    explorer.setSelection(changes, 'matrix');
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
  const zoomTo = (level, focus) => explorer.setSelection({ matrixZoom: Math.max(0, Math.min(matrix.zoom.max, level)) }, focus);
  for (const button of explorer.parts.notes.querySelectorAll('[data-zoom]')) {
    button.addEventListener('click', () => zoomTo(Number(button.dataset.zoom), button.classList.contains('zoom-in') ? '.zoom-in' : '.zoom-out'));
  }
  figure.addEventListener('keydown', (event) => {
    if (event.key === '+' || event.key === '=' || event.key === '-') {
      event.preventDefault();
      zoomTo(matrix.zoom.level + (event.key === '-' ? 1 : -1), 'matrix');
      return;
    }
    const [i, j] = explorer.state.matrixCursor ?? [explorer.state.token, explorer.state.token];
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
