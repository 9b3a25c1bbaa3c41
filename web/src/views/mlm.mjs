// [MASK]: the masked-language-model head's top guesses, with what this model can and cannot do.

import { tokenBarFigure, niceMax, seriesColours } from '../charts.mjs';
import { messageFigure, stackFigures } from '../figures.mjs';
import { percent } from '../format.mjs';
import { note } from './common.mjs';
import { weightsProgressText } from '../loader.mjs';

const MAX_MASKS_SHOWN = 4;

/** What the page says about the quality of the predictions, from the model card when there is one. */
export function predictionCaveat(card) {
  const accuracy = Number(card?.heldout_mlm_accuracy);
  const measured = Number.isFinite(accuracy)
    ? `On held-out text its top guess is right ${percent(accuracy)} of the time`
    : 'Its accuracy on held-out text is not recorded in this weights file';
  return `This is a small model: its [MASK] predictions are mostly frequency guesses (common words such as \u201cthe\u201d, ` +
    `\u201c.\u201d or \u201c,\u201d), not understanding. ${measured}. A wrong guess is expected, not a fault of the page.`;
}

export const NO_MLM_HEAD = 'This checkpoint has no masked-word head (BertModel): attention works, predictions do not.';

export const mlmView = {
  id: 'mlm',
  label: '[MASK]',
  controls: [],
  render(ctx) {
    const { session, engine, run, width, theme } = ctx;
    const { layers, heads } = engine.shape;
    const masks = [];
    run.tokens.forEach((t, i) => { if (t === '[MASK]') masks.push(i); });
    if (!engine.hasMlm()) {
      return {
        figure: messageFigure({ width, title: '[MASK] predictions are off for this model', lines: [NO_MLM_HEAD] }),
        notes: [note('The other views read the attention, which this model has in full.', 'note no-mlm')],
      };
    }
    const caveat = note(predictionCaveat(engine.modelCard()), 'warning mlm-caveat');
    if (!masks.length) {
      return {
        figure: messageFigure({
          width, title: '[MASK] what-if: no [MASK] in the sentence yet',
          lines: ['Type [MASK] in place of a word (for example \u201cThe cat [MASK] on the mat.\u201d) and the model\u2019s top-5 guesses appear here, with their probabilities.'],
        }),
        notes: [caveat],
      };
    }
    if (engine.loading && engine.partsMissing() > 0) {
      engine.loading.ensureAll().catch(() => {});  // a refusal is shown by the explorer
      return {
        figure: messageFigure({ width, title: '[MASK] what-if: waiting for the rest of the model weights', lines: [weightsProgressText(engine)] }),
        notes: [caveat],
      };
    }
    const colours = seriesColours(theme);
    const shown = masks.slice(0, MAX_MASKS_SHOWN);
    const parts = shown.map((position) => {
      const predictions = session.mlm(position, 5);
      return tokenBarFigure({
        width, theme, tokens: predictions.map((p) => p.token), selected: null, indexText: (i) => `#${i + 1}`,
        title: `[MASK] at token ${position}: top-5 predictions`,
        subtitle: position === shown[0] ? `Not an attention view: the masked-language-model head on the final layer (all ${layers * heads} heads feed it).` : [],
        columns: [{
          heading: 'probability', colour: colours.second, values: predictions.map((p) => p.probability), scaleMax: niceMax(predictions[0]?.probability || 1),
          format: (v) => percent(v), className: 'mlm-row',
          data: { kind: 'mlm', token: String(position), top: predictions[0]?.token ?? '' },
        }],
      });
    });
    const notes = [caveat];
    if (masks.length > shown.length) notes.push(note(`Showing the first ${shown.length} of ${masks.length} [MASK] tokens.`));
    return { figure: stackFigures(width, parts, '[MASK] predictions'), notes };
  },
};
