// Inside a layer: the chosen token's vector at each step after attention.

import { stripFigure } from '../figures.mjs';
import { fixed, meanAndDeviation, tokenPhrase } from '../format.mjs';
import { note } from './common.mjs';

export const layerView = {
  id: 'layer',
  label: 'Inside a layer',
  controls: [],
  render(ctx) {
    const { session, engine, run, state, width, theme } = ctx;
    const { layer, token } = state;
    const steps = session.walkthrough(layer, token);
    const { heads, hidden } = engine.shape;
    const describe = (values) => {
      const { mean, deviation } = meanAndDeviation(values);
      return { mean, deviation, note: `mean ${fixed(mean, 3)} \u00b7 sd ${fixed(deviation, 3)}` };
    };
    const entries = [
      [`1. the ${heads} heads\u2019 outputs, concatenated`, steps.concat, heads],
      ['2. after the output projection W_O', steps.projected, 0],
      ['3. + residual (the layer\u2019s input)', steps.residual, 0],
      ['4. after LayerNorm (with its learned gain and bias)', steps.normed, 0],
    ];
    const strips = entries.map(([label, values, segments], k) => {
      const d = describe(values);
      return {
        label, values, segments, note: d.note,
        data: { step: String(k + 1), mean: String(d.mean), sd: String(d.deviation), layer: String(layer + 1), token: String(token) },
      };
    });
    const figure = stripFigure({
      width, theme, strips,
      title: `Inside layer ${layer + 1} (all ${heads} heads) for ${tokenPhrase(run.tokens[token], token)}`,
      subtitle: `Each strip is the ${hidden} numbers that stand for the token at that step; colour shows sign and size. ` +
        'LayerNorm standardises the sum (mean 0, standard deviation 1) and then applies its learned gain and bias, so step 4 stays near mean 0, sd 1.',
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
      notes: [note(`After LayerNorm: mean ${fixed(last.mean, 3)}, standard deviation ${fixed(last.deviation, 3)}.`, 'reading')],
    };
  },
};
