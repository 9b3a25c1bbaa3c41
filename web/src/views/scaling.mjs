// Why √d: the model's row beside a what-if without the division of q·k by √d.

import { html } from '../dom.mjs';
import { tokenBarFigure, niceMax, seriesColours } from '../charts.mjs';
import { headName, tokenPhrase } from '../format.mjs';
import { capitalise, rowDataset, statLine } from './common.mjs';
import { switchParam } from '../view-state.mjs';
import { toggle } from '../widgets.mjs';

/** The what-if: the row drawn as if q·k were not divided by √d. */
const whatIfControl = {
  name: 'whatif',
  state: { whatIf: false },
  params: [switchParam('whatif', 'whatIf', (s) => [s.whatIf ? 'problem.usedWhatIfOn' : 'problem.usedWhatIfOff', {}])],
  build(ui) {
    const root = Number(Math.sqrt(ui.shape.headSize).toFixed(2));
    const tag = html('span', { class: 'whatif-tag', text: ui.t('control.whatIfTag') });
    const { input, control } = toggle('whatif-toggle', tag, ui.t('control.whatIf', { root: ui.t.number(root, String(root).split('.')[1]?.length ?? 0) }),
      (on) => ui.select({ whatIf: on }));
    return { element: control, sync: (state) => { input.checked = state.whatIf; } };
  },
};

export const scalingView = {
  id: 'why-sqrt-d',
  aliases: ['scaling', 'why-root-d'],
  labelKey: 'view.scaling',
  controls: [whatIfControl],
  render(ctx) {
    const { session, engine, run, state, width, theme, t } = ctx;
    const { layer, head, token, whatIf } = state;
    const n = run.n;
    const d = engine.shape.headSize;
    const rootValue = Number(Math.sqrt(d).toFixed(2));
    const root = t.number(rootValue, (String(rootValue).split('.')[1] ?? '').length);
    const stats = session.rowStats(layer, head, token);
    const model = session.rowScaled(layer, head, token, true);
    const unscaled = session.rowScaled(layer, head, token, false);
    const unscaledStats = session.rowScaledStats(layer, head, token, false);
    const colours = seriesColours(theme);
    const columns = [{
      heading: t('scaling.headingModel', { root }), colour: colours.head, values: model, uniform: 1 / n,
      scaleMax: whatIf ? niceMax(Math.max(stats.max, unscaledStats.max)) : undefined, emphasiseStats: true,
      stats: [t('scaling.statSum', { sum: t.number(stats.sum, 3), ratio: t.number(stats.ratio, 2) }), t('scaling.statEffective', { effective: t.number(stats.effective, 1) })],
      className: 'attention-row', data: { ...rowDataset(layer, head, token, stats, n), kind: 'head', effective: String(stats.effective) },
    }];
    if (whatIf) {
      columns.push({
        heading: t('scaling.headingWhatIf'), colour: colours.whatif, values: unscaled, uniform: 1 / n,
        scaleMax: columns[0].scaleMax, emphasiseStats: true,
        stats: [t('scaling.statSum', { sum: t.number(unscaledStats.sum, 3), ratio: t.number(unscaledStats.ratio, 2) }), t('scaling.statEffective', { effective: t.number(unscaledStats.effective, 1) })],
        className: 'whatif-row',
        data: {
          kind: 'what-if', whatif: 'true', layer: String(layer + 1), head: String(head + 1), token: String(token),
          sum: String(unscaledStats.sum), ratio: String(unscaledStats.ratio), effective: String(unscaledStats.effective),
        },
      });
    }
    const figure = tokenBarFigure({
      width, theme, tokens: run.tokens, selected: token, columns, t,
      title: t(whatIf ? 'scaling.titleWhatIf' : 'scaling.title', { head: capitalise(headName(t, layer, head)), phrase: tokenPhrase(t, run.tokens[token], token), d, root }),
      subtitle: t(whatIf ? 'scaling.subtitleWhatIf' : 'scaling.subtitle', { root, d }),
    });
    const notes = [
      html('p', { class: 'readout' }, [
        statLine(t('scaling.readoutModel', { root }), t('row.readoutEffectiveValue', { effective: t.number(stats.effective, 2), n }), 'effective-model'),
        whatIf ? statLine(t('scaling.readoutWhatIf', { root }), t('row.readoutEffectiveValue', { effective: t.number(unscaledStats.effective, 2), n }), 'effective-whatif') : null,
      ]),
    ];
    return { figure, notes };
  },
};
