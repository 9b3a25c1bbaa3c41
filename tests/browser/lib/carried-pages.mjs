// Pages that carry the explorer's assets themselves (web/notebook/: a notebook's HTML export, a
// one-file page), read the same way in Chromium (tests/browser/topics/notebook.mjs) and Firefox
// (the browser suite's testOneFile): what each explorer drew in its Row view, against the float64
// reference of the model it was given.
import { ATTENTION_BAR, maxDelta } from '../float64-reference.mjs';

/** Whether every explorer has drawn or shown an error (a function run in the page). */
export function allDrawnInPage() {
  const all = [...document.querySelectorAll('attention-explorer')];
  return all.length > 0 && all.every((e) => Number(e.dataset.drawn || 0) >= 1 || e.shadowRoot?.querySelector('.error:not([hidden])'));
}

/** What the page shows (a function run in the page): each explorer's Row view, the engines, the bundle's runs. */
export function carriedPageInPage() {
  const explorers = [...document.querySelectorAll('attention-explorer')].map((e) => {
    const root = e.shadowRoot;
    const column = root.querySelector('.bar-column.attention-row');
    return {
      error: root.querySelector('.error:not([hidden])')?.textContent ?? null,
      ids: e.run ? Array.from(e.run.ids) : [],
      tokens: e.run ? [...e.run.tokens] : [],
      layers: e.engine?.shape.layers,
      heads: e.engine?.shape.heads,
      column: column ? { ...column.dataset } : null,
      bars: column ? [...column.querySelectorAll('rect.bar')].map((r) => ({ token: Number(r.dataset.token), value: Number(r.dataset.value) })) : [],
      shownSum: root.querySelector('[data-role="row-sum"]')?.textContent.trim() ?? null,
      rowTab: root.querySelector('.tab[data-view="row"]')?.textContent.trim() ?? null,
    };
  });
  const bundleRuns = [...document.scripts].filter((s) => !s.src && s.textContent.startsWith('/* <attention-explorer>')).length;
  return { explorers, engines: globalThis.AttentionExplorerPage?.engineCount() ?? 0, bundleRuns };
}

/**
 * Checks one explorer's drawn row: no error, the layer, head and token asked for (1-based layer and
 * head, the token's index), its bars the float64 row `referenceRow(layer, head, token)` (0-based)
 * within ATTENTION_BAR, Σ = 1 (data-sum within 1e-5; shown as `shownSum`).
 */
export function checkDrawnRow(check, label, shown, { layer, head, token, shownSum = '1.000' }, referenceRow) {
  if (!check(`${label}: drawn, no error`, shown.error === null && shown.column !== null, shown.error ?? 'no Row view')) return;
  const at = { layer: Number(shown.column.layer), head: Number(shown.column.head), token: Number(shown.column.token) };
  check(`${label}: layer ${layer} · head ${head}, token ${token} "${shown.tokens[token]}"`,
    at.layer === layer && at.head === head && at.token === token, JSON.stringify(at));
  const expected = referenceRow(at.layer - 1, at.head - 1, at.token);
  const inOrder = shown.bars.length === expected.length && shown.bars.every((b, i) => b.token === i);
  const delta = inOrder ? maxDelta(shown.bars.map((b) => b.value), expected) : Infinity;
  check(`${label}: its ${expected.length} bars are the float64 row (max |Δ| ${delta.toExponential(1)}, bar ${ATTENTION_BAR})`, delta <= ATTENTION_BAR);
  check(`${label}: the row sums to 1 (data-sum ${shown.column.sum}, shown "${shown.shownSum}")`,
    Math.abs(Number(shown.column.sum) - 1) <= 1e-5 && shown.shownSum === shownSum);
}
