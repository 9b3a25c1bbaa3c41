// Entropy: how concentrated each head's rows are, as effective tokens.

import { html } from '../dom.mjs';
import { tokenBarFigure, seriesColours } from '../charts.mjs';
import { headTableFigure, stackFigures } from '../figures.mjs';
import { headName, tokenPhrase, readingDefinition } from '../format.mjs';
import { capitalise, statLine, note } from './common.mjs';

/** Colour strength = concentration, 1 − normalised entropy: darker means more weight on fewer tokens, as in every view. */
function concentration(effective, n) {
  return n > 1 ? 1 - Math.log(Math.max(1, effective)) / Math.log(n) : 1;
}

/** The exact readings behind each cell of a head table (its text is rounded to 0.1). */
function describeCells(table, name, readings) {
  table.dataset.table = name;
  for (const cell of table.querySelectorAll('.table-cell')) {
    Object.assign(cell.dataset, readings(Number(cell.dataset.layer) - 1, Number(cell.dataset.head) - 1));
  }
}

export const entropyView = {
  id: 'entropy',
  layersShown: (state, shape) => shape.layers,
  labelKey: 'view.entropy',
  render(ctx) {
    const { session, engine, run, state, width, theme, t } = ctx;
    const { layers, heads } = engine.shape;
    const { layer, head, token } = state;
    const n = run.n;
    const perRow = [];
    for (let i = 0; i < n; i++) perRow.push(session.rowStats(layer, head, i));
    const forToken = [], meanOverRows = [];
    for (let l = 0; l < layers; l++) {
      for (let h = 0; h < heads; h++) {
        forToken.push(session.rowStats(l, h, token).effective);
        let sum = 0;
        for (let i = 0; i < n; i++) sum += session.rowStats(l, h, i).effective;
        meanOverRows.push(sum / n);
      }
    }
    const colours = seriesColours(theme);
    const table = (list, title) => headTableFigure({
      subtitle: t('entropy.tableSubtitle', { head: headName(t, layer, head), shade: t(ctx.theme === 'dark' ? 'colour.shadeDark' : 'colour.shadeLight') }),
      width, theme, layers, heads, selected: state, title, t,
      text: (l, h) => t.number(list[l * heads + h], 1), value: (l, h) => list[l * heads + h].toFixed(1),
      shade: (l, h) => concentration(list[l * heads + h], n),
    });
    const bars = tokenBarFigure({
      width, theme, tokens: run.tokens, selected: token, t,
      title: t('entropy.barsTitle', { head: capitalise(headName(t, layer, head)) }),
      subtitle: t('entropy.barsSubtitle', { n }),
      columns: [{
        heading: t('entropy.heading'), colour: colours.head, className: 'entropy-row',
        values: perRow.map((s) => s.effective), scaleMax: n,
        format: (v, i) => `${t.number(v, 1)} (${t.number(perRow[i ?? 0].entropy, 2)})`,
        stats: [t('entropy.uniform', { count: n, ln: t.number(Math.log(n), 2) })],
        data: { layer: String(layer + 1), head: String(head + 1), kind: 'entropy' },
      }],
    });
    const tokenTable = table(forToken, t('entropy.tokenTable', { phrase: tokenPhrase(t, run.tokens[token], token), n }));
    const meanTable = table(meanOverRows, t('entropy.meanTable', { count: n }));
    describeCells(tokenTable, 'token', (l, h) => {
      const s = session.rowStats(l, h, token);
      return { effective: String(s.effective), entropy: String(s.entropy), normalized: String(s.normalized) };
    });
    describeCells(meanTable, 'mean', (l, h) => ({ effective: String(meanOverRows[l * heads + h]) }));
    for (const bar of bars.querySelectorAll('.entropy-row rect.bar')) {
      const s = perRow[Number(bar.dataset.token)];
      Object.assign(bar.dataset, { entropy: String(s.entropy), normalized: String(s.normalized) });
    }
    const figure = stackFigures(width, [tokenTable, meanTable, bars], t('entropy.label'));
    const stats = perRow[token];
    const notes = [
      html('p', { class: 'readout' }, [
        statLine(t('entropy.readoutEntropy', { head: headName(t, layer, head), token }), t('entropy.nats', { entropy: t.number(stats.entropy, 3) }), 'entropy'),
        statLine(t('row.readoutEffective'), t('row.readoutEffectiveValue', { effective: t.number(stats.effective, 2), n }), 'effective'),
        statLine(t('entropy.readoutNormalised'), t.number(stats.normalized, 3), 'normalized'),
      ]),
      note(readingDefinition(t), 'definition'),
    ];
    return { figure, notes };
  },
};
