// Pieces every view uses: statistics lines, notes, data attributes and the renormalised
// rows of the "hide [CLS]/[SEP]" option.

import { html } from '../dom.mjs';
import { isBoundaryToken } from '../format.mjs';

export function capitalise(text) {
  return text.charAt(0).toLocaleUpperCase() + text.slice(1);
}

export function rowDataset(layer, head, token, stats, n) {
  return {
    layer: String(layer + 1), head: String(head + 1), token: String(token),
    sum: String(stats.sum), ratio: String(stats.ratio), max: String(stats.max), n: String(n),
  };
}

export function statLine(label, value, role) {
  return html('span', { class: 'stat' }, [
    html('span', { class: 'stat-label', text: label }),
    html('span', { class: 'stat-value', dataset: role ? { role } : undefined, text: value }),
  ]);
}

export function note(text, className = 'note') {
  return html('p', { class: className, text });
}

/** The tokens kept when [CLS]/[SEP] are hidden: their indices in the run. */
export function keptTokens(tokens, hideSpecial) {
  const kept = [];
  tokens.forEach((token, i) => {
    if (!hideSpecial || !isBoundaryToken(token)) kept.push(i);
  });
  return kept;
}

/** A row restricted to `kept` and divided by what is left of its sum (exBERT's option). */
export function renormalised(row, kept) {
  let sum = 0;
  for (const j of kept) sum += row[j];
  return Float32Array.from(kept, (j) => (sum > 0 ? row[j] / sum : 0));
}

export const renormalisedNote = (t) => t('note.renormalised');
