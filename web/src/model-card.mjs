// The model card shown under the explorer: which checkpoint runs, what it was trained on, how
// well it does on held-out text, the precision of its matrices and what its heads can and cannot
// show. The weights file stores these as facts (c/spec.mjs CARD_KEYS); every sentence here comes
// from the catalogue in the reader's language. A file written before carries English sentences
// (`trained_on`, `precision`, `limits`): they are shown as they are. Without a card the page says
// so, and states only what the engine itself reports (its shape).

import { html } from './dom.mjs';
import { POSITIONAL_SHARE, SINK_MASS, LOW_MLM_ACCURACY } from '../../c/spec.mjs';

function listOf(value) {
  if (Array.isArray(value)) return value.map(String);
  return value === undefined || value === null || value === '' ? [] : [String(value)];
}

const finite = (value) => (Number.isFinite(value) ? value : null);

/** 13,017,689 / 13 017 689: a count with the language's digit grouping. */
const grouped = (t, value) => new Intl.NumberFormat(t.lang, { maximumFractionDigits: 0 }).format(value);

function shapeLine(t, { layers, heads, hidden, vocab, maxPositions }) {
  return t('card.shape', { layers, heads, hidden, vocab: grouped(t, vocab), maxPositions });
}

/** The measured head roles ({ next, previous, cls, sep }: one value per head) or null. */
export function cardRoles(card, { layers, heads }) {
  const lists = { next: card.head_next, previous: card.head_previous, cls: card.head_cls, sep: card.head_sep };
  const count = layers * heads;
  const whole = Object.values(lists).every((list) => Array.isArray(list) && list.length === count && list.every(Number.isFinite));
  return whole ? lists : null;
}

/** "1.4, 2.1": the heads (layer.head, from 1) whose value reaches `atLeast`. */
function headsReaching(list, heads, atLeast) {
  return list.flatMap((value, i) => (value >= atLeast ? [`${Math.floor(i / heads) + 1}.${(i % heads) + 1}`] : []));
}

/** What the heads can and cannot show, from the measured roles, as catalogue sentences. */
function roleSentences(t, roles, heads) {
  if (!roles) return [t('card.rolesNotMeasured')];
  const share = t.percent(POSITIONAL_SHARE);
  const next = headsReaching(roles.next, heads, POSITIONAL_SHARE);
  const previous = headsReaching(roles.previous, heads, POSITIONAL_SHARE);
  const sinks = headsReaching(roles.cls.map((cls, i) => cls + roles.sep[i]), heads, SINK_MASS);
  const sentences = [];
  if (next.length === 0 && previous.length === 0) sentences.push(t('card.noPositional', { share }));
  if (next.length) sentences.push(t('card.positionalNext', { count: next.length, heads: next.join(', '), share }));
  if (previous.length) sentences.push(t('card.positionalPrevious', { count: previous.length, heads: previous.join(', '), share }));
  if (sinks.length) sentences.push(t('card.sinks', { count: sinks.length, heads: sinks.join(', '), share: t.percent(SINK_MASS) }));
  return sentences;
}

/** The card's "what it can and cannot show" sentences, in the language of `t`. */
export function cardLimits(card, t, engine) {
  if (card.limits !== undefined) return listOf(card.limits);  // a file written before: its own sentences
  const accuracy = finite(card.heldout_mlm_accuracy);
  const hasMlm = typeof card.masked_word_head === 'boolean' ? card.masked_word_head : engine.hasMlm();
  const limits = [];
  if (!hasMlm) limits.push(t('card.noMaskedWordHead'));
  else if (accuracy !== null && accuracy < LOW_MLM_ACCURACY) limits.push(t('card.frequentGuesses', { accuracy: t.percent(accuracy) }));
  limits.push(...roleSentences(t, cardRoles(card, engine.shape), engine.shape.heads));
  limits.push(t('card.whereNotWhy'));
  return limits;
}

// "English" / "anglais" for "en"; the tag itself when the browser cannot name it.
function languageName(tag, lang) {
  try {
    return new Intl.DisplayNames([lang], { type: 'language' }).of(tag) ?? tag;
  } catch {
    return tag;
  }
}

function trainedOn(card, t) {
  const tokens = finite(card.training_tokens);
  if (tokens === null) return listOf(card.trained_on).join('; ') || null;
  const language = typeof card.training_language === 'string' ? card.training_language : '';
  const name = languageName(language, t.lang);
  const count = grouped(t, tokens);
  return language ? t('card.trainingTokensIn', { tokens: count, language: name }) : t('card.trainingTokens', { tokens: count });
}

function precisionOf(card, t) {
  const int8 = finite(card.matrices_int8), int16 = finite(card.matrices_int16);
  if (int8 !== null && int16 !== null) return int16 === 0 ? t('card.precisionInt8', { count: int8 }) : t('card.precisionMixed', { int8: t.integer(int8), int16: t.integer(int16) });
  return typeof card.precision === 'string' ? card.precision : null;
}

function accuracyOf(card, t) {
  const accuracy = finite(card.heldout_mlm_accuracy), loss = finite(card.heldout_mlm_loss);
  if (accuracy === null) return t('card.notRecorded');
  return t('card.accuracyValue', { accuracy: t.percent(accuracy) }) + (loss !== null ? t('card.loss', { loss: t.number(loss, 2) }) : '');
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
  const accuracy = finite(card.heldout_mlm_accuracy);
  const rows = [
    [t('card.checkpoint'), listOf(card.source).join(', ') || null],
    [t('card.trainedOn'), trainedOn(card, t)],
    [t('card.accuracy'), accuracyOf(card, t)],
    [t('card.precision'), precisionOf(card, t)],
    [t('card.shapeLabel'), shape],
  ].filter(([, value]) => value);
  const limits = cardLimits(card, t, engine);
  const name = String(card.name || t('card.unnamed'));
  return html('details', { class: 'model-card', dataset: { card: 'present' } }, [
    html('summary', { text: t('card.summary', { name }) + (accuracy !== null ? t('card.summaryAccuracy', { accuracy: t.percent(accuracy) }) : '') }),
    card.description ? html('p', { text: String(card.description) }) : null,
    html('dl', { class: 'card-facts' }, rows.map(([label, value]) => [html('dt', { text: label }), html('dd', { text: value })])),
    html('p', { class: 'card-limits-title', text: t('card.limits') }),
    html('ul', { class: 'card-limits' }, limits.map((text) => html('li', { text }))),
  ]);
}
