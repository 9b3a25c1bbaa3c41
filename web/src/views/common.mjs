// Pieces the views share (a view imports this module, never another view): statistics lines,
// notes, data attributes, the renormalised rows of the "hide [CLS]/[SEP]" option, the
// positional-head warning, the head switches and the lines about the masked-word predictions.

import { html } from '../dom.mjs';
import { isPositional } from '../figures.mjs';
import { headName, isBoundaryToken } from '../format.mjs';

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

/** Warns when the most confident head for this token (highest ratio) is positional. */
export function positionalWarning(ctx) {
  const { session, engine, state, run, t } = ctx;
  const { heads } = engine.shape;
  const layers = session.layersDone();  // a view drawn early, while later layers compute: the ones done
  let best = null;
  for (let l = 0; l < layers; l++) {
    for (let h = 0; h < heads; h++) {
      const ratio = session.rowStats(l, h, state.token).ratio;
      if (!best || ratio > best.ratio) best = { l, h, ratio };
    }
  }
  const roles = session.headRoles(best.l, best.h).roles;
  if (!isPositional(roles)) return null;
  const which = t(roles.includes('previous') ? 'grid.previousToken' : 'grid.nextToken');
  return html('p', { class: 'warning', role: 'note' }, [
    html('strong', { text: t('grid.careful') }),
    t('grid.positional', { head: headName(t, best.l, best.h), ratio: t.number(best.ratio, 2), n: run.n, which }),
  ]);
}

/** Wires the on/off switches of heads drawn by headSwitch: click, Enter or Space; never the head's selection. */
export function wireHeadSwitches(figure, ui) {
  for (const button of figure.querySelectorAll('.head-switch')) {
    const toggle = (event) => {
      event.preventDefault();
      event.stopPropagation();
      const { layer, head } = button.dataset;
      ui.toggleHead(Number(layer) - 1, Number(head) - 1, `.head-switch[data-layer="${layer}"][data-head="${head}"]`);
    };
    button.addEventListener('click', toggle);
    button.addEventListener('keydown', (event) => { if (event.key === 'Enter' || event.key === ' ') toggle(event); });
  }
}

/** What the page says about the quality of the predictions, from the model card when there is one. */
export function predictionCaveat(t, card) {
  const accuracy = Number(card?.heldout_mlm_accuracy);
  const measured = Number.isFinite(accuracy) ? t('mlm.accuracy', { accuracy: t.percent(accuracy) }) : t('mlm.noAccuracy');
  return t('mlm.caveat', { measured });
}

/** While the rest of the weights arrive: how far they are. */
export function weightsWaitText(t, engine) {
  const total = engine.partCount(), arrived = total - engine.partsMissing();
  return t('mlm.waiting', { arrived, total, loaded: t.megabytes(engine.weightBytesLoaded()), size: t.megabytes(engine.fileSize) });
}
