// Rollout: every head of layers 1…L mixed with the residual path, beside the chosen head.

import { tokenBarFigure, niceMax, seriesColours } from '../charts.mjs';
import { html } from '../dom.mjs';
import { headName, tokenPhrase, largest, total } from '../format.mjs';
import { capitalise, rowDataset, statLine, note } from './common.mjs';
import { scaleControl } from './controls.mjs';
import { layerParam } from '../view-state.mjs';
import { segmented, checkSegmented } from '../widgets.mjs';

/** Which layer the rollout runs through (null until a model is loaded: its last layer). */
const rolloutControl = {
  name: 'rollout',
  state: { rolloutLayer: null },
  shapeState: (shape) => ({ rolloutLayer: shape.layers - 1 }),
  params: [layerParam('rollout', 'rolloutLayer', (s, { layers }) => ['problem.usedRollout', { layer: (s.rolloutLayer ?? layers - 1) + 1, layers }])],
  build(ui) {
    const label = ui.t('control.rollout');
    const picker = segmented(label, ui.shape.layers, 'rollout-picker', (i) => ui.select({ rolloutLayer: i }, '.rollout-picker [aria-checked="true"]'),
      (i) => ui.t('control.rolloutButton', { layer: i + 1 }));
    const element = html('div', { class: 'view-control' }, [html('span', { class: 'picker-label', text: label }), picker]);
    return { element, sync: (state) => checkSegmented(picker, state.rolloutLayer ?? ui.shape.layers - 1) };
  },
};

export const rolloutView = {
  id: 'rollout',
  layersShown: (state, shape) => (state.rolloutLayer ?? shape.layers - 1) + 1,
  labelKey: 'view.rollout',
  controls: [rolloutControl, scaleControl],
  render(ctx) {
    const { session, engine, run, state, width, theme, t } = ctx;
    const { layer, head, token } = state;
    const n = run.n;
    const last = state.rolloutLayer;
    const headsAveraged = (last + 1) * engine.shape.heads;
    const values = session.row(layer, head, token);
    const stats = session.rowStats(layer, head, token);
    const rollout = session.rolloutRow(last, token);
    const rolloutMax = largest(rollout);
    const rolloutStats = { sum: total(rollout), max: rolloutMax.value, ratio: rolloutMax.value * n };
    const colours = seriesColours(theme);
    const scaleMax = state.scale === 'fixed' ? 1 : niceMax(Math.max(stats.max, rolloutMax.value));
    const figure = tokenBarFigure({
      width, theme, tokens: run.tokens, selected: token, t,
      title: t('rollout.title', { head: capitalise(headName(t, layer, head)), layer: last + 1, count: headsAveraged, phrase: tokenPhrase(t, run.tokens[token], token) }),
      subtitle: t('rollout.subtitle', { heads: engine.shape.heads, layer: last + 1 }),
      columns: [
        {
          heading: headName(t, layer, head), colour: colours.head, values, uniform: 1 / n, scaleMax,
          stats: [t('row.statSum', { sum: t.number(stats.sum, 3) }), t('stat.ratio', { ratio: t.number(stats.ratio, 2) })], emphasiseStats: true,
          className: 'attention-row', data: { ...rowDataset(layer, head, token, stats, n), kind: 'head' },
        },
        {
          heading: t('rollout.heading', { count: headsAveraged }), colour: colours.rollout, values: rollout, uniform: 1 / n, scaleMax,
          stats: [t('row.statSum', { sum: t.number(rolloutStats.sum, 3) }), t('stat.ratio', { ratio: t.number(rolloutStats.ratio, 2) })], emphasiseStats: true,
          className: 'rollout-row',
          data: {
            kind: 'rollout', layer: String(last + 1), head: 'mean', token: String(token), heads: String(headsAveraged),
            sum: String(rolloutStats.sum), ratio: String(rolloutStats.ratio), max: String(rolloutStats.max), n: String(n),
          },
        },
      ],
    });
    const notes = [
      html('p', { class: 'readout' }, [
        statLine(t('rollout.readoutHeadSum', { head: headName(t, layer, head) }), t.number(stats.sum, 3)),
        statLine(t('rollout.readoutRatio'), t.number(stats.ratio, 2)),
        statLine(t('rollout.readoutSum'), t.number(rolloutStats.sum, 3), 'rollout-sum'),
        statLine(t('rollout.readoutRatio'), t.number(rolloutStats.ratio, 2), 'rollout-ratio'),
      ]),
      note(t('rollout.note', { layer: last + 1 })),
    ];
    return { figure, notes };
  },
};
