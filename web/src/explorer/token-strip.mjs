// The token strip under the sentence: one chip per token (the chosen one selected), the count
// and truncation lines, and the [MASK] predictions. Methods of <attention-explorer>.

import { html, replaceChildrenOf } from '../dom.mjs';
import { isSpecialToken, maskPositions } from '../format.mjs';
import { predictionCaveat, weightsWaitText } from '../views/common.mjs';

export const tokenStrip = {
  updateTokens() {
    const run = this.run;
    const t = this.t;
    const key = `${t.lang}:${run.ids.join(',')}:${run.offsets.join(',')}`;
    if (key !== this.tokenKey) {
      this.tokenKey = key;
      this.updateChips(run);
    }
    this.markSelectedToken();
    const { truncated, fullLength, n } = run;
    const pieces = run.tokens.filter((token) => token.startsWith('##')).length;
    this.parts.tokenCount.textContent = t('tokens.count', { count: n }) + (pieces ? t('tokens.pieces', { count: pieces }) : '');
    this.parts.truncation.hidden = !truncated;
    this.parts.truncation.textContent = truncated ? t('tokens.truncated', { n, full: fullLength }) : '';
    this.updateMaskPredictions();
  },

  /** One chip per token: a chip whose token and offsets are unchanged is kept as it is (typing in
   * a long text changes a few chips, and the strip is not laid out again from scratch). */
  updateChips(run) {
    const strip = this.parts.tokens;
    const codePoints = [...this.state.sentence];
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
  },

  tokenChip(token, index, [start, end], codePoints) {
    const t = this.t;
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
  },

  markSelectedToken() {
    const chips = this.parts.tokens.children;
    const previous = this.parts.tokens.querySelector('[aria-selected="true"]');
    if (previous) { previous.setAttribute('aria-selected', 'false'); previous.tabIndex = -1; }
    const chip = chips[this.state.token];
    if (chip) {
      chip.setAttribute('aria-selected', 'true');
      chip.tabIndex = 0;
      this.parts.tokens.setAttribute('aria-activedescendant', '');
    }
  },

  updateMaskPredictions() {
    const t = this.t;
    const masks = maskPositions(this.run.tokens);
    const box = this.parts.maskPredictions;
    box.hidden = masks.length === 0;
    if (!masks.length) { box.replaceChildren(); return; }
    if (!this.session.complete()) {  // a run under way: its predictions come when it ends
      if (!this.runs.waitingLayer) box.hidden = true;
      else replaceChildrenOf(box, html('p', { class: 'mask-waiting', role: 'status', text: weightsWaitText(t, this.engine) }));
      return;
    }
    if (!this.engine.hasMlm()) { replaceChildrenOf(box, html('p', { class: 'mask-caveat', text: t('mlm.noHead') })); return; }
    if (this.engine.loading && this.engine.partsMissing() > 0) {
      replaceChildrenOf(box, html('p', { class: 'mask-waiting', role: 'status', text: weightsWaitText(t, this.engine) }));
      this.engine.loading.ensureAll().catch(() => {});  // a refusal is shown by onWeightsArrived
      return;
    }
    replaceChildrenOf(box, [
      masks.slice(0, 4).map((position) => {
        const predictions = this.session.mlm(position, 5);
        return html('p', { class: 'mask-line', dataset: { position: String(position) } }, [
          html('b', { text: t('mlm.lineHead', { position }) }),
          predictions.map((p, k) => [k ? ' \u00b7 ' : '', html('span', { dataset: { probability: String(p.probability) }, text: `${t.quote(p.token)} ${t.percent(p.probability)}` })]),
        ]);
      }),
      html('p', { class: 'mask-caveat', text: predictionCaveat(t, this.engine.modelCard()) }),
    ]);
  },
};
