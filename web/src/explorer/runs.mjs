// Run scheduling: a run per keystroke when runs are fast, one per frame when they are not,
// one after a pause in typing for long texts; the chosen token kept across runs; sentence B.
// A run goes in steps (c/attn.h attn_session_step), a slice of SLICE_MS at a time between
// which the page answers input, so a 512-token text never blocks typing; a newer text abandons
// the run under way. The view is drawn as soon as the layers it shows are done (layer 1 first),
// and a layer whose weights have not arrived is waited for (its part fetched first).
// Methods of <attention-explorer> (see explorer.mjs).

import { STATUS } from '../engine.mjs';
import { resolveTokenSpec, tokenSpecOf, findSameToken } from '../view-state.mjs';
import { viewById, layersShown } from '../views/index.mjs';
import { changeOneWord } from '../format.mjs';

const HEAVY_RUN_MS = 45;       // runs slower than this wait for a pause in typing
const HEAVY_TOKENS = 96;       // so do runs on longer texts
const TYPING_PAUSE_MS = 220;
const SLICE_MS = 12;           // steps of a run between two chances for the page to answer input

/** Calls fn as a new task, after pending input and rendering (not a microtask; no 4 ms clamp). */
const channel = typeof MessageChannel === 'function' ? new MessageChannel() : null;
const queued = [];
if (channel) channel.port1.onmessage = () => queued.shift()?.();
export function nextTask(fn) {
  if (!channel) { setTimeout(fn, 0); return; }
  queued.push(fn);
  channel.port2.postMessage(null);
}

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

  /** Begins a run of the sentence (and of sentence B when the view compares), then steps it. */
  runNow() {
    if (!this.session) return;
    clearTimeout(this.pauseTimer);
    this.frameBusy = true;
    nextFrame(() => { this.frameBusy = false; });
    this.parts.busy.hidden = true;
    const job = this.runJob = { started: performance.now(), sessions: [this.session], drawn: false, waiting: null };
    try {
      this.run = this.session.beginText(this.state.sentence);
      this.syncRemovedHeads(this.session);
    } catch (error) {
      this.runJob = null;
      if (error.code === STATUS.NOT_LOADED && this.engine.loading) this.waitForWeights();
      else this.runFailed(error);
      return;
    }
    this.chooseToken();
    if (viewById(this.state.view)?.needsCompare) {
      try {
        this.beginCompare();
        job.sessions.push(this.compareSession);
      } catch (error) {
        if (error.code === STATUS.NOT_LOADED && this.engine.loading) { this.runJob = null; this.waitForWeights(this.compareText()); return; }
        this.compareRun = null;  // sentence A runs: its tokens are shown, the view says why B is missing
        job.compareError = error;
      }
    }
    this.updateTokens();
    this.advanceRun(job);
  },

  /**
   * Steps the run for a slice, then lets the page answer input before the next slice. Draws the
   * view as soon as its layers are done; waits for a layer whose weights are missing.
   */
  advanceRun(job) {
    if (job !== this.runJob || !this.session) return;
    const deadline = performance.now() + SLICE_MS;
    let progress = null, current = null;
    try {
      for (const session of job.sessions) {
        current = session;
        while (!session.complete()) {
          progress = session.step();
          if (progress.waiting) { this.waitForLayer(job, progress.layersDone); return; }
          if (performance.now() > deadline) {
            this.drawWhenReady(job);
            nextTask(() => this.advanceRun(job));
            return;
          }
        }
      }
    } catch (error) {
      this.runJob = null;
      if (current === this.session) { this.runFailed(error); return; }
      this.compareRun = null;  // sentence A ran: its tokens are shown, the view says why B is missing
      this.showViewError(error);
      return;
    }
    this.runJob = null;
    this.lastRunMs = performance.now() - job.started;
    this.runTimes = [...(this.runTimes || []).slice(-1), this.lastRunMs];
    performance.measure('attn-run', { start: job.started, end: job.started + this.lastRunMs });
    if (job.drawnEarly) job.drawn = false;  // drawn while later layers computed: its notes read them now
    this.drawWhenReady(job);
    this.updateMaskPredictions();
  },

  /** The view, once the run has the layers it shows (every session of the job). */
  drawWhenReady(job) {
    if (job.drawn) return;
    const needed = layersShown(this.state, this.engine.shape);
    if (job.sessions.some((session) => session.layersDone() < needed)) return;
    job.drawn = true;
    job.drawnEarly = job === this.runJob && job.sessions.some((session) => !session.complete());
    if (job.compareError) { this.showViewError(job.compareError); return; }
    const drawing = performance.now();
    this.renderView();
    this.updateHash();
    performance.measure('attn-draw', { start: drawing, end: performance.now() });
  },

  /** The run stops before layer `layer` (from 0), whose weights have not arrived: they are fetched
   * (with those of the layers the view shows), the view says so meanwhile, and the run goes on. */
  waitForLayer(job, layer) {
    job.waiting = layer;
    this.drawWhenReady(job);
    if (!job.drawn) this.renderView();  // says what it waits for
    const needed = Math.max(layer + 1, layersShown(this.state, this.engine.shape));
    this.engine.loading.ensureLayers(needed).then(() => {
      if (job !== this.runJob || !this.isConnected) return;
      job.waiting = null;
      this.advanceRun(job);
    }, (error) => { if (job === this.runJob) this.showFirstError(error); });
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

  /** The session removes the heads the state switches off (before its next run). */
  syncRemovedHeads(session) {
    const { layers, heads } = this.engine.shape;
    const wanted = (this.state.off ?? []).filter(([l, h]) => l < layers && h < heads);
    if (wanted.join(';') === session.removedHeads().join(';')) return;
    session.setRemovedHeads(wanted);
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
    this.compareRun = null;
    this.runNow();
    if (focus) this.focusPart(focus);
  },

  compareText() {
    return this.state.compareSentence ?? changeOneWord(this.state.sentence);
  },

  /** Begins sentence B's run in its own session (stepped with sentence A's). */
  beginCompare() {
    if (!this.compareSession) this.compareSession = this.engine.createSession();
    const text = this.compareText();
    this.compareRun = this.compareSession.beginText(text);
    this.syncRemovedHeads(this.compareSession);
    this.syncViewControls();
  },
};
