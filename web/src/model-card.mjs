// The model card shown under the explorer: which checkpoint runs, what it was trained on,
// how well it does on held-out text and what it cannot do, read from the weights file.
// Without a card the page says so, and states only what the engine itself reports (its shape).

import { html } from './dom.mjs';
import { percent } from './format.mjs';

function listOf(value) {
  if (Array.isArray(value)) return value.map(String);
  return value === undefined || value === null || value === '' ? [] : [String(value)];
}

function shapeLine({ layers, heads, hidden, vocab, maxPositions }) {
  return `${layers} layers \u00d7 ${heads} heads, hidden size ${hidden}, ${vocab} WordPiece tokens, at most ${maxPositions} tokens per input.`;
}

/** The panel's elements for this engine. */
export function modelCardPanel(engine) {
  const card = engine.modelCard();
  const shape = shapeLine(engine.shape);
  if (!card) {
    return html('details', { class: 'model-card', dataset: { card: 'none' } }, [
      html('summary', { text: 'About this model: no model card in this weights file' }),
      html('p', { text: `The weights file carries no model card, so this page cannot say which checkpoint it is, what it was trained on or how well it predicts masked words. What the engine reads from the file: ${shape}` }),
    ]);
  }
  const accuracy = Number(card.heldout_mlm_accuracy);
  const loss = Number(card.heldout_mlm_loss);
  const rows = [
    ['Checkpoint', listOf(card.source).join(', ') || null],
    ['Trained on', listOf(card.trained_on).join('; ') || null],
    ['Held-out masked-word accuracy', Number.isFinite(accuracy) ? `${percent(accuracy)} top-1` + (Number.isFinite(loss) ? ` (loss ${loss.toFixed(2)})` : '') : 'not recorded'],
    ['Shape', shape],
  ].filter(([, value]) => value);
  const limits = listOf(card.limits);
  const name = String(card.name || 'unnamed model');
  return html('details', { class: 'model-card', dataset: { card: 'present' } }, [
    html('summary', { text: `About this model: ${name}` + (Number.isFinite(accuracy) ? ` \u00b7 held-out masked-word accuracy ${percent(accuracy)}` : '') }),
    card.description ? html('p', { text: String(card.description) }) : null,
    html('dl', { class: 'card-facts' }, rows.map(([label, value]) => [html('dt', { text: label }), html('dd', { text: value })])),
    limits.length ? html('p', { class: 'card-limits-title', text: 'What it cannot do:' }) : null,
    limits.length ? html('ul', { class: 'card-limits' }, limits.map((text) => html('li', { text }))) : null,
  ]);
}
