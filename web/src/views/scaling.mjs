// Why √d: the model's row beside a what-if without the division of q·k by √d.

import { html } from '../dom.mjs';
import { tokenBarFigure, niceMax, seriesColours } from '../charts.mjs';
import { headName, tokenPhrase, largest, total, effectiveTokens } from '../format.mjs';
import { capitalise, rowDataset, statLine } from './common.mjs';

export const scalingView = {
  id: 'scaling',
  label: 'Why \u221ad',
  controls: ['whatif'],
  render(ctx) {
    const { session, engine, run, state, width, theme } = ctx;
    const { layer, head, token, whatIf } = state;
    const n = run.n;
    const d = engine.shape.headSize;
    const root = Number(Math.sqrt(d).toFixed(2));
    const stats = session.rowStats(layer, head, token);
    const model = session.rowScaled(layer, head, token, true);
    const unscaled = session.rowScaled(layer, head, token, false);
    const unscaledMax = largest(unscaled);
    const unscaledEffective = effectiveTokens(unscaled);
    const colours = seriesColours(theme);
    const columns = [{
      heading: `the model: softmax(q\u00b7k / ${root})`, colour: colours.head, values: model, uniform: 1 / n,
      scaleMax: whatIf ? niceMax(Math.max(stats.max, unscaledMax.value)) : undefined, emphasiseStats: true,
      stats: [`\u03a3 = ${stats.sum.toFixed(3)} \u00b7 ratio ${stats.ratio.toFixed(2)}`, `effective tokens ${stats.effective.toFixed(1)}`],
      className: 'attention-row', data: { ...rowDataset(layer, head, token, stats, n), kind: 'head', effective: String(stats.effective) },
    }];
    if (whatIf) {
      columns.push({
        heading: 'WHAT-IF: softmax(q\u00b7k), no \u00f7\u221ad', colour: colours.whatif, values: unscaled, uniform: 1 / n,
        scaleMax: columns[0].scaleMax, emphasiseStats: true,
        stats: [`\u03a3 = ${total(unscaled).toFixed(3)} \u00b7 ratio ${(unscaledMax.value * n).toFixed(2)}`, `effective tokens ${unscaledEffective.toFixed(1)}`],
        className: 'whatif-row',
        data: {
          kind: 'what-if', whatif: 'true', layer: String(layer + 1), head: String(head + 1), token: String(token),
          sum: String(total(unscaled)), ratio: String(unscaledMax.value * n), effective: String(unscaledEffective),
        },
      });
    }
    const figure = tokenBarFigure({
      width, theme, tokens: run.tokens, selected: token, columns,
      title: `${capitalise(headName(layer, head))} \u2014 ${tokenPhrase(run.tokens[token], token)}: ` +
        (whatIf ? 'the model beside a what-if without \u00f7\u221ad' : `the model\u2019s row (divides q\u00b7k by \u221a${d} = ${root})`),
      subtitle: whatIf
        ? `WHAT-IF, not the model: the same q\u00b7k scores without the division by ${root}. Scores ${root}\u00d7 larger make the softmax saturate: the largest score takes almost everything.`
        : `The scores q\u00b7k are divided by \u221ad = ${root} (d = ${d}, the size of a head) before the softmax. Turn on the what-if to see the same row without that division.`,
    });
    const notes = [
      html('p', { class: 'readout' }, [
        statLine(`effective tokens, model (\u00f7${root})`, `${stats.effective.toFixed(2)} of ${n}`, 'effective-model'),
        whatIf ? statLine(`effective tokens, what-if (no \u00f7${root})`, `${unscaledEffective.toFixed(2)} of ${n}`, 'effective-whatif') : null,
      ]),
    ];
    return { figure, notes };
  },
};
