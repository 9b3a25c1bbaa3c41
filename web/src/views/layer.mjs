// Inside a layer: the chosen token's vector at each step after attention.

import { stripFigure } from '../figures.mjs';
import { meanAndDeviation, tokenPhrase } from '../format.mjs';
import { note } from './common.mjs';

export const layerView = {
  id: 'inside-a-layer',
  aliases: ['layer'],
  labelKey: 'view.layer',
  render(ctx) {
    const { session, engine, run, state, width, theme, t } = ctx;
    const { layer, token } = state;
    const steps = session.walkthrough(layer, token);
    const { heads, hidden } = engine.shape;
    const describe = (values) => {
      const { mean, deviation } = meanAndDeviation(values);
      return { mean, deviation, note: t('layer.stripNote', { mean: t.number(mean, 3), sd: t.number(deviation, 3) }) };
    };
    const entries = [
      [t('layer.step1', { count: heads }), steps.concat, heads],
      [t('layer.step2'), steps.projected, 0],
      [t('layer.step3'), steps.residual, 0],
      [t('layer.step4'), steps.normed, 0],
    ];
    const strips = entries.map(([label, values, segments], k) => {
      const d = describe(values);
      return {
        label, values, segments, note: d.note,
        data: { step: String(k + 1), mean: String(d.mean), sd: String(d.deviation), layer: String(layer + 1), token: String(token) },
      };
    });
    const figure = stripFigure({
      width, theme, strips, t,
      title: t('layer.title', { layer: layer + 1, count: heads, phrase: tokenPhrase(t, run.tokens[token], token) }),
      subtitle: t('layer.subtitle', { hidden }),
    });
    // Each cell of a strip carries the exact number its colour stands for.
    figure.querySelectorAll('.strip').forEach((group, k) => {
      group.querySelectorAll('rect:not(.legend-frame)').forEach((cell, i) => {
        Object.assign(cell.dataset, { index: String(i), value: String(strips[k].values[i]) });
      });
    });
    const last = describe(steps.normed);
    return {
      figure,
      notes: [note(t('layer.reading', { mean: t.number(last.mean, 3), sd: t.number(last.deviation, 3) }), 'reading')],
    };
  },
};
