// [MASK]: the masked-language-model head's top guesses, with what this model can and cannot do.

import { tokenBarFigure, niceMax, seriesColours } from '../charts.mjs';
import { messageFigure, stackFigures } from '../figures.mjs';
import { maskPositions } from '../format.mjs';
import { note, predictionCaveat, weightsWaitText } from './common.mjs';

const MAX_MASKS_SHOWN = 4;

export const mlmView = {
  id: 'mask',
  layersShown: (state, shape) => shape.layers,
  aliases: ['mlm'],
  redrawsAsWeightsArrive: true,
  labelKey: 'view.mlm',
  render(ctx) {
    const { session, engine, run, width, theme, t } = ctx;
    const { layers, heads } = engine.shape;
    const masks = maskPositions(run.tokens);
    if (!engine.hasMlm()) {
      return {
        figure: messageFigure({ width, title: t('mlm.offTitle'), lines: [t('mlm.noHead')] }),
        notes: [note(t('mlm.offNote'), 'note no-mlm')],
      };
    }
    const caveat = note(predictionCaveat(t, engine.modelCard()), 'warning mlm-caveat');
    if (!masks.length) {
      return {
        figure: messageFigure({
          width, title: t('mlm.noMaskTitle'),
          lines: [t('mlm.noMaskLine')],
        }),
        notes: [caveat],
      };
    }
    if (engine.loading && engine.partsMissing() > 0) {
      engine.loading.ensureAll().catch(() => {});  // a refusal is shown by the explorer
      return {
        figure: messageFigure({ width, title: t('mlm.waitingTitle'), lines: [weightsWaitText(t, engine)] }),
        notes: [caveat],
      };
    }
    const colours = seriesColours(theme);
    const shown = masks.slice(0, MAX_MASKS_SHOWN);
    const parts = shown.map((position) => {
      const predictions = session.mlm(position, 5);
      return tokenBarFigure({
        width, theme, tokens: predictions.map((p) => p.token), selected: null, indexText: (i) => `#${i + 1}`, t,
        title: t('mlm.title', { position }),
        subtitle: position === shown[0] ? t('mlm.subtitle', { count: layers * heads }) : [],
        columns: [{
          heading: t('mlm.heading'), colour: colours.second, values: predictions.map((p) => p.probability), scaleMax: niceMax(predictions[0]?.probability || 1),
          format: (v) => t.percent(v), className: 'mlm-row',
          data: { kind: 'mlm', token: String(position), top: predictions[0]?.token ?? '' },
        }],
      });
    });
    const notes = [caveat];
    if (masks.length > shown.length) notes.push(note(t('mlm.more', { shown: shown.length, count: masks.length })));
    return { figure: stackFigures(width, parts, t('mlm.label')), notes };
  },
};
