// Contribution: the attention weight beside the length of what each token adds.

import { tokenBarFigure, seriesColours } from '../charts.mjs';
import { headName, tokenPhrase, largest, total } from '../format.mjs';
import { capitalise, rowDataset, note } from './common.mjs';

export const contributionsView = {
  id: 'contributions',
  aliases: ['contribution'],
  labelKey: 'view.contributions',
  render(ctx) {
    const { session, run, state, width, theme, t } = ctx;
    const { layer, head, token } = state;
    const n = run.n;
    const values = session.row(layer, head, token);
    const stats = session.rowStats(layer, head, token);
    const norms = session.contributions(layer, head, token);
    const normTotal = total(norms);
    const colours = seriesColours(theme);
    const byWeight = run.tokens[stats.argmax];
    const byNorm = run.tokens[largest(norms).index];
    const figure = tokenBarFigure({
      width, theme, tokens: run.tokens, selected: token, t,
      title: t('contrib.title', { head: capitalise(headName(t, layer, head)), phrase: tokenPhrase(t, run.tokens[token], token) }),
      subtitle: t('contrib.subtitle'),
      columns: [
        {
          heading: t('contrib.headingWeight'), colour: colours.head, values, uniform: 1 / n,
          stats: [t('row.statSum', { sum: t.number(stats.sum, 3) }), t('stat.ratio', { ratio: t.number(stats.ratio, 2) })], emphasiseStats: true,
          className: 'attention-row', data: { ...rowDataset(layer, head, token, stats, n), kind: 'head' },
        },
        {
          heading: t('contrib.headingContribution'), colour: colours.second, values: norms,
          format: (v) => t.number(v, v >= 10 ? 1 : 3),
          stats: [t('row.statSum', { sum: t.number(normTotal, 3) }), t('contrib.largest', { token: t.quote(byNorm) })],
          className: 'contribution-row',
          data: { kind: 'contribution', layer: String(layer + 1), head: String(head + 1), token: String(token), total: String(normTotal) },
        },
      ],
    });
    const notes = [
      note(byWeight === byNorm
        ? t('contrib.agree', { token: t.quote(byWeight) })
        : t('contrib.differ', { weight: t.quote(byWeight), norm: t.quote(byNorm) }), 'reading'),
    ];
    return { figure, notes };
  },
};
