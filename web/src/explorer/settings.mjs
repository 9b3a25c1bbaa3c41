// Control resolution: attributes and the URL hash checked against the loaded model and the
// views, the notice naming what could not be used, the theme, the selection and its focus, the
// text typed, the heads switched off and the token kept across runs. A part of
// <attention-explorer> (explorer.mjs).

import { html, replaceChildrenOf } from '../dom.mjs';
import { resolveControls, resolveTokenSpec, parseTokenSpec, tokenSpecOf, findSameToken, writeHash, quoteGiven, isHeadOff } from '../view-state.mjs';
import { VIEWS, findView, viewById } from '../views/index.mjs';
import { THEMES } from './theme.mjs';

/** The explorer's own focus targets; a view names its own (`focus`); anything else is a selector. */
const FOCUS_TARGETS = {
  token: '.token[aria-selected="true"]', layer: '.layer-picker [aria-checked="true"]',
  head: '.head-picker [aria-checked="true"]', tab: '.tab[aria-selected="true"]',
};

export class Settings {
  /**
   * `host`, what the settings read of the element and ask of it:
   *   state, engine, run, parts    the state they change, the model, sentence A's run, the DOM parts
   *   t, tEnglish                  the reader's language, and English (console warnings)
   *   attribute(name)              the element's attribute, or null
   *   keepsHash()                  whether the element keeps the URL hash in step (its `hash` attribute)
   *   prefersDark()                whether the reader's system asks for dark colours
   *   find(selector)               an element of the explorer's shadow DOM, or null
   *   syncControls(), draw()       the controls follow the state; the view is drawn again
   *   runNow(), request()          a run now; a run as typing allows (the run scheduler)
   *   forgetCompare()              sentence B's run no longer matches the state
   *   typedAt(time)                a keystroke's time, measured to the figure it draws
   */
  constructor(host) {
    this.host = host;
    this.tokenSpec = null;       // a token asked for by an attribute or the hash, resolved after the run
    this.tokenIdentity = null;   // the chosen token's text and occurrence, kept across edits
    this.problems = [];          // the values that could not be used, as the notice lists them
    this.hashTimer = 0;
  }

  /**
   * Applies raw control texts (from attributes or the URL hash) checked against the loaded
   * model; each value that cannot be used is reported (console and a visible notice).
   */
  apply(raw, source) {
    const { state, engine, parts } = this.host;
    const { layers, heads } = engine.shape;
    const { settings: values, problems } = resolveControls(raw, { layers, heads, views: VIEWS, findView, current: state });
    const { tokenSpec, ...rest } = values;
    Object.assign(state, rest);
    if ('sentence' in rest && parts.sentence.value !== state.sentence) parts.sentence.value = state.sentence;
    if (tokenSpec !== undefined) {
      const spec = parseTokenSpec(tokenSpec);
      if (spec) this.tokenSpec = { spec, given: tokenSpec, source };
      else problems.push({ name: 'token', given: tokenSpec, used: null });
    }
    this.reportProblems(problems.map((p) => ({ ...p, source })));
  }

  /** Console warnings and a visible notice naming each unusable value and what is used instead. */
  reportProblems(problems) {
    if (!problems.length) return;
    this.problems = [...this.problems, ...problems].slice(-8);
    for (const p of problems) {
      const used = p.used ? this.host.tEnglish(...p.used) : 'ignored';
      console.warn(`<attention-explorer>: ${p.source} ${p.name}=${JSON.stringify(p.given)} cannot be used; ${used}.`);
    }
    this.showProblems();
  }

  /** The notice of unusable values, in the reader's language (redrawn when it changes). */
  showProblems() {
    if (!this.problems.length) return;
    const { t, parts } = this.host;
    replaceChildrenOf(parts.problems, this.problems.map((p) => html('li', {}, [
      html('code', { text: `${p.name}=` }), quoteGiven(p.given, t.quote),
      t('problem.line', { source: t(p.source === 'URL' ? 'problem.sourceUrl' : 'problem.sourceAttribute'), used: p.used ? t(...p.used) : t('problem.usedDefault') }),
    ])));
    parts.problemBox.hidden = false;
  }

  checkTheme() {
    const given = this.host.attribute('theme');
    if (given !== null && !THEMES.includes(given.trim().toLowerCase())) {
      this.reportProblems([{ name: 'theme', given, source: 'attribute', used: ['problem.usedTheme', { theme: this.theme() }] }]);
    }
  }

  theme() {
    const forced = this.host.attribute('theme')?.trim().toLowerCase();
    if (THEMES.includes(forced)) return forced;
    return this.host.prefersDark() ? 'dark' : 'light';
  }

  /** The state changed from outside (an attribute, the hash): the controls follow, and a run. */
  refresh() {
    this.host.syncControls();
    this.host.runNow();
  }

  setSelection(changes, focusTarget = null) {
    const { state, run } = this.host;
    Object.assign(state, changes);
    if ('token' in changes && run) this.tokenIdentity = tokenSpecOf(changes.token, run.tokens);
    this.host.syncControls();
    this.host.draw();
    this.updateHash();
    if (focusTarget) this.focusPart(focusTarget);
  }

  /** Focus: 'token', 'layer', 'head', 'tab', 'figure' (the current view's `focus`), or a selector. */
  focusPart(target) {
    const selector = target === 'figure' ? viewById(this.host.state.view)?.focus : FOCUS_TARGETS[target] ?? target;
    if (selector) this.host.find(selector)?.focus();
  }

  /** Keeps the URL hash in step, a moment after the last change (replaceState is slow). */
  updateHash() {
    if (!this.host.keepsHash() || !this.host.run) return;
    clearTimeout(this.hashTimer);
    this.hashTimer = setTimeout(() => {
      const hash = writeHash(this.host.state, VIEWS);
      if (location.hash !== hash) history.replaceState(null, '', new URL(hash, location.href).href);  // absolute: a <base> must not move it
    }, 150);
  }

  /** A text box changed: the state follows, and a run is scheduled. */
  typed(changes, event) {
    this.host.typedAt(event.timeStamp);
    Object.assign(this.host.state, changes);
    this.host.request();
  }

  /** Switches head (layer, head) off, or on again when it is off; every view then shows that model. */
  toggleHead(layer, head, focus = null) {
    const { off } = this.host.state;
    const next = isHeadOff(this.host.state, layer, head) ? off.filter(([l, h]) => l !== layer || h !== head) : [...off, [layer, head]];
    this.setRemovedHeads(next.sort((a, b) => a[0] - b[0] || a[1] - b[1]), focus);
  }

  setRemovedHeads(off, focus = null) {
    this.host.state.off = off;
    this.host.forgetCompare();
    this.host.runNow();
    if (focus) this.focusPart(focus);
  }

  /**
   * The token after a run: the one an attribute or the hash asked for (index or word), else
   * the same token as before (same text, same occurrence), else the first word.
   */
  chooseToken() {
    const { state, run } = this.host;
    const tokens = run.tokens;
    let index = null;
    if (this.tokenSpec) {
      index = this.resolveAskedToken(tokens);
    } else if (this.tokenIdentity) {
      index = findSameToken(this.tokenIdentity, tokens);
    } else if (state.token < tokens.length) {
      index = state.token;
      this.tokenIdentity = tokenSpecOf(index, tokens);
    }
    // A token that is gone (for now: it may come back as the reader types) is remembered;
    // meanwhile the first word is shown.
    state.token = index ?? Math.min(1, tokens.length - 1);
  }

  /** The token an attribute or the hash asked for, in this run's tokens, once; reported when it is not there. */
  resolveAskedToken(tokens) {
    const { spec, given, source } = this.tokenSpec;
    this.tokenSpec = null;
    const index = resolveTokenSpec(spec, tokens);
    if (index === null) {
      const fallback = Math.min(1, tokens.length - 1);
      this.reportProblems([{ name: 'token', given, source, used: ['problem.usedToken', { index: fallback, token: tokens[fallback], count: tokens.length }] }]);
    } else {
      this.tokenIdentity = tokenSpecOf(index, tokens);
    }
    return index;
  }
}
