// Entropy: how concentrated each head's rows are, as effective tokens.

import { html } from '../dom.mjs';
import { tokenBarFigure, seriesColours } from '../charts.mjs';
import { headTableFigure, stackFigures } from '../figures.mjs';
import { headName, tokenPhrase, READING_DEFINITION } from '../format.mjs';
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
  label: 'Entropy',
  controls: [],
  render(ctx) {
    const { session, engine, run, state, width, theme } = ctx;
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
      subtitle: `Outlined: ${headName(layer, head)}. Darker = more concentrated (fewer effective tokens), as in every view.`,
      width, theme, layers, heads, selected: state, title, text: (l, h) => list[l * heads + h].toFixed(1),
      shade: (l, h) => concentration(list[l * heads + h], n),
    });
    const bars = tokenBarFigure({
      width, theme, tokens: run.tokens, selected: token,
      title: `${capitalise(headName(layer, head))} \u2014 effective tokens of every row`,
      subtitle: `Effective tokens = exp(entropy of the row): ${n} when the row is uniform, 1 when all weight is on one token.`,
      columns: [{
        heading: 'effective tokens (entropy in nats)', colour: colours.head, className: 'entropy-row',
        values: perRow.map((s) => s.effective), scaleMax: n,
        format: (v, i) => `${v.toFixed(1)} (${perRow[i ?? 0].entropy.toFixed(2)})`,
        stats: [`uniform: ${n} tokens, entropy ln ${n} = ${Math.log(n).toFixed(2)}`],
        data: { layer: String(layer + 1), head: String(head + 1), kind: 'entropy' },
      }],
    });
    const tokenTable = table(forToken, `Effective tokens per head for ${tokenPhrase(run.tokens[token], token)} (of ${n})`);
    const meanTable = table(meanOverRows, `Effective tokens per head, mean over all ${n} rows`);
    describeCells(tokenTable, 'token', (l, h) => {
      const s = session.rowStats(l, h, token);
      return { effective: String(s.effective), entropy: String(s.entropy), normalized: String(s.normalized) };
    });
    describeCells(meanTable, 'mean', (l, h) => ({ effective: String(meanOverRows[l * heads + h]) }));
    for (const bar of bars.querySelectorAll('.entropy-row rect.bar')) {
      const s = perRow[Number(bar.dataset.token)];
      Object.assign(bar.dataset, { entropy: String(s.entropy), normalized: String(s.normalized) });
    }
    const figure = stackFigures(width, [tokenTable, meanTable, bars], 'Entropy and effective tokens');
    const stats = perRow[token];
    const notes = [
      html('p', { class: 'readout' }, [
        statLine(`${headName(layer, head)}, token ${token}: entropy`, `${stats.entropy.toFixed(3)} nats`, 'entropy'),
        statLine('effective tokens', `${stats.effective.toFixed(2)} of ${n}`, 'effective'),
        statLine('normalised entropy', stats.normalized.toFixed(3), 'normalized'),
      ]),
      note(READING_DEFINITION, 'definition'),
    ];
    return { figure, notes };
  },
};
