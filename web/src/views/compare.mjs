// Compare: the chosen token's row in two sentences, tokens aligned word by word.

import { tokenBarFigure, niceMax, seriesColours } from '../charts.mjs';
import { messageFigure } from '../figures.mjs';
import { changeOneWord, headName, tokenPhrase } from '../format.mjs';
import { capitalise, rowDataset, note } from './common.mjs';
import { scaleControl } from './controls.mjs';
import { html } from '../dom.mjs';
import { cleanSentence, MAX_SENTENCE_CHARS } from '../view-state.mjs';

/** Sentence B's text: the one typed, else sentence A with one word changed. */
const sentenceB = (state) => state.compareSentence ?? changeOneWord(state.sentence);

/** Sentence B (null: sentence A with one word changed) and its box. */
const sentenceBControl = {
  name: 'compare',
  state: { compareSentence: null },
  params: [{
    name: 'compare',
    read: (text) => ({ set: { compareSentence: cleanSentence(text) } }),
    write: (state) => state.compareSentence,
  }],
  build(ui) {
    const input = html('textarea', { id: ui.id('compare'), rows: 2, spellcheck: 'false', maxlength: MAX_SENTENCE_CHARS, class: 'compare-input' });
    input.addEventListener('input', (event) => ui.type({ compareSentence: cleanSentence(input.value) }, event));
    const element = html('div', { class: 'view-control' }, [
      html('div', { class: 'compare-box' }, [
        html('label', { class: 'field-label', for: ui.id('compare') }, [ui.t('control.sentenceB'), ' ', html('span', { class: 'field-help', text: ui.t('control.sentenceBHelp') })]),
        input,
      ]),
      html('button', { type: 'button', class: 'small-button', text: ui.t('control.resetB'), onclick: () => ui.runNow({ compareSentence: null }) }),
    ]);
    // The box shows the sentence B that is drawn, unless the reader is typing in it.
    const sync = (state) => {
      const text = sentenceB(state);
      if (input.value !== text && input.getRootNode().activeElement !== input) input.value = text;
    };
    return { element, sync };
  },
};

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

function columnFor(t, values, stats, which, colour, token, n, scaleMax, layer, head) {
  return {
    heading: t(which === 'a' ? 'compare.sentenceA' : 'compare.sentenceB'), colour, values, uniform: 1 / n, scaleMax, emphasiseStats: true,
    stats: [t('row.statSum', { sum: t.number(stats.sum, 3) }), t('stat.ratio', { ratio: t.number(stats.ratio, 2) })], className: 'attention-row compare-row',
    data: { ...rowDataset(layer, head, token, stats, n), kind: which === 'a' ? 'compare-a' : 'compare-b' },
  };
}

export const compareView = {
  id: 'compare',
  labelKey: 'view.compare',
  controls: [sentenceBControl, scaleControl],
  compareText: sentenceB,
  render(ctx) {
    const { session, run, state, width, theme, compare, t } = ctx;
    const { layer, head, token } = state;
    const colours = seriesColours(theme);
    if (!compare?.run) {
      return { figure: messageFigure({ width, title: t('compare.empty'), lines: [] }), notes: [] };
    }
    const other = compare.run;
    const { partner, kind, onlyB } = alignTokens(run.tokens, other.tokens);
    const phrase = tokenPhrase(t, run.tokens[token], token);
    const title = t('compare.title', { head: capitalise(headName(t, layer, head)), phrase });
    const otherToken = partner[token];
    if (otherToken < 0) {
      return {
        figure: messageFigure({ width, title, lines: [t('compare.noPartner', { phrase })] }),
        notes: [],
      };
    }
    const a = session.row(layer, head, token);
    const aStats = session.rowStats(layer, head, token);
    const bRow = compare.session.row(layer, head, otherToken);
    const bStats = compare.session.rowStats(layer, head, otherToken);
    const b = partner.map((j) => (j < 0 ? 0 : bRow[j]));
    const difference = partner.map((j, i) => (j < 0 ? NaN : bRow[j] - a[i]));
    const labels = run.tokens.map((x, i) => (kind[i] === 'changed' ? `${x} \u2192 ${other.tokens[partner[i]]}` : kind[i] === 'only-a' ? t('compare.notInB', { token: x }) : x));
    const scaleMax = state.scale === 'fixed' ? 1 : niceMax(Math.max(aStats.max, bStats.max));
    let biggest = { index: -1, value: 0 };
    difference.forEach((d, i) => { if (Math.abs(d) > biggest.value) biggest = { index: i, value: Math.abs(d) }; });
    const significant = biggest.value >= NO_DIFFERENCE_BELOW;
    const figure = tokenBarFigure({
      width, theme, tokens: run.tokens, labels, selected: token, title, t,
      subtitle: t('compare.subtitle', { token, other: otherToken, scale: DIFFERENCE_SCALE, below: t.number(NO_DIFFERENCE_BELOW, 3) }),
      columns: [
        columnFor(t, a, aStats, 'a', colours.head, token, run.n, scaleMax, layer, head),
        { ...columnFor(t, b, bStats, 'b', colours.second, otherToken, other.n, scaleMax, layer, head), uniform: 1 / other.n },
        {
          heading: t(width < 400 ? 'compare.headingDifferenceShort' : 'compare.headingDifference'), kind: 'signed', values: difference, className: 'difference-row',
          scaleMax: DIFFERENCE_SCALE, threshold: NO_DIFFERENCE_BELOW,
          format: (v) => (v >= 0 ? '+' : '') + t.number(v, 3),
          stats: significant
            ? [t('compare.statLargest', { value: t.number(biggest.value, 3) }), t('compare.statAt', { token: t.quote(labels[biggest.index]) })]
            : [t('compare.statNone'), t('compare.statAllBelow', { below: t.number(NO_DIFFERENCE_BELOW, 3) })],
          data: { kind: 'difference', layer: String(layer + 1), head: String(head + 1), token: String(token), maxAbs: String(biggest.value), significant: String(significant) },
        },
      ],
    });
    const changedCount = kind.filter((k) => k !== 'same').length + onlyB.length;
    const onlyBText = onlyB.length
      ? t('compare.onlyB', { tokens: onlyB.map((j) => `${t.quote(other.tokens[j])} (${t.number(bRow[j], 3)})`).join(', ') }) : '';
    return {
      figure,
      notes: [note((changedCount ? t('compare.differ', { count: changedCount }) : t('compare.same')) +
        (significant ? t('compare.largest', { value: t.number(biggest.value, 3), token: t.quote(labels[biggest.index]) }) : t('compare.noChange', { below: t.number(NO_DIFFERENCE_BELOW, 3) })) +
        onlyBText, 'reading')],
    };
  },
};
