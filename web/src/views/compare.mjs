// Compare: the chosen token's row in two sentences, tokens aligned word by word.

import { tokenBarFigure, niceMax, seriesColours } from '../charts.mjs';
import { messageFigure } from '../figures.mjs';
import { fixed, headName } from '../format.mjs';
import { capitalise, rowDataset, note } from './common.mjs';

/** Differences smaller than the engine's agreement with the float64 reference (1e-3) are not differences. */
export const NO_DIFFERENCE_BELOW = 1e-3;
/** The difference axis is fixed: a whole row's weight either way. */
const DIFFERENCE_SCALE = 1;

/**
 * Aligns two token lists (a longest common subsequence of equal tokens; the unmatched
 * tokens between two matches are paired in order as substitutions). Returns partner[i]
 * (the B index of A's token i, or -1) and kind[i] ('same', 'changed' or 'only-a'), and
 * onlyB (B indices with no partner).
 */
export function alignTokens(a, b) {
  const n = a.length, m = b.length;
  const lcs = Array.from({ length: n + 1 }, () => new Uint16Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  const partner = new Array(n).fill(-1), kind = new Array(n).fill('only-a');
  const used = new Array(m).fill(false);
  let i = 0, j = 0, gapA = [], gapB = [];
  const closeGap = () => {
    for (let k = 0; k < Math.min(gapA.length, gapB.length); k++) {
      partner[gapA[k]] = gapB[k];
      kind[gapA[k]] = 'changed';
      used[gapB[k]] = true;
    }
    gapA = [];
    gapB = [];
  };
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      closeGap();
      partner[i] = j;
      kind[i] = 'same';
      used[j] = true;
      i++, j++;
    } else if (j >= m || (i < n && lcs[i + 1][j] >= lcs[i][j + 1])) {
      gapA.push(i++);
    } else {
      gapB.push(j++);
    }
  }
  closeGap();
  const onlyB = [];
  used.forEach((u, k) => { if (!u) onlyB.push(k); });
  return { partner, kind, onlyB };
}

function columnFor(values, stats, name, colour, token, n, scaleMax, layer, head) {
  return {
    heading: name, colour, values, uniform: 1 / n, scaleMax, emphasiseStats: true,
    stats: [`\u03a3 = ${stats.sum.toFixed(3)}`, `ratio ${stats.ratio.toFixed(2)}`], className: 'attention-row compare-row',
    data: { ...rowDataset(layer, head, token, stats, n), kind: name === 'sentence A' ? 'compare-a' : 'compare-b' },
  };
}

export const compareView = {
  id: 'compare',
  label: 'Compare',
  controls: ['compare', 'scale'],
  needsCompare: true,
  render(ctx) {
    const { session, run, state, width, theme, compare } = ctx;
    const { layer, head, token } = state;
    const colours = seriesColours(theme);
    if (!compare?.run) {
      return { figure: messageFigure({ width, title: 'Compare: type a second sentence', lines: [] }), notes: [] };
    }
    const other = compare.run;
    const { partner, kind, onlyB } = alignTokens(run.tokens, other.tokens);
    const title = `${capitalise(headName(layer, head))} \u2014 the row of \u201c${run.tokens[token]}\u201d (token ${token}) in two sentences`;
    const otherToken = partner[token];
    if (otherToken < 0) {
      return {
        figure: messageFigure({ width, title, lines: [`\u201c${run.tokens[token]}\u201d (token ${token}) has no counterpart in sentence B, so there is no row to compare. Pick a token that both sentences have.`] }),
        notes: [],
      };
    }
    const a = session.row(layer, head, token);
    const aStats = session.rowStats(layer, head, token);
    const bRow = compare.session.row(layer, head, otherToken);
    const bStats = compare.session.rowStats(layer, head, otherToken);
    const b = partner.map((j) => (j < 0 ? 0 : bRow[j]));
    const difference = partner.map((j, i) => (j < 0 ? NaN : bRow[j] - a[i]));
    const labels = run.tokens.map((t, i) => (kind[i] === 'changed' ? `${t} \u2192 ${other.tokens[partner[i]]}` : kind[i] === 'only-a' ? `${t} (not in B)` : t));
    const scaleMax = state.scale === 'fixed' ? 1 : niceMax(Math.max(aStats.max, bStats.max));
    let biggest = { index: -1, value: 0 };
    difference.forEach((d, i) => { if (Math.abs(d) > biggest.value) biggest = { index: i, value: Math.abs(d) }; });
    const significant = biggest.value >= NO_DIFFERENCE_BELOW;
    const figure = tokenBarFigure({
      width, theme, tokens: run.tokens, labels, selected: token, title,
      subtitle: `A: token ${token} of sentence A; B: the same word, token ${otherToken} of sentence B. Tokens are aligned word by word ` +
        `(changed words are paired, a word only in one sentence has no partner). Difference axis fixed at \u00b1${DIFFERENCE_SCALE}; ` +
        `|B \u2212 A| below ${NO_DIFFERENCE_BELOW} is shown as \u201c=\u201d (no difference).`,
      columns: [
        columnFor(a, aStats, 'sentence A', colours.head, token, run.n, scaleMax, layer, head),
        { ...columnFor(b, bStats, 'sentence B', colours.second, otherToken, other.n, scaleMax, layer, head), uniform: 1 / other.n },
        {
          heading: 'difference B \u2212 A', kind: 'signed', values: difference, className: 'difference-row',
          scaleMax: DIFFERENCE_SCALE, threshold: NO_DIFFERENCE_BELOW,
          format: (v) => (v >= 0 ? '+' : '') + fixed(v, 3),
          stats: [significant ? `largest |\u0394| ${fixed(biggest.value, 3)}` : 'no difference', significant ? `at \u201c${labels[biggest.index]}\u201d` : `(all below ${NO_DIFFERENCE_BELOW})`],
          data: { kind: 'difference', layer: String(layer + 1), head: String(head + 1), token: String(token), maxAbs: String(biggest.value), significant: String(significant) },
        },
      ],
    });
    const changedCount = kind.filter((k) => k !== 'same').length + onlyB.length;
    const onlyBText = onlyB.length
      ? ` Only in B: ${onlyB.map((j) => `\u201c${other.tokens[j]}\u201d (${fixed(bRow[j], 3)})`).join(', ')}.` : '';
    return {
      figure,
      notes: [note((changedCount
        ? `${changedCount} token${changedCount > 1 ? 's differ' : ' differs'} between the sentences. `
        : 'The two sentences give the same tokens. ') +
        (significant ? `The largest change in this row is ${fixed(biggest.value, 3)} at \u201c${labels[biggest.index]}\u201d.` : `No weight in this row changes by ${NO_DIFFERENCE_BELOW} or more.`) +
        onlyBText, 'reading')],
    };
  },
};
