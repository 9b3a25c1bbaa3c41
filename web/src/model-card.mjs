// The model card shown under the explorer: which checkpoint runs, what it was trained on,
// how well it does on held-out text and what it cannot do, read from the weights file.
// Without a card the page says so, and states only what the engine itself reports (its shape).

import { html } from './dom.mjs';

function listOf(value) {
  if (Array.isArray(value)) return value.map(String);
  return value === undefined || value === null || value === '' ? [] : [String(value)];
}

function shapeLine(t, { layers, heads, hidden, vocab, maxPositions }) {
  return t('card.shape', { layers, heads, hidden, vocab, maxPositions });
}

/** The panel's elements for this engine, in the language of `t`. */
export function modelCardPanel(engine, t) {
  const card = engine.modelCard();
  const shape = shapeLine(t, engine.shape);
  if (!card) {
    return html('details', { class: 'model-card', dataset: { card: 'none' } }, [
      html('summary', { text: t('card.noneSummary') }),
      html('p', { text: t('card.noneText', { shape }) }),
    ]);
  }
  const accuracy = Number(card.heldout_mlm_accuracy);
  const loss = Number(card.heldout_mlm_loss);
  const accuracyText = Number.isFinite(accuracy)
    ? t('card.accuracyValue', { accuracy: t.percent(accuracy) }) + (Number.isFinite(loss) ? t('card.loss', { loss: t.number(loss, 2) }) : '')
    : t('card.notRecorded');
  const rows = [
    [t('card.checkpoint'), listOf(card.source).join(', ') || null],
    [t('card.trainedOn'), listOf(card.trained_on).join('; ') || null],
    [t('card.accuracy'), accuracyText],
    [t('card.shapeLabel'), shape],
  ].filter(([, value]) => value);
  const limits = listOf(card.limits);
  const name = String(card.name || t('card.unnamed'));
  return html('details', { class: 'model-card', dataset: { card: 'present' } }, [
    html('summary', { text: t('card.summary', { name }) + (Number.isFinite(accuracy) ? t('card.summaryAccuracy', { accuracy: t.percent(accuracy) }) : '') }),
    card.description ? html('p', { text: String(card.description) }) : null,
    html('dl', { class: 'card-facts' }, rows.map(([label, value]) => [html('dt', { text: label }), html('dd', { text: value })])),
    limits.length ? html('p', { class: 'card-limits-title', text: t('card.limits') }) : null,
    limits.length ? html('ul', { class: 'card-limits' }, limits.map((text) => html('li', { text }))) : null,
  ]);
}
