// All heads: one cell per head of the model for the chosen token, with each head's roles.

import { html } from '../dom.mjs';
import { seriesColours } from '../charts.mjs';
import { headGridFigure, isPositional, ROLE_BADGES } from '../figures.mjs';
import { headName, tokenPhrase } from '../format.mjs';
import { note } from './common.mjs';

/** Warns when the most confident head for this token (highest ratio) is positional. */
export function positionalWarning(ctx) {
  const { session, engine, state, run } = ctx;
  const { layers, heads } = engine.shape;
  let best = null;
  for (let l = 0; l < layers; l++) {
    for (let h = 0; h < heads; h++) {
      const ratio = session.rowStats(l, h, state.token).ratio;
      if (!best || ratio > best.ratio) best = { l, h, ratio };
    }
  }
  const roles = session.headRoles(best.l, best.h).roles;
  if (!isPositional(roles)) return null;
  const which = roles.includes('previous') ? 'the previous token' : 'the next token';
  return html('p', { class: 'warning', role: 'note' }, [
    html('strong', { text: 'Careful: ' }),
    `the most confident head for this token (${headName(best.l, best.h)}, ratio ${best.ratio.toFixed(2)}) is a positional head \u2014 ` +
    `in this ${run.n}-token sentence its largest weight is on ${which} on at least 90% of rows. High confidence here says where a word is, not what it means.`,
  ]);
}

/** "In this sentence: 2 heads are [CLS] sinks, …", counted from the engine's head roles. */
function roleSummary(cells, total) {
  const counts = new Map();
  for (const cell of cells) for (const role of cell.roles) counts.set(role, (counts.get(role) || 0) + 1);
  if (!counts.size) return `In this sentence none of the ${total} heads has a role badge.`;
  const parts = [...counts].map(([role, count]) => `${count} \u00d7 \u201c${ROLE_BADGES[role]}\u201d`);
  return `In this sentence, of the ${total} heads: ${parts.join(', ')}. Badges are computed from this sentence\u2019s rows, so they change with it.`;
}

export const gridView = {
  id: 'grid',
  label: 'All heads',
  controls: [],
  render(ctx) {
    const { session, engine, run, state, width, theme } = ctx;
    const { layers, heads } = engine.shape;
    const cells = [];
    for (let l = 0; l < layers; l++) {
      for (let h = 0; h < heads; h++) {
        cells.push({
          layer: l, head: h, stats: session.rowStats(l, h, state.token),
          roles: session.headRoles(l, h).roles, values: session.row(l, h, state.token),
        });
      }
    }
    const best = cells.reduce((a, b) => (b.stats.ratio > a.stats.ratio ? b : a));
    const figure = headGridFigure({
      width, theme, cells, layers, heads, selected: state, colour: seriesColours(theme).head,
      token: state.token, n: run.n,
      title: `All ${layers * heads} heads \u2014 attention from ${tokenPhrase(run.tokens[state.token], state.token)}`,
      subtitle: `Big number: ratio to uniform (max \u00d7 n; 1.00 = uniform, ${run.n} = all on one token). ` +
        `Every row sums to 1.000. Badges: the head\u2019s role over the whole sentence. Highest ratio: ${headName(best.layer, best.head)} (${best.stats.ratio.toFixed(2)}).`,
    });
    const notes = [
      note('Click a head, or use the arrow keys, to choose it for the other views.', 'hint'),
      note(roleSummary(cells, layers * heads), 'role-summary'),
      positionalWarning(ctx),
      html('dl', { class: 'role-legend' }, [
        html('dt', { text: ROLE_BADGES.previous + ' / ' + ROLE_BADGES.next }),
        html('dd', { text: 'the row\u2019s largest weight is on token i\u22121 (or i+1) on at least 90% of rows (sentences of 5 tokens or more)' }),
        html('dt', { text: `${ROLE_BADGES['cls-sink']} / ${ROLE_BADGES['sep-sink']} / ${ROLE_BADGES['punct-sink']}` }),
        html('dd', { text: 'at least half of the head\u2019s attention mass goes to [CLS], [SEP] or punctuation' }),
        html('dt', { text: ROLE_BADGES.broad }),
        html('dd', { text: 'normalised row entropy at least 0.9: close to uniform' }),
      ]),
    ];
    return { figure, notes, wire: (figure, explorer) => wireGrid(figure, explorer) };
  },
};

function wireGrid(figure, explorer) {
  for (const cell of figure.querySelectorAll('.head-cell')) {
    cell.addEventListener('click', () => {
      explorer.setSelection({ layer: Number(cell.dataset.layer) - 1, head: Number(cell.dataset.head) - 1 }, 'cell');
    });
  }
  figure.addEventListener('keydown', (event) => {
    const { layers, heads } = explorer.engine.shape;
    const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    const move = moves[event.key];
    if (!move) return;
    event.preventDefault();
    const layer = Math.min(layers - 1, Math.max(0, explorer.state.layer + move[0]));
    const head = Math.min(heads - 1, Math.max(0, explorer.state.head + move[1]));
    explorer.setSelection({ layer, head }, 'cell');
  });
}
