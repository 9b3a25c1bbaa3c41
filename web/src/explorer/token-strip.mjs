// The token strip under the sentence: one chip per token (the chosen one selected), the count
// and truncation lines, and the [MASK] predictions. A part of <attention-explorer> (explorer.mjs).

import { html, replaceChildrenOf } from '../dom.mjs';
import { isSpecialToken, maskPositions } from '../format.mjs';
import { predictionCaveat, weightsWaitText } from '../views/common.mjs';

export class TokenStrip {
  /**
   * `host`, what the strip reads of the element:
   *   parts, t             the element's DOM parts and its language
   *   state                the sentence and the chosen token
   *   run, session, engine sentence A's run, its session, the engine (for the predictions)
   *   waitingLayer()       the layer whose weights the run under way waits for, or null
   */
  constructor(host) {
    this.host = host;
    this.key = null;  // the language, ids and offsets of the chips drawn
  }

  /** The strip, its count and truncation lines and the predictions, for sentence A's run. */
  update() {
    const { run, t, parts } = this.host;
    const key = `${t.lang}:${run.ids.join(',')}:${run.offsets.join(',')}`;
    if (key !== this.key) {
      this.key = key;
      this.updateChips(run);
    }
    this.markSelected();
    const { truncated, fullLength, n } = run;
    const pieces = run.tokens.filter((token) => token.startsWith('##')).length;
    parts.tokenCount.textContent = t('tokens.count', { count: n }) + (pieces ? t('tokens.pieces', { count: pieces }) : '');
    parts.truncation.hidden = !truncated;
    parts.truncation.textContent = truncated ? t('tokens.truncated', { n, full: fullLength }) : '';
    this.updateMaskPredictions();
  }

  /** The chips are made again at the next update (the language or the model changed). */
  forget() {
    this.key = null;
  }

  /** No run is on show (it failed): the strip, its count and the predictions are emptied. */
  clear() {
    const { parts } = this.host;
    this.key = null;
    parts.tokens.replaceChildren();
    parts.tokenCount.textContent = '';
    parts.maskPredictions.hidden = true;
  }

  /** One chip per token: a chip whose token and offsets are unchanged is kept as it is (typing in
   * a long text changes a few chips, and the strip is not laid out again from scratch). */
  updateChips(run) {
    const strip = this.host.parts.tokens;
    const codePoints = [...this.host.state.sentence];
    const chips = strip.children;
    for (let i = 0; i < run.n; i++) {
      const [start, end] = run.offsets[i];
      const chipKey = `${run.tokens[i]}\u0000${start},${end}\u0000${codePoints.slice(start, end).join('')}`;
      if (chips[i]?.dataset.key === chipKey) continue;
      const chip = this.tokenChip(run.tokens[i], i, run.offsets[i], codePoints);
      chip.dataset.key = chipKey;
      if (chips[i]) chips[i].replaceWith(chip); else strip.append(chip);
    }
    while (chips.length > run.n) strip.lastElementChild.remove();
  }

  tokenChip(token, index, [start, end], codePoints) {
    const { t } = this.host;
    const special = isSpecialToken(token);
    const piece = token.startsWith('##');
    const source = end > start ? codePoints.slice(start, end).join('') : '';
    return html('button', {
      type: 'button', class: `token${special ? ' special' : ''}`, role: 'option', tabindex: -1,
      'aria-selected': 'false', dataset: { token: String(index) },
      title: special ? t('tokens.specialTitle', { index, token }) : t('tokens.title', { index, token, source, start, end }),
      'aria-label': t('tokens.aria', { index, token }),
    }, [
      html('span', { class: 'index', text: String(index) }),
      html('span', { class: 'piece' }, piece ? [html('span', { class: 'piece-mark', text: '##' }), token.slice(2)] : token),
    ]);
  }

  /** The chosen token's chip is selected (and the one the strip's keyboard focus goes to). */
  markSelected() {
    const { parts, state } = this.host;
    const previous = parts.tokens.querySelector('[aria-selected="true"]');
    if (previous) { previous.setAttribute('aria-selected', 'false'); previous.tabIndex = -1; }
    const chip = parts.tokens.children[state.token];
    if (chip) {
      chip.setAttribute('aria-selected', 'true');
      chip.tabIndex = 0;
      parts.tokens.setAttribute('aria-activedescendant', '');
    }
  }

  /** Whether the [MASK] predictions are on show. */
  predictionsShown() {
    return !this.host.parts.maskPredictions.hidden;
  }

  updateMaskPredictions() {
    const { t, run, session, engine } = this.host;
    const masks = maskPositions(run.tokens);
    const box = this.host.parts.maskPredictions;
    box.hidden = masks.length === 0;
    if (!masks.length) { box.replaceChildren(); return; }
    if (!session.complete()) {  // a run under way: its predictions come when it ends
      if (!this.host.waitingLayer()) box.hidden = true;
      else replaceChildrenOf(box, html('p', { class: 'mask-waiting', role: 'status', text: weightsWaitText(t, engine) }));
      return;
    }
    if (!engine.hasMlm()) { replaceChildrenOf(box, html('p', { class: 'mask-caveat', text: t('mlm.noHead') })); return; }
    if (engine.loading && engine.partsMissing() > 0) {
      replaceChildrenOf(box, html('p', { class: 'mask-waiting', role: 'status', text: weightsWaitText(t, engine) }));
      engine.loading.ensureAll().catch(() => {});  // a refusal is shown when the weights arrive (loading.mjs)
      return;
    }
    replaceChildrenOf(box, [
      masks.slice(0, 4).map((position) => {
        const predictions = session.mlm(position, 5);
        return html('p', { class: 'mask-line', dataset: { position: String(position) } }, [
          html('b', { text: t('mlm.lineHead', { position }) }),
          predictions.map((p, k) => [k ? ' \u00b7 ' : '', html('span', { dataset: { probability: String(p.probability) }, text: `${t.quote(p.token)} ${t.percent(p.probability)}` })]),
        ]);
      }),
      html('p', { class: 'mask-caveat', text: predictionCaveat(t, engine.modelCard()) }),
    ]);
  }
}
