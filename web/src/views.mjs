// One function per view. Each takes the explorer's context — the engine session, the run,
// the state, the figure width and theme — and returns {figure, notes}: an SVG that names
// the attention it shows, and HTML lines that give the same numbers as text.
// Numbers come from the engine; the page only adds them up, scales and subtracts them.

import { html } from './dom.mjs';
import { tokenBarFigure, niceMax, seriesColours } from './charts.mjs';
import {
  headGridFigure, matrixFigure, stripFigure, headTableFigure, messageFigure, stackFigures,
  isPositional, ROLE_BADGES,
} from './figures.mjs';
import {
  fixed, probability, percent, headName, tokenPhrase, ratioReading, meanAndDeviation, largest,
  total, effectiveTokens,
} from './format.mjs';

function capitalise(text) {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function rowDataset(layer, head, token, stats, n) {
  return {
    layer: String(layer + 1), head: String(head + 1), token: String(token),
    sum: String(stats.sum), ratio: String(stats.ratio), max: String(stats.max), n: String(n),
  };
}

function statLine(label, value, role) {
  return html('span', { class: 'stat' }, [
    html('span', { class: 'stat-label', text: label }),
    html('span', { class: 'stat-value', dataset: role ? { role } : undefined, text: value }),
  ]);
}

function note(text, className = 'note') {
  return html('p', { class: className, text });
}

/** Warns when the most confident head for this token (highest ratio) is positional. */
function positionalWarning(ctx) {
  const { session, engine, state } = ctx;
  const { layers, heads } = engine.shape;
  let best = null;
  for (let l = 0; l < layers; l++) {
    for (let h = 0; h < heads; h++) {
      const ratio = session.rowStats(l, h, state.token).ratio;
      if (!best || ratio > best.ratio) best = { l, h, ratio };
    }
  }
  const roles = session.headRoles(best.l, best.h).roles;
  if (!isPositional(roles)) return null;
  const which = roles.includes('previous') ? 'the previous token' : 'the next token';
  return html('p', { class: 'warning', role: 'note' }, [
    html('strong', { text: 'Careful: ' }),
    `the most confident head for this token (${headName(best.l, best.h)}, ratio ${best.ratio.toFixed(2)}) is a positional head — ` +
    `on almost every row it simply looks at ${which}. High confidence here says where a word is, not what it means.`,
  ]);
}

export function rowView(ctx) {
  const { session, run, state, width, theme } = ctx;
  const { layer, head, token } = state;
  const n = run.n;
  const values = session.row(layer, head, token);
  const stats = session.rowStats(layer, head, token);
  const topToken = run.tokens[stats.argmax];
  const reading = ratioReading(stats.ratio, n, topToken);
  const figure = tokenBarFigure({
    width, theme, tokens: run.tokens, selected: token,
    title: `${capitalise(headName(layer, head))} \u2014 attention from ${tokenPhrase(run.tokens[token], token)}`,
    subtitle: [
      `Each bar is the share of ${tokenPhrase(run.tokens[token], token)}'s attention that goes to that token. ` +
      `Ratio to uniform = max \u00d7 n = ${fixed(stats.max)} \u00d7 ${n} = ${stats.ratio.toFixed(2)}.`,
      reading,
    ],
    columns: [{
      heading: 'attention weight', className: 'attention-row', colour: seriesColours(theme).head,
      stats: [`\u03a3 = ${stats.sum.toFixed(3)}`, `ratio to uniform ${stats.ratio.toFixed(2)}`],
      emphasiseStats: true, values, uniform: 1 / n, data: { ...rowDataset(layer, head, token, stats, n), kind: 'head' },
      ariaLabel: `${headName(layer, head)}, row of token ${token}: sum ${stats.sum.toFixed(3)}, ratio to uniform ${stats.ratio.toFixed(2)}`,
    }],
  });
  const notes = [
    html('p', { class: 'readout' }, [
      statLine('\u03a3 (sum of the row)', stats.sum.toFixed(3), 'row-sum'),
      statLine('ratio to uniform (max \u00d7 n)', `${stats.ratio.toFixed(2)} = ${fixed(stats.max)} \u00d7 ${n}`, 'row-ratio'),
      statLine('uniform share 1/n', probability(1 / n)),
      statLine('effective tokens', `${stats.effective.toFixed(1)} of ${n}`),
    ]),
    note(reading, 'reading'),
    positionalWarning(ctx),
  ];
  return { figure, notes };
}

export function gridView(ctx) {
  const { session, engine, run, state, width, theme } = ctx;
  const { layers, heads } = engine.shape;
  const cells = [];
  for (let l = 0; l < layers; l++) {
    for (let h = 0; h < heads; h++) {
      cells.push({
        layer: l, head: h, stats: session.rowStats(l, h, state.token),
        roles: session.headRoles(l, h).roles, values: session.row(l, h, state.token),
      });
    }
  }
  const best = cells.reduce((a, b) => (b.stats.ratio > a.stats.ratio ? b : a));
  const figure = headGridFigure({
    width, theme, cells, layers, heads, selected: state, colour: seriesColours(theme).head,
    token: state.token, n: run.n,
    title: `All ${layers * heads} heads \u2014 attention from ${tokenPhrase(run.tokens[state.token], state.token)}`,
    subtitle: `Big number: ratio to uniform (max \u00d7 n; 1.00 = uniform, ${run.n} = all on one token). ` +
      `Every row sums to 1.000. Badges: the head\u2019s role over the whole sentence. Highest ratio: ${headName(best.layer, best.head)} (${best.stats.ratio.toFixed(2)}).`,
  });
  const notes = [
    note('Click a head, or use the arrow keys, to choose it for the other views.', 'hint'),
    positionalWarning(ctx),
    html('dl', { class: 'role-legend' }, [
      html('dt', { text: ROLE_BADGES.previous + ' / ' + ROLE_BADGES.next }),
      html('dd', { text: 'the row\u2019s largest weight is on token i\u22121 (or i+1) on at least 90% of rows' }),
      html('dt', { text: `${ROLE_BADGES['cls-sink']} / ${ROLE_BADGES['sep-sink']} / ${ROLE_BADGES['punct-sink']}` }),
      html('dd', { text: 'at least half of the head\u2019s attention mass goes to [CLS], [SEP] or punctuation' }),
      html('dt', { text: ROLE_BADGES.broad }),
      html('dd', { text: 'normalised row entropy at least 0.9: close to uniform' }),
    ]),
  ];
  return { figure, notes };
}

function rolloutRow(session, lastLayer, token, n) {
  const all = session.rollout(lastLayer);
  return all.slice(token * n, token * n + n);
}

export function rolloutView(ctx) {
  const { session, engine, run, state, width, theme } = ctx;
  const { layer, head, token } = state;
  const n = run.n;
  const last = state.rolloutLayer;
  const headsAveraged = (last + 1) * engine.shape.heads;
  const values = session.row(layer, head, token);
  const stats = session.rowStats(layer, head, token);
  const rollout = rolloutRow(session, last, token, n);
  const rolloutMax = largest(rollout);
  const rolloutStats = { sum: total(rollout), max: rolloutMax.value, ratio: rolloutMax.value * n };
  const colours = seriesColours(theme);
  const scaleMax = niceMax(Math.max(stats.max, rolloutMax.value));
  const rolloutName = `rollout: average of ${headsAveraged} heads`;
  const figure = tokenBarFigure({
    width, theme, tokens: run.tokens, selected: token,
    title: `Rollout through layer ${last + 1} (${headsAveraged} heads) beside ${headName(layer, head)} \u2014 from ${tokenPhrase(run.tokens[token], token)}`,
    subtitle: `Rollout (Abnar & Zuidema 2020): for each layer take \u00bd\u00b7(mean of its ${engine.shape.heads} heads) + \u00bd\u00b7I, ` +
      `renormalise the rows, and multiply layers 1\u2013${last + 1} together. Same scale for both columns.`,
    columns: [
      {
        heading: headName(layer, head), colour: colours.head, values, uniform: 1 / n, scaleMax,
        stats: [`\u03a3 = ${stats.sum.toFixed(3)}`, `ratio ${stats.ratio.toFixed(2)}`], emphasiseStats: true,
        className: 'attention-row', data: { ...rowDataset(layer, head, token, stats, n), kind: 'head' },
      },
      {
        heading: rolloutName, colour: colours.rollout, values: rollout, uniform: 1 / n, scaleMax,
        stats: [`\u03a3 = ${rolloutStats.sum.toFixed(3)}`, `ratio ${rolloutStats.ratio.toFixed(2)}`], emphasiseStats: true,
        className: 'rollout-row',
        data: {
          kind: 'rollout', layer: String(last + 1), head: 'mean', token: String(token), heads: String(headsAveraged),
          sum: String(rolloutStats.sum), ratio: String(rolloutStats.ratio), max: String(rolloutStats.max), n: String(n),
        },
      },
    ],
  });
  const notes = [
    html('p', { class: 'readout' }, [
      statLine(`${headName(layer, head)}: \u03a3`, stats.sum.toFixed(3)),
      statLine('ratio', stats.ratio.toFixed(2)),
      statLine('rollout: \u03a3', rolloutStats.sum.toFixed(3), 'rollout-sum'),
      statLine('ratio', rolloutStats.ratio.toFixed(2), 'rollout-ratio'),
    ]),
    note(`Rollout mixes every head of layers 1\u2013${last + 1} and adds the residual path (\u00bd\u00b7I) at every layer, ` +
      `so it reads differently from any single head. Neither column is \u201cthe\u201d attention: each is one reading.`),
  ];
  return { figure, notes };
}

export function matrixView(ctx) {
  const { session, run, state, width, theme } = ctx;
  const { layer, head, token } = state;
  const rows = [];
  for (let i = 0; i < run.n; i++) rows.push(session.row(layer, head, i));
  const matrix = matrixFigure({
    width, theme, tokens: run.tokens, rows, selected: token,
    rowStats: (i) => session.rowStats(layer, head, i),
    title: `${capitalise(headName(layer, head))} \u2014 the full ${run.n} \u00d7 ${run.n} attention matrix`,
    subtitle: 'Row i: how token i spreads its attention over the columns; every row sums to 1. ' +
      'The outlined row is the chosen token. Hover or use the arrow keys for exact values.',
  });
  return { figure: matrix.root, notes: [], matrix, rows };
}

export function entropyView(ctx) {
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
  const shade = (list) => (l, h) => (list[l * heads + h] - 1) / Math.max(1, n - 1);
  const colours = seriesColours(theme);
  const table = (list, title) => headTableFigure({
    subtitle: `Outlined: ${headName(layer, head)}. Darker = broader (more effective tokens).`,
    width, theme, layers, heads, selected: state, title, text: (l, h) => list[l * heads + h].toFixed(1), shade: shade(list),
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
  const figure = stackFigures(width, [
    table(forToken, `Effective tokens per head for ${tokenPhrase(run.tokens[token], token)} (of ${n})`),
    table(meanOverRows, `Effective tokens per head, mean over all ${n} rows`),
    bars,
  ], 'Entropy and effective tokens');
  const stats = perRow[token];
  const notes = [
    html('p', { class: 'readout' }, [
      statLine(`${headName(layer, head)}, token ${token}: entropy`, `${stats.entropy.toFixed(3)} nats`),
      statLine('effective tokens', `${stats.effective.toFixed(2)} of ${n}`, 'effective'),
      statLine('normalised entropy', stats.normalized.toFixed(3)),
    ]),
  ];
  return { figure, notes };
}

export function contributionsView(ctx) {
  const { session, run, state, width, theme } = ctx;
  const { layer, head, token } = state;
  const n = run.n;
  const values = session.row(layer, head, token);
  const stats = session.rowStats(layer, head, token);
  const norms = session.contributions(layer, head, token);
  const normTotal = total(norms);
  const colours = seriesColours(theme);
  const byWeight = run.tokens[stats.argmax];
  const byNorm = run.tokens[largest(norms).index];
  const figure = tokenBarFigure({
    width, theme, tokens: run.tokens, selected: token,
    title: `${capitalise(headName(layer, head))} \u2014 attention weight vs contribution for ${tokenPhrase(run.tokens[token], token)}`,
    subtitle: 'Left: the weight \u03b1. Right: the length of what each token actually adds, \u2016\u03b1\u00b7f(x)\u2016 with f(x) the ' +
      'value vector after W_O (Kobayashi et al. 2020). A large weight on a token with a short vector adds little.',
    columns: [
      {
        heading: 'attention weight \u03b1', colour: colours.head, values, uniform: 1 / n,
        stats: [`\u03a3 = ${stats.sum.toFixed(3)}`, `ratio ${stats.ratio.toFixed(2)}`], emphasiseStats: true,
        className: 'attention-row', data: { ...rowDataset(layer, head, token, stats, n), kind: 'head' },
      },
      {
        heading: 'contribution \u2016\u03b1\u00b7f(x)\u2016', colour: colours.second, values: norms,
        format: (v) => (v >= 10 ? v.toFixed(1) : v.toFixed(3)),
        stats: [`\u03a3 = ${normTotal.toFixed(3)}`, `largest: \u201c${byNorm}\u201d`],
        className: 'contribution-row',
        data: { kind: 'contribution', layer: String(layer + 1), head: String(head + 1), token: String(token), total: String(normTotal) },
      },
    ],
  });
  const notes = [
    note(byWeight === byNorm
      ? `Here the largest weight and the largest contribution agree: \u201c${byWeight}\u201d.`
      : `The largest weight goes to \u201c${byWeight}\u201d, but the largest contribution comes from \u201c${byNorm}\u201d.`, 'reading'),
  ];
  return { figure, notes };
}

export function mlmView(ctx) {
  const { session, run, width, theme } = ctx;
  const masks = [];
  run.tokens.forEach((t, i) => { if (t === '[MASK]') masks.push(i); });
  if (!masks.length) {
    return {
      figure: messageFigure({
        width, title: '[MASK] what-if: no [MASK] in the sentence yet',
        lines: ['Type [MASK] in place of a word (for example \u201cThe cat [MASK] on the mat.\u201d) and the model\u2019s top-5 guesses appear here, with their probabilities.'],
      }),
      notes: [], masks,
    };
  }
  const colours = seriesColours(theme);
  const shown = masks.slice(0, 4);
  const parts = shown.map((position) => {
    const predictions = session.mlm(position, 5);
    return tokenBarFigure({
      width, theme, tokens: predictions.map((p) => p.token), selected: null, indexText: (i) => `#${i + 1}`,
      title: `[MASK] at token ${position}: top-5 predictions`,
      subtitle: position === shown[0] ? 'Not an attention view: the masked-language-model head on the final layer (all 16 heads feed it).' : [],
      columns: [{
        heading: 'probability', colour: colours.second, values: predictions.map((p) => p.probability), scaleMax: niceMax(predictions[0]?.probability || 1),
        format: (v) => percent(v), className: 'mlm-row',
        data: { kind: 'mlm', token: String(position), top: predictions[0]?.token ?? '' },
      }],
    });
  });
  const notes = masks.length > shown.length ? [note(`Showing the first ${shown.length} of ${masks.length} [MASK] tokens.`)] : [];
  return { figure: stackFigures(width, parts, '[MASK] predictions'), notes, masks };
}

export function compareView(ctx) {
  const { session, run, state, width, theme, compare } = ctx;
  const { layer, head } = state;
  const colours = seriesColours(theme);
  if (!compare?.run) {
    return { figure: messageFigure({ width, title: 'Compare: type a second sentence', lines: [] }), notes: [] };
  }
  const other = compare.run;
  const token = state.token;
  const a = session.row(layer, head, token);
  const aStats = session.rowStats(layer, head, token);
  const aligned = other.n === run.n;
  const otherToken = Math.min(token, other.n - 1);
  const b = compare.session.row(layer, head, otherToken);
  const bStats = compare.session.rowStats(layer, head, otherToken);
  const columnFor = (values, stats, name, colour, tok, n, scaleMax) => ({
    heading: name, colour, values, uniform: 1 / n, scaleMax, emphasiseStats: true,
    stats: [`\u03a3 = ${stats.sum.toFixed(3)}`, `ratio ${stats.ratio.toFixed(2)}`], className: 'attention-row compare-row',
    data: { ...rowDataset(layer, head, tok, stats, n), kind: name === 'sentence A' ? 'compare-a' : 'compare-b' },
  });
  const title = `${capitalise(headName(layer, head))} \u2014 the row of token ${token} in two sentences`;
  if (aligned) {
    const difference = b.map((v, i) => v - a[i]);
    const changed = run.tokens.map((t, i) => t !== other.tokens[i]);
    const labels = run.tokens.map((t, i) => (changed[i] ? `${t} \u2192 ${other.tokens[i]}` : t));
    const scaleMax = niceMax(Math.max(aStats.max, bStats.max));
    const biggest = largest(difference.map(Math.abs));
    const figure = tokenBarFigure({
      width, theme, tokens: run.tokens, labels, selected: token, title,
      subtitle: `A: \u201c${run.tokens[token]}\u201d in sentence A; B: \u201c${other.tokens[otherToken]}\u201d in sentence B. ` +
        'The token lists align one to one, so the difference B \u2212 A is shown per token.',
      columns: [
        columnFor(a, aStats, 'sentence A', colours.head, token, run.n, scaleMax),
        columnFor(b, bStats, 'sentence B', colours.second, otherToken, other.n, scaleMax),
        {
          heading: 'difference B \u2212 A', kind: 'signed', values: difference, className: 'difference-row',
          format: (v) => (v >= 0 ? '+' : '') + fixed(v, biggest.value < 0.01 ? 4 : 3), stats: [`largest |\u0394| ${fixed(biggest.value, 3)}`, `at \u201c${labels[biggest.index]}\u201d`],
          data: { kind: 'difference', layer: String(layer + 1), head: String(head + 1), token: String(token), maxAbs: String(biggest.value) },
        },
      ],
    });
    const changedCount = changed.filter(Boolean).length;
    return {
      figure,
      notes: [note(changedCount
        ? `${changedCount} token${changedCount > 1 ? 's differ' : ' differs'}; the largest change in this row is ${fixed(biggest.value, 3)} at \u201c${labels[biggest.index]}\u201d.`
        : 'The two sentences give the same tokens, so the rows are identical.', 'reading')],
      aligned,
    };
  }
  const scaleMax = niceMax(Math.max(aStats.max, bStats.max));
  const figure = stackFigures(width, [
    tokenBarFigure({
      width, theme, tokens: run.tokens, selected: token, title,
      subtitle: `The token lists do not align (${run.n} vs ${other.n} tokens), so no per-token difference is shown. Sentence A:`,
      columns: [columnFor(a, aStats, 'sentence A', colours.head, token, run.n, scaleMax)],
    }),
    tokenBarFigure({
      width, theme, tokens: other.tokens, selected: otherToken, title: 'Sentence B:',
      columns: [columnFor(b, bStats, 'sentence B', colours.second, otherToken, other.n, scaleMax)],
    }),
  ], title);
  return {
    figure, aligned,
    notes: [note(`The token lists don\u2019t align (${run.n} vs ${other.n} tokens): a word split into a different number of WordPiece pieces shifts every later token, so the rows are shown separately.`, 'warning')],
  };
}

export function layerView(ctx) {
  const { session, engine, run, state, width, theme } = ctx;
  const { layer, token } = state;
  const steps = session.walkthrough(layer, token);
  const heads = engine.shape.heads;
  const describe = (values) => {
    const { mean, deviation } = meanAndDeviation(values);
    return { mean, deviation, note: `mean ${fixed(mean, 3)} \u00b7 sd ${fixed(deviation, 3)}` };
  };
  const entries = [
    ['1. the four heads\u2019 outputs, concatenated', steps.concat, heads],
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
    subtitle: `Each strip is the ${engine.shape.hidden} numbers that stand for the token at that step; colour shows sign and size. ` +
      'LayerNorm standardises the sum (mean 0, standard deviation 1) and then applies its learned gain and bias, so step 4 stays near mean 0, sd 1.',
  });
  const last = describe(steps.normed);
  return {
    figure,
    notes: [note(`After LayerNorm: mean ${fixed(last.mean, 3)}, standard deviation ${fixed(last.deviation, 3)}.`, 'reading')],
  };
}

export function scalingView(ctx) {
  const { session, run, state, width, theme, whatIf } = ctx;
  const { layer, head, token } = state;
  const n = run.n;
  const stats = session.rowStats(layer, head, token);
  const model = session.rowScaled(layer, head, token, true);
  const unscaled = session.rowScaled(layer, head, token, false);
  const unscaledMax = largest(unscaled);
  const unscaledEffective = effectiveTokens(unscaled);
  const colours = seriesColours(theme);
  const columns = [{
    heading: 'the model: softmax(q\u00b7k / 8)', colour: colours.head, values: model, uniform: 1 / n,
    scaleMax: whatIf ? niceMax(Math.max(stats.max, unscaledMax.value)) : undefined, emphasiseStats: true,
    stats: [`\u03a3 = ${stats.sum.toFixed(3)} \u00b7 ratio ${stats.ratio.toFixed(2)}`, `effective tokens ${stats.effective.toFixed(1)}`],
    className: 'attention-row', data: { ...rowDataset(layer, head, token, stats, n), kind: 'head', effective: String(stats.effective) },
  }];
  if (whatIf) {
    columns.push({
      heading: 'WHAT-IF: softmax(q\u00b7k), no \u00f7\u221ad', colour: colours.whatif, values: unscaled, uniform: 1 / n,
      scaleMax: columns[0].scaleMax, emphasiseStats: true,
      stats: [`\u03a3 = ${total(unscaled).toFixed(3)} \u00b7 ratio ${(unscaledMax.value * n).toFixed(2)}`, `effective tokens ${unscaledEffective.toFixed(1)}`],
      className: 'whatif-row',
      data: {
        kind: 'what-if', whatif: 'true', layer: String(layer + 1), head: String(head + 1), token: String(token),
        sum: String(total(unscaled)), ratio: String(unscaledMax.value * n), effective: String(unscaledEffective),
      },
    });
  }
  const figure = tokenBarFigure({
    width, theme, tokens: run.tokens, selected: token, columns,
    title: `${capitalise(headName(layer, head))} \u2014 ${tokenPhrase(run.tokens[token], token)}: ` +
      (whatIf ? 'the model beside a what-if without \u00f7\u221ad' : 'the model\u2019s row (divides q\u00b7k by \u221a64 = 8)'),
    subtitle: whatIf
      ? 'WHAT-IF, not the model: the same q\u00b7k scores without the division by 8. Scores 8\u00d7 larger make the softmax saturate: the largest score takes almost everything.'
      : 'The scores q\u00b7k are divided by \u221ad = 8 before the softmax. Turn on the what-if to see the same row without that division.',
  });
  const notes = [
    html('p', { class: 'readout' }, [
      statLine('effective tokens, model (\u00f78)', `${stats.effective.toFixed(2)} of ${n}`, 'effective-model'),
      whatIf ? statLine('effective tokens, what-if (no \u00f78)', `${unscaledEffective.toFixed(2)} of ${n}`, 'effective-whatif') : null,
    ]),
  ];
  return { figure, notes };
}

export const VIEW_RENDERERS = {
  row: rowView, grid: gridView, rollout: rolloutView, matrix: matrixView, entropy: entropyView,
  contributions: contributionsView, mlm: mlmView, compare: compareView, layer: layerView, scaling: scalingView,
};
