// Entropy: how concentrated each head's rows are, H = −Σ p ln p in nats against its maximum ln n
// (a uniform row), beside effective tokens e^H. With [CLS] and [SEP] hidden (the Row view's
// switch, special=hide) their columns and rows are left out and each row renormalised over the
// words, as the course computes it.

import { html } from '../dom.mjs';
import { tokenBarFigure, seriesColours } from '../charts.mjs';
import { headTableFigure, stackFigures } from '../figures.mjs';
import { headName, tokenPhrase, readingDefinition } from '../format.mjs';
import { capitalise, statLine, note, keptTokens, renormalised, renormalisedNote } from './common.mjs';
import { specialControl } from './controls.mjs';

/** Colour strength = concentration, 1 − normalised entropy: darker means more weight on fewer tokens, as in every view. */
function concentration(entropy, n) {
  return n > 1 ? 1 - Math.max(0, entropy) / Math.log(n) : 1;
}

/** {entropy (nats), effective = e^entropy, normalized = entropy / ln n} of a row of n weights summing to 1. */
export function entropyOf(row) {
  let entropy = 0;
  for (const p of row) if (p > 0) entropy -= p * Math.log(p);
  const n = row.length;
  return { entropy, effective: Math.exp(entropy), normalized: n > 1 ? entropy / Math.log(n) : 0 };
}

/** The exact readings behind each cell of a head table (its text is rounded). */
function describeCells(table, name, readings) {
  table.dataset.table = name;
  for (const cell of table.querySelectorAll('.table-cell')) {
    Object.assign(cell.dataset, readings(Number(cell.dataset.layer) - 1, Number(cell.dataset.head) - 1));
  }
}

/**
 * The rows the view reads: `rows` (run positions) and `columns` (run positions) with
 * statsOf(l, h, i) for row i; the engine's statistics when nothing is hidden, else the
 * renormalised row's over the words.
 */
function readingsOf(session, tokens, hide) {
  const n = tokens.length;
  const words = keptTokens(tokens, true);
  const columns = hide ? words : tokens.map((_, i) => i);
  if (!hide) return { columns, words, statsOf: (l, h, i) => session.rowStats(l, h, i) };
  const cache = new Map();
  const statsOf = (l, h, i) => {
    const key = (l * 4096 + h) * n + i;
    if (!cache.has(key)) cache.set(key, entropyOf(renormalised(session.row(l, h, i), columns)));
    return cache.get(key);
  };
  return { columns, words, statsOf };
}

export const entropyView = {
  id: 'entropy',
  layersShown: (state, shape) => shape.layers,
  labelKey: 'view.entropy',
  controls: [specialControl],
  render(ctx) {
    const { session, engine, run, state, width, theme, t } = ctx;
    const { layers, heads } = engine.shape;
    const { layer, head, token } = state;
    const words = keptTokens(run.tokens, true);
    // as in the Row view: hidden only when words are left and the chosen token is one of them
    const hide = state.hideSpecial && words.length > 0 && words.length < run.n && words.includes(token);
    const { columns, statsOf } = readingsOf(session, run.tokens, hide);
    const rows = hide ? words : columns;
    const shownN = columns.length;
    const maxEntropy = Math.log(shownN);
    const meanRows = words.length ? words : rows;  // the sentence's words (every row when it has none)
    const perRow = rows.map((i) => statsOf(layer, head, i));
    const forToken = [], meanEntropy = [], meanEffective = [];
    for (let l = 0; l < layers; l++) {
      for (let h = 0; h < heads; h++) {
        forToken.push(statsOf(l, h, token));
        let entropy = 0, effective = 0;
        for (const i of meanRows) {
          const s = statsOf(l, h, i);
          entropy += s.entropy;
          effective += s.effective;
        }
        meanEntropy.push(entropy / meanRows.length);
        meanEffective.push(effective / meanRows.length);
      }
    }
    const colours = seriesColours(theme);
    const ln = t.number(maxEntropy, 2);
    const table = (title, text, value, shade, extra) => headTableFigure({
      subtitle: [t('entropy.tableSubtitle', { head: headName(t, layer, head), shade: t(ctx.theme === 'dark' ? 'colour.shadeDark' : 'colour.shadeLight') }), extra].filter(Boolean),
      width, theme, layers, heads, selected: state, title, t, text, value, shade,
    });
    const at = (l, h) => l * heads + h;
    const tokenTable = table(t('entropy.tokenTable', { phrase: tokenPhrase(t, run.tokens[token], token), n: shownN }),
      (l, h) => t.number(forToken[at(l, h)].effective, 1), (l, h) => forToken[at(l, h)].effective.toFixed(1),
      (l, h) => concentration(forToken[at(l, h)].entropy, shownN));
    const meanTable = table(t('entropy.meanEntropyTable', { count: meanRows.length, n: shownN, ln }),
      (l, h) => t.number(meanEntropy[at(l, h)], 2), (l, h) => meanEntropy[at(l, h)].toFixed(2),
      (l, h) => concentration(meanEntropy[at(l, h)], shownN), t('entropy.meanEntropyMax', { n: shownN, ln }));
    describeCells(tokenTable, 'token', (l, h) => {
      const s = forToken[at(l, h)];
      return { effective: String(s.effective), entropy: String(s.entropy), normalized: String(s.normalized) };
    });
    describeCells(meanTable, 'mean', (l, h) => ({
      entropy: String(meanEntropy[at(l, h)]), effective: String(meanEffective[at(l, h)]), max: String(maxEntropy),
      atMax: String(meanEntropy[at(l, h)] >= maxEntropy - 5e-3),
    }));
    meanTable.dataset.rows = meanRows.join(',');
    meanTable.dataset.max = String(maxEntropy);
    const bars = tokenBarFigure({
      width, theme, tokens: rows.map((i) => run.tokens[i]), selected: rows.indexOf(token), t,
      indexText: hide ? (i) => String(rows[i]) : undefined,
      title: t('entropy.barsTitle', { head: capitalise(headName(t, layer, head)) }),
      subtitle: t(hide ? 'entropy.barsSubtitleHidden' : 'entropy.barsSubtitle', { n: shownN }),
      columns: [{
        heading: t('entropy.heading'), colour: colours.head, className: 'entropy-row',
        values: perRow.map((s) => s.effective), scaleMax: shownN,
        format: (v, i) => `${t.number(v, 1)} (${t.number(perRow[i ?? 0].entropy, 2)})`,
        stats: [t('entropy.uniform', { count: shownN, ln })],
        data: { layer: String(layer + 1), head: String(head + 1), kind: hide ? 'entropy-renormalised' : 'entropy', max: String(maxEntropy) },
      }],
    });
    bars.querySelectorAll('.entropy-row rect.bar').forEach((bar, k) => {
      const s = perRow[k];
      Object.assign(bar.dataset, { row: String(rows[k]), entropy: String(s.entropy), normalized: String(s.normalized) });
    });
    const figure = stackFigures(width, [tokenTable, meanTable, bars], t('entropy.label'));
    figure.dataset.special = hide ? 'hidden' : 'shown';
    const stats = statsOf(layer, head, token);
    const notes = [
      html('p', { class: 'readout' }, [
        statLine(t('entropy.readoutEntropy', { head: headName(t, layer, head), token }), t('entropy.nats', { entropy: t.number(stats.entropy, 3) }), 'entropy'),
        statLine(t('entropy.readoutMax', { n: shownN }), t('entropy.nats', { entropy: t.number(maxEntropy, 3) }), 'max-entropy'),
        statLine(t('row.readoutEffective'), t('row.readoutEffectiveValue', { effective: t.number(stats.effective, 2), n: shownN }), 'effective'),
        statLine(t('entropy.readoutNormalised'), t.number(stats.normalized, 3), 'normalized'),
      ]),
      note(t('entropy.definition'), 'definition entropy-definition'),
      note(readingDefinition(t), 'definition'),
      hide ? note(renormalisedNote(t), 'warning renormalised') : null,
    ];
    return { figure, notes };
  },
};
