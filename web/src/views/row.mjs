// Row: one head's attention from the chosen token, a bar per token.

import { html } from '../dom.mjs';
import { tokenBarFigure, seriesColours } from '../charts.mjs';
import { fixed, probability, headName, tokenPhrase, spreadReading, READING_DEFINITION, SOFTMAX_SENTENCE } from '../format.mjs';
import { capitalise, rowDataset, statLine, note, keptTokens, renormalised, RENORMALISED_NOTE } from './common.mjs';
import { positionalWarning } from './grid.mjs';

export const rowView = {
  id: 'row',
  label: 'Row',
  controls: ['scale', 'special'],
  render(ctx) {
    const { session, run, state, width, theme } = ctx;
    const { layer, head, token } = state;
    const n = run.n;
    const stats = session.rowStats(layer, head, token);
    const reading = spreadReading(stats, n, run.tokens);
    const kept = keptTokens(run.tokens, state.hideSpecial);
    const hiding = kept.length < n && kept.length > 0 && kept.includes(token);
    const values = hiding ? renormalised(session.row(layer, head, token), kept) : session.row(layer, head, token);
    const tokens = hiding ? kept.map((i) => run.tokens[i]) : run.tokens;
    const selected = hiding ? kept.indexOf(token) : token;
    const shownN = tokens.length;
    const fixedScale = state.scale === 'fixed';
    const figure = tokenBarFigure({
      width, theme, tokens, selected, indexText: hiding ? (i) => String(kept[i]) : undefined,
      title: `${capitalise(headName(layer, head))} \u2014 attention from ${tokenPhrase(run.tokens[token], token)}`,
      subtitle: [
        `Each bar is the share of ${tokenPhrase(run.tokens[token], token)}'s attention that goes to that token` +
        (hiding ? ', renormalised without [CLS] and [SEP].' : '.') +
        ` Scale: ${fixedScale ? 'fixed 0\u20131, the same for every head' : 'fitted to this row'}.`,
        reading.text,
      ],
      columns: [{
        heading: hiding ? 'attention weight (renormalised)' : 'attention weight', className: 'attention-row',
        colour: seriesColours(theme).head, scaleMax: fixedScale ? 1 : undefined,
        stats: hiding
          ? [`shown: \u03a3 = 1.000 (renormalised)`, `model\u2019s row: \u03a3 ${stats.sum.toFixed(3)}, ratio ${stats.ratio.toFixed(2)}`]
          : [`\u03a3 = ${stats.sum.toFixed(3)}`, `ratio to uniform ${stats.ratio.toFixed(2)}`],
        emphasiseStats: true, values, uniform: 1 / shownN,
        data: { ...rowDataset(layer, head, token, stats, n), kind: hiding ? 'head-renormalised' : 'head', reading: reading.kind, scale: state.scale },
        ariaLabel: `${headName(layer, head)}, row of token ${token}: sum ${stats.sum.toFixed(3)}, ratio to uniform ${stats.ratio.toFixed(2)}`,
      }],
    });
    const notes = [
      html('p', { class: 'readout' }, [
        statLine('\u03a3 (sum of the row)', stats.sum.toFixed(3), 'row-sum'),
        statLine('ratio to uniform (max \u00d7 n)', `${stats.ratio.toFixed(2)} = ${fixed(stats.max)} \u00d7 ${n}`, 'row-ratio'),
        statLine('uniform share 1/n', probability(1 / n)),
        statLine('effective tokens', `${stats.effective.toFixed(1)} of ${n}`, 'row-effective'),
      ]),
      html('p', { class: 'reading', dataset: { reading: reading.kind }, text: reading.text }),
      note(SOFTMAX_SENTENCE, 'why-sum'),
      note(READING_DEFINITION, 'definition'),
      hiding ? note(RENORMALISED_NOTE, 'warning renormalised') : null,
      positionalWarning(ctx),
    ];
    return { figure, notes };
  },
};
