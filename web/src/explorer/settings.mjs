// Control resolution: attributes and the URL hash checked against the loaded model and the
// views, the notice naming what could not be used, the theme, the selection and its focus, the
// text typed, the heads switched off and the token kept across runs.
// Methods of <attention-explorer> (see explorer.mjs).

import { html, replaceChildrenOf } from '../dom.mjs';
import { resolveControls, resolveTokenSpec, parseTokenSpec, tokenSpecOf, findSameToken, writeHash, quoteGiven } from '../view-state.mjs';
import { VIEWS, findView, viewById } from '../views/index.mjs';
import { THEMES } from './theme.mjs';

/** The explorer's own focus targets; a view names its own (`focus`); anything else is a selector. */
const FOCUS_TARGETS = {
  token: '.token[aria-selected="true"]', layer: '.layer-picker [aria-checked="true"]',
  head: '.head-picker [aria-checked="true"]', tab: '.tab[aria-selected="true"]',
};

export const settings = {
  /**
   * Applies raw control texts (from attributes or the URL hash) checked against the loaded
   * model; each value that cannot be used is reported (console and a visible notice).
   */
  applyControls(raw, source) {
    const { layers, heads } = this.engine.shape;
    const { settings: values, problems } = resolveControls(raw, { layers, heads, views: VIEWS, findView, current: this.state });
    const { tokenSpec, ...rest } = values;
    Object.assign(this.state, rest);
    if ('sentence' in rest && this.parts.sentence.value !== this.state.sentence) this.parts.sentence.value = this.state.sentence;
    if (tokenSpec !== undefined) {
      const spec = parseTokenSpec(tokenSpec);
      if (spec) this.tokenSpec = { spec, given: tokenSpec, source };
      else problems.push({ name: 'token', given: tokenSpec, used: null });
    }
    this.reportProblems(problems.map((p) => ({ ...p, source })));
  },

  /** Console warnings and a visible notice naming each unusable value and what is used instead. */
  reportProblems(problems) {
    if (!problems.length) return;
    this.problems = [...(this.problems || []), ...problems].slice(-8);
    for (const p of problems) {
      const used = p.used ? this.tEnglish(...p.used) : 'ignored';
      console.warn(`<attention-explorer>: ${p.source} ${p.name}=${JSON.stringify(p.given)} cannot be used; ${used}.`);
    }
    this.showProblems();
  },

  /** The notice of unusable values, in the reader's language (redrawn when it changes). */
  showProblems() {
    if (!this.problems?.length) return;
    const t = this.t;
    replaceChildrenOf(this.parts.problems, this.problems.map((p) => html('li', {}, [
      html('code', { text: `${p.name}=` }), quoteGiven(p.given, t.quote),
      t('problem.line', { source: t(p.source === 'URL' ? 'problem.sourceUrl' : 'problem.sourceAttribute'), used: p.used ? t(...p.used) : t('problem.usedDefault') }),
    ])));
    this.parts.problemBox.hidden = false;
  },

  checkTheme() {
    const given = this.getAttribute('theme');
    if (given !== null && !THEMES.includes(given.trim().toLowerCase())) {
      this.reportProblems([{ name: 'theme', given, source: 'attribute', used: ['problem.usedTheme', { theme: this.theme() }] }]);
    }
  },

  theme() {
    const forced = this.getAttribute('theme')?.trim().toLowerCase();
    if (THEMES.includes(forced)) return forced;
    return this.themeQuery?.matches ? 'dark' : 'light';
  },

  refresh() {
    this.syncControls();
    if (this.session) this.runNow();
  },

  setSelection(changes, focusTarget = null) {
    Object.assign(this.state, changes);
    if ('token' in changes && this.run) this.tokenIdentity = tokenSpecOf(changes.token, this.run.tokens);
    this.syncControls();
    this.renderView();
    this.updateHash();
    if (focusTarget) this.focusPart(focusTarget);
  },

  /** Focus: 'token', 'layer', 'head', 'tab', 'figure' (the current view's `focus`), or a selector. */
  focusPart(target) {
    const selector = target === 'figure' ? viewById(this.state.view)?.focus : FOCUS_TARGETS[target] ?? target;
    if (selector) this.shadowRoot.querySelector(selector)?.focus();
  },

  /** Keeps the URL hash in step, a moment after the last change (replaceState is slow). */
  updateHash() {
    if (!this.hasAttribute('hash') || !this.run) return;
    clearTimeout(this.hashTimer);
    this.hashTimer = setTimeout(() => {
      const hash = writeHash(this.state, VIEWS);
      if (location.hash !== hash) history.replaceState(null, '', new URL(hash, location.href).href);  // absolute: a <base> must not move it
    }, 150);
  },

  /** A text box changed: the state follows, and a run is scheduled. */
  typed(changes, event) {
    this.inputStart = event.timeStamp;
    Object.assign(this.state, changes);
    this.runs.request();
  },

  /** Switches head (layer, head) off, or on again when it is off; every view then shows that model. */
  toggleHead(layer, head, focus = null) {
    const off = this.state.off ?? [];
    const isOff = off.some(([l, h]) => l === layer && h === head);
    const next = isOff ? off.filter(([l, h]) => l !== layer || h !== head) : [...off, [layer, head]];
    this.setRemovedHeads(next.sort((a, b) => a[0] - b[0] || a[1] - b[1]), focus);
  },

  setRemovedHeads(off, focus = null) {
    this.state.off = off;
    this.runs.forgetCompare();
    this.runNow();
    if (focus) this.focusPart(focus);
  },

  /**
   * The token after a run: the one an attribute or the hash asked for (index or word), else
   * the same token as before (same text, same occurrence), else the first word.
   */
  chooseToken() {
    const tokens = this.run.tokens;
    let index = null;
    if (this.tokenSpec) {
      const { spec, given, source } = this.tokenSpec;
      this.tokenSpec = null;
      index = resolveTokenSpec(spec, tokens);
      if (index === null) {
        const fallback = Math.min(1, tokens.length - 1);
        this.reportProblems([{ name: 'token', given, source, used: ['problem.usedToken', { index: fallback, token: tokens[fallback], count: tokens.length }] }]);
      }
      if (index !== null) this.tokenIdentity = tokenSpecOf(index, tokens);
    } else if (this.tokenIdentity) {
      index = findSameToken(this.tokenIdentity, tokens);
    } else if (this.state.token < tokens.length) {
      index = this.state.token;
      this.tokenIdentity = tokenSpecOf(index, tokens);
    }
    // A token that is gone (for now: it may come back as the reader types) is remembered;
    // meanwhile the first word is shown.
    this.state.token = index ?? Math.min(1, tokens.length - 1);
  },
};
