// Contribution: the attention weight beside the length of what each token adds.

import { tokenBarFigure, seriesColours } from '../charts.mjs';
import { headName, tokenPhrase, largest, total } from '../format.mjs';
import { capitalise, rowDataset, note } from './common.mjs';

export const contributionsView = {
  id: 'contributions',
  label: 'Contribution',
  controls: [],
  render(ctx) {
    const { session, run, state, width, theme } = ctx;
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
      width, theme, tokens: run.tokens, selected: token,
      title: `${capitalise(headName(layer, head))} \u2014 attention weight vs contribution for ${tokenPhrase(run.tokens[token], token)}`,
      subtitle: 'Left: the weight \u03b1. Right: the length of what each token actually adds, \u2016\u03b1\u00b7f(x)\u2016 with f(x) the ' +
        'value vector after W_O (Kobayashi et al. 2020). A large weight on a token with a short vector adds little.',
      columns: [
        {
          heading: 'attention weight \u03b1', colour: colours.head, values, uniform: 1 / n,
          stats: [`\u03a3 = ${stats.sum.toFixed(3)}`, `ratio ${stats.ratio.toFixed(2)}`], emphasiseStats: true,
          className: 'attention-row', data: { ...rowDataset(layer, head, token, stats, n), kind: 'head' },
        },
        {
          heading: 'contribution \u2016\u03b1\u00b7f(x)\u2016', colour: colours.second, values: norms,
          format: (v) => (v >= 10 ? v.toFixed(1) : v.toFixed(3)),
          stats: [`\u03a3 = ${normTotal.toFixed(3)}`, `largest: \u201c${byNorm}\u201d`],
          className: 'contribution-row',
          data: { kind: 'contribution', layer: String(layer + 1), head: String(head + 1), token: String(token), total: String(normTotal) },
        },
      ],
    });
    const notes = [
      note(byWeight === byNorm
        ? `Here the largest weight and the largest contribution agree: \u201c${byWeight}\u201d.`
        : `The largest weight goes to \u201c${byWeight}\u201d, but the largest contribution comes from \u201c${byNorm}\u201d.`, 'reading'),
    ];
    return { figure, notes };
  },
};
