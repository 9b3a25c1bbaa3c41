// All heads: one cell per head of the model for the chosen token, with each head's roles.

import { html } from '../dom.mjs';
import { seriesColours } from '../charts.mjs';
import { headGridFigure, roleBadge } from '../figures.mjs';
import { headName, tokenPhrase } from '../format.mjs';
import { note, positionalWarning, wireHeadSwitches } from './common.mjs';

/** "In this sentence: 2 heads are [CLS] sinks, …", counted from the engine's head roles. */
function roleSummary(t, cells, total) {
  const counts = new Map();
  for (const cell of cells) for (const role of cell.roles) counts.set(role, (counts.get(role) || 0) + 1);
  if (!counts.size) return t('grid.noBadges', { count: total });
  const parts = [...counts].map(([role, count]) => t('grid.badgeCount', { count, badge: t.quote(roleBadge(t, role)) }));
  return t('grid.badges', { count: total, parts: parts.join(', ') });
}

export const gridView = {
  id: 'all-heads',
  layersShown: (state, shape) => shape.layers,
  aliases: ['grid'],
  labelKey: 'view.grid',
  focus: '.head-cell.selected',
  render(ctx) {
    const { session, engine, run, state, width, theme, t } = ctx;
    const { layers, heads } = engine.shape;
    const cells = [];
    for (let l = 0; l < layers; l++) {
      for (let h = 0; h < heads; h++) {
        cells.push({
          layer: l, head: h, stats: session.rowStats(l, h, state.token),
          roles: session.headRoles(l, h).roles, values: session.row(l, h, state.token),
          off: session.removedHeads().some(([rl, rh]) => rl === l && rh === h),
        });
      }
    }
    const best = cells.reduce((a, b) => (b.stats.ratio > a.stats.ratio ? b : a));
    const figure = headGridFigure({
      width, theme, cells, layers, heads, selected: state, colour: seriesColours(theme).head,
      token: state.token, n: run.n, t,
      title: t('grid.title', { count: layers * heads, phrase: tokenPhrase(t, run.tokens[state.token], state.token) }),
      subtitle: t('grid.subtitle', { one: t.number(1, 2), n: run.n, sum: t.number(1, 3), head: headName(t, best.layer, best.head), ratio: t.number(best.stats.ratio, 2) }),
    });
    const notes = [
      note(t('grid.hint'), 'hint'),
      note(roleSummary(t, cells, layers * heads), 'role-summary'),
      positionalWarning(ctx),
      html('dl', { class: 'role-legend' }, [
        html('dt', { text: `${roleBadge(t, 'previous')} / ${roleBadge(t, 'next')}` }),
        html('dd', { text: t('grid.legendPositional') }),
        html('dt', { text: `${roleBadge(t, 'cls-sink')} / ${roleBadge(t, 'sep-sink')} / ${roleBadge(t, 'punct-sink')}` }),
        html('dd', { text: t('grid.legendSink') }),
        html('dt', { text: roleBadge(t, 'broad') }),
        html('dd', { text: t('grid.legendBroad', { entropy: t.number(0.9, 1) }) }),
      ]),
    ];
    return { figure, notes, wire: wireGrid };
  },
};

function wireGrid(figure, ui) {
  wireHeadSwitches(figure, ui);
  for (const cell of figure.querySelectorAll('.head-cell')) {
    cell.addEventListener('click', () => {
      ui.select({ layer: Number(cell.dataset.layer) - 1, head: Number(cell.dataset.head) - 1 }, 'figure');
    });
  }
  figure.addEventListener('keydown', (event) => {
    const { layers, heads } = ui.shape;
    const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    const move = moves[event.key];
    if (!move) return;
    event.preventDefault();
    const layer = Math.min(layers - 1, Math.max(0, ui.state.layer + move[0]));
    const head = Math.min(heads - 1, Math.max(0, ui.state.head + move[1]));
    ui.select({ layer, head }, 'figure');
  });
}
