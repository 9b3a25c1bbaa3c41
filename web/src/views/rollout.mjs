// Rollout: every head of layers 1…L mixed with the residual path, beside the chosen head.

import { tokenBarFigure, niceMax, seriesColours } from '../charts.mjs';
import { html } from '../dom.mjs';
import { headName, tokenPhrase, largest, total } from '../format.mjs';
import { capitalise, rowDataset, statLine, note } from './common.mjs';

export const rolloutView = {
  id: 'rollout',
  label: 'Rollout',
  controls: ['rollout', 'scale'],
  render(ctx) {
    const { session, engine, run, state, width, theme } = ctx;
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
      width, theme, tokens: run.tokens, selected: token,
      title: `${capitalise(headName(layer, head))} beside rollout through layer ${last + 1} (${headsAveraged} heads) \u2014 from ${tokenPhrase(run.tokens[token], token)}`,
      subtitle: `Rollout (Abnar & Zuidema 2020): for each layer take \u00bd\u00b7(mean of its ${engine.shape.heads} heads) + \u00bd\u00b7I, ` +
        `renormalise the rows, and multiply layers 1\u2013${last + 1} together. Same scale for both columns.`,
      columns: [
        {
          heading: headName(layer, head), colour: colours.head, values, uniform: 1 / n, scaleMax,
          stats: [`\u03a3 = ${stats.sum.toFixed(3)}`, `ratio ${stats.ratio.toFixed(2)}`], emphasiseStats: true,
          className: 'attention-row', data: { ...rowDataset(layer, head, token, stats, n), kind: 'head' },
        },
        {
          heading: `rollout: average of ${headsAveraged} heads`, colour: colours.rollout, values: rollout, uniform: 1 / n, scaleMax,
          stats: [`\u03a3 = ${rolloutStats.sum.toFixed(3)}`, `ratio ${rolloutStats.ratio.toFixed(2)}`], emphasiseStats: true,
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
        statLine(`${headName(layer, head)}: \u03a3`, stats.sum.toFixed(3)),
        statLine('ratio', stats.ratio.toFixed(2)),
        statLine('rollout: \u03a3', rolloutStats.sum.toFixed(3), 'rollout-sum'),
        statLine('ratio', rolloutStats.ratio.toFixed(2), 'rollout-ratio'),
      ]),
      note(`Rollout mixes every head of layers 1\u2013${last + 1} and adds the residual path (\u00bd\u00b7I) at every layer, ` +
        `so it reads differently from any single head. Neither column is \u201cthe\u201d attention: each is one reading. ` +
        'Each token\u2019s rollout row is computed once per sentence and layer range and kept, so changing the head does not recompute it.'),
    ];
    return { figure, notes };
  },
};
