// Row: one head's attention from the chosen token, a bar per token.

import { html } from '../dom.mjs';
import { tokenBarFigure, seriesColours } from '../charts.mjs';
import { headName, tokenPhrase, spreadReading, readingDefinition } from '../format.mjs';
import {
  capitalise, rowDataset, statLine, note, keptTokens, renormalised, renormalisedNote, positionalWarning,
} from './common.mjs';
import { scaleControl, specialControl } from './controls.mjs';

export const rowView = {
  id: 'row',
  labelKey: 'view.row',
  controls: [scaleControl, specialControl],
  render(ctx) {
    const { session, run, state, width, theme, t } = ctx;
    const { layer, head, token } = state;
    const n = run.n;
    const stats = session.rowStats(layer, head, token);
    const reading = spreadReading(t, stats, n, run.tokens);
    const kept = keptTokens(run.tokens, state.hideSpecial);
    const hiding = kept.length < n && kept.length > 0 && kept.includes(token);
    const values = hiding ? renormalised(session.row(layer, head, token), kept) : session.row(layer, head, token);
    const tokens = hiding ? kept.map((i) => run.tokens[i]) : run.tokens;
    const selected = hiding ? kept.indexOf(token) : token;
    const shownN = tokens.length;
    const fixedScale = state.scale === 'fixed';
    const phrase = tokenPhrase(t, run.tokens[token], token);
    const sum = t.number(stats.sum, 3), ratio = t.number(stats.ratio, 2);
    const figure = tokenBarFigure({
      width, theme, tokens, selected, indexText: hiding ? (i) => String(kept[i]) : undefined, t,
      title: t('row.title', { head: capitalise(headName(t, layer, head)), phrase }),
      subtitle: [
        t(hiding ? 'row.subtitleRenormalised' : 'row.subtitle', { phrase }) + ' ' + t(fixedScale ? 'row.scaleFixed' : 'row.scaleFitted'),
        reading.text,
      ],
      columns: [{
        heading: t(hiding ? 'row.headingRenormalised' : 'row.heading'), className: 'attention-row',
        colour: seriesColours(theme).head, scaleMax: fixedScale ? 1 : undefined,
        stats: hiding
          ? [t('row.statShownRenormalised', { sum: t.number(1, 3) }), t('row.statModel', { sum, ratio })]
          : [t('row.statSum', { sum }), t('row.statRatio', { ratio }), t('row.statLargest', { token: t.quote(run.tokens[stats.argmax]), value: t.number(stats.max, 3) })],
        emphasiseStats: true, values, uniform: 1 / shownN,
        data: { ...rowDataset(layer, head, token, stats, n), kind: hiding ? 'head-renormalised' : 'head', reading: reading.kind, scale: state.scale },
        ariaLabel: t('row.aria', { head: headName(t, layer, head), token, sum, ratio }),
      }],
    });
    const notes = [
      html('p', { class: 'readout' }, [
        statLine(t('row.readoutSum'), sum, 'row-sum'),
        statLine(t('row.readoutRatio'), t('row.readoutRatioValue', { ratio, max: t.number(stats.max, 3), n }), 'row-ratio'),
        statLine(t('row.readoutUniform'), t.probability(1 / n)),
        statLine(t('row.readoutEffective'), t('row.readoutEffectiveValue', { effective: t.number(stats.effective, 1), n }), 'row-effective'),
      ]),
      html('p', { class: 'reading', dataset: { reading: reading.kind }, text: reading.text }),
      note(t('reading.softmax'), 'why-sum'),
      note(readingDefinition(t), 'definition'),
      hiding ? note(renormalisedNote(t), 'warning renormalised') : null,
      positionalWarning(ctx),
    ];
    figure.dataset.keepTop = 'true';  // the title and the row's largest weight (in the heading) stay in view
    return { figure, notes };
  },
};
