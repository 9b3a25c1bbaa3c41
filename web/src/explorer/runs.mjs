// Run scheduling: a run per keystroke when runs are fast, one per frame when they are not,
// one after a pause in typing for long texts; the chosen token kept across runs; sentence B.
// Methods of <attention-explorer> (see explorer.mjs).

import { STATUS } from '../engine.mjs';
import { resolveTokenSpec, tokenSpecOf, findSameToken } from '../view-state.mjs';
import { viewById } from '../views/index.mjs';
import { changeOneWord } from '../format.mjs';

const HEAVY_RUN_MS = 45;       // runs slower than this wait for a pause in typing
const HEAVY_TOKENS = 96;       // so do runs on longer texts
const TYPING_PAUSE_MS = 220;

/** Calls fn once on the next animation frame (or after 50 ms if frames are not running). */
export function nextFrame(fn) {
  let done = false;
  const once = () => { if (!done) { done = true; fn(); } };
  requestAnimationFrame(once);
  setTimeout(once, 50);
}

export const runs = {
  /** A text box changed: the state follows, and a run is scheduled. */
  typed(changes, event) {
    this.inputStart = event.timeStamp;
    Object.assign(this.state, changes);
    if ('sentence' in changes && this.state.compareSentence === null) this.compareRun = null;
    this.requestRun();
  },

  /** Called on every keystroke: runs now, or once per frame, or after a pause for long text. */
  requestRun() {
    if (!this.session) return;
    if (this.isHeavy()) {
      clearTimeout(this.pauseTimer);
      this.parts.busy.hidden = false;
      this.pauseTimer = setTimeout(() => this.runNow(), TYPING_PAUSE_MS);
      return;
    }
    if (this.frameBusy) {
      if (!this.frameQueued) {
        this.frameQueued = true;
        nextFrame(() => { this.frameQueued = false; this.runNow(); });
      }
      return;
    }
    this.runNow();
  },

  /** Whether runs are slow enough that typing should not wait for them. The first run of a
   * page is slow (the wasm warms up), so the faster of the last two runs decides. */
  isHeavy() {
    const recent = this.runTimes || [];
    const fastest = recent.length >= 2 ? Math.min(...recent) : 0;
    return (this.run?.n ?? 0) > HEAVY_TOKENS || fastest > HEAVY_RUN_MS;
  },

  runNow() {
    if (!this.session) return;
    this.frameBusy = true;
    nextFrame(() => { this.frameBusy = false; });
    this.parts.busy.hidden = true;
    const started = performance.now();
    try {
      this.run = this.session.runText(this.state.sentence);
    } catch (error) {
      if (error.code === STATUS.NOT_LOADED && this.engine.loading) this.waitForWeights();
      else this.runFailed(error);
      return;
    }
    this.lastRunMs = performance.now() - started;
    this.runTimes = [...(this.runTimes || []).slice(-1), this.lastRunMs];
    performance.measure('attn-run', { start: started, end: started + this.lastRunMs });
    this.chooseToken();
    if (viewById(this.state.view)?.needsCompare) {
      try {
        this.runCompare();
      } catch (error) {
        if (error.code === STATUS.NOT_LOADED && this.engine.loading) { this.waitForWeights(this.compareText()); return; }
        this.compareRun = null;  // sentence A ran: its tokens are shown, the view says why B is missing
        this.updateTokens();
        this.showViewError(error);
        return;
      }
    }
    const drawing = performance.now();
    this.updateTokens();
    this.renderView();
    this.updateHash();
    performance.measure('attn-draw', { start: drawing, end: performance.now() });
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

  /**
   * A run that failed (out of memory, numbers that are not finite): the session holds no run any
   * more, so nothing of the previous text stays on show as if it were this one's — the token
   * strip is emptied and the view says why, until a run succeeds.
   */
  runFailed(error) {
    this.run = this.compareRun = null;
    this.tokenKey = null;
    this.parts.tokens.replaceChildren();
    this.parts.tokenCount.textContent = '';
    this.parts.maskPredictions.hidden = true;
    this.showViewError(error);
  },

  compareText() {
    return this.state.compareSentence ?? changeOneWord(this.state.sentence);
  },

  runCompare() {
    if (!this.compareSession) this.compareSession = this.engine.createSession();
    const text = this.compareText();
    this.compareRun = this.compareSession.runText(text);
    this.syncViewControls();
  },
};
