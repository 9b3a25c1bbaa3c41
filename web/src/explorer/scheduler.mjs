// The run scheduler: it owns the engine sessions (sentence A's, and sentence B's for a view
// that compares), their runs and the run under way. A run per keystroke when runs are fast,
// one per frame when they are not, one after a pause in typing for long texts. A run goes in
// steps (c/attn.h attn_session_step), a slice of SLICE_MS at a time between which the page
// answers input, so a 512-token text never blocks typing; a newer text abandons the run under
// way. The view is drawn as soon as the layers it shows are done (layer 1 first), and a layer
// whose weights have not arrived is waited for (its part fetched first).

import { STATUS } from '../engine.mjs';
import { viewById, layersShown } from '../views/index.mjs';

const HEAVY_RUN_MS = 45;       // runs slower than this wait for a pause in typing
const HEAVY_TOKENS = 96;       // so do runs on longer texts
const TYPING_PAUSE_MS = 220;
const SLICE_MS = 12;           // steps of a run between two chances for the page to answer input

/** Calls fn as a new task, after pending input and rendering (not a microtask; no 4 ms clamp). */
const channel = typeof MessageChannel === 'function' ? new MessageChannel() : null;
const queued = [];
if (channel) channel.port1.onmessage = () => queued.shift()?.();
channel?.port1.unref?.();  // in Node (the tests), the channel does not keep the process alive
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

export class RunScheduler {
  /**
   * `host`, what the scheduler reads of the element and tells it:
   *   state, engine        read when a run begins (the sentence, the view, the heads switched off)
   *   connected()          whether the element is still on the page
   *   began()              sentence A's run began: its tokens are known
   *   draw()               the view can be drawn: the runs have the layers it shows
   *   finished()           every run of the job is complete
   *   failed(error)        sentence A's run failed
   *   compareFailed(error) sentence B's run failed (A's stands): the view says why
   *   needsWeights(text)   a run needs rows of the weights that have not arrived
   *   weightsFailed(error) the weights of a layer could not be had
   *   waiting()            the run waits for the weights of a layer (waitingLayer): the view says so
   *   busy(on)             a run waits for a pause in typing
   *   compareBegan()       sentence B's run began
   */
  constructor(host) {
    this.host = host;
    this.session = this.compareSession = null;
    this.run = this.compareRun = null;
    this.compareRunText = null;  // the text of sentence B's run
    this.job = null;             // the run under way: {started, sessions, drawn, drawnEarly, waiting, compareError}
    this.pauseTimer = 0;
    this.frameBusy = this.frameQueued = false;
    this.runTimes = [];
    this.lastRunMs = 0;
  }

  /** Sentence A's session, on `engine`. */
  open(engine) {
    if (!this.session) this.session = engine.createSession();
  }

  /** Frees the sessions (the element left the page, or shows another model). */
  close() {
    clearTimeout(this.pauseTimer);
    this.session?.destroy();
    this.compareSession?.destroy();
    this.session = this.compareSession = this.run = this.compareRun = this.compareRunText = this.job = null;
  }

  /** Sentence B's run no longer matches the state: the next run makes it again. */
  forgetCompare() {
    this.compareRun = null;
  }

  /** A run failed: no run is on show any more. */
  forgetRuns() {
    this.run = this.compareRun = null;
  }

  /** The layer whose weights the run under way waits for, or null. */
  get waitingLayer() {
    return this.job?.waiting ?? null;
  }

  /** Called on every keystroke: runs now, or once per frame, or after a pause for long text. */
  request() {
    if (!this.session) return;
    if (this.isHeavy()) {
      clearTimeout(this.pauseTimer);
      this.host.busy(true);
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
  }

  /** Whether runs are slow enough that typing should not wait for them. The first run of a
   * page is slow (the wasm warms up), so the faster of the last two runs decides. */
  isHeavy() {
    const fastest = this.runTimes.length >= 2 ? Math.min(...this.runTimes) : 0;
    return (this.run?.n ?? 0) > HEAVY_TOKENS || fastest > HEAVY_RUN_MS;
  }

  /** Begins a run of the sentence (and of sentence B when the view compares), then steps it. */
  runNow() {
    if (!this.session) return;
    const { host } = this;
    clearTimeout(this.pauseTimer);
    this.frameBusy = true;
    nextFrame(() => { this.frameBusy = false; });
    host.busy(false);
    const job = this.job = { started: performance.now(), sessions: [this.session], drawn: false, waiting: null };
    try {
      this.run = this.session.beginText(host.state.sentence);
      this.syncRemovedHeads(this.session);
    } catch (error) {
      this.job = null;
      if (error.code === STATUS.NOT_LOADED && host.engine.loading) host.needsWeights(host.state.sentence);
      else host.failed(error);
      return;
    }
    host.began();
    const text = viewById(host.state.view)?.compareText?.(host.state);
    if (text !== undefined && !this.beginCompare(job, text)) return;
    this.advance(job);
  }

  /** Begins sentence B's run, of `text`, in its own session (stepped with sentence A's); false
   * when the job stops there, to wait for weights. */
  beginCompare(job, text) {
    try {
      if (!this.compareSession) this.compareSession = this.host.engine.createSession();
      this.compareRunText = text;
      this.compareRun = this.compareSession.beginText(text);
      this.syncRemovedHeads(this.compareSession);
      this.host.compareBegan();
      job.sessions.push(this.compareSession);
    } catch (error) {
      if (error.code === STATUS.NOT_LOADED && this.host.engine.loading) {
        this.job = null;
        this.host.needsWeights(text);
        return false;
      }
      this.compareRun = null;  // sentence A runs: its tokens are shown, the view says why B is missing
      job.compareError = error;
    }
    return true;
  }

  /**
   * Steps the run for a slice, then lets the page answer input before the next slice. Draws the
   * view as soon as its layers are done; waits for a layer whose weights are missing.
   */
  advance(job) {
    if (job !== this.job || !this.session) return;
    const deadline = performance.now() + SLICE_MS;
    let current = null;
    try {
      for (const session of job.sessions) {
        current = session;
        while (!session.complete()) {
          const progress = session.step();
          if (progress.waiting) { this.waitForLayer(job, progress.layersDone); return; }
          if (performance.now() > deadline) {
            this.drawWhenReady(job);
            nextTask(() => this.advance(job));
            return;
          }
        }
      }
    } catch (error) {
      this.job = null;
      if (current === this.session) { this.host.failed(error); return; }
      this.compareRun = null;  // sentence A ran: its tokens are shown, the view says why B is missing
      this.host.compareFailed(error);
      return;
    }
    this.finish(job);
  }

  finish(job) {
    this.job = null;
    this.lastRunMs = performance.now() - job.started;
    this.runTimes = [...this.runTimes.slice(-1), this.lastRunMs];
    performance.measure('attn-run', { start: job.started, end: job.started + this.lastRunMs });
    if (job.drawnEarly) job.drawn = false;  // drawn while later layers computed: its notes read them now
    this.drawWhenReady(job);
    this.host.finished();
  }

  /** The view, once the run has the layers it shows (every session of the job). */
  drawWhenReady(job) {
    if (job.drawn) return;
    const needed = layersShown(this.host.state, this.host.engine.shape);
    if (job.sessions.some((session) => session.layersDone() < needed)) return;
    job.drawn = true;
    job.drawnEarly = job === this.job && job.sessions.some((session) => !session.complete());
    if (job.compareError) { this.host.compareFailed(job.compareError); return; }
    this.host.draw();
  }

  /** The run stops before layer `layer` (from 0), whose weights have not arrived: they are fetched
   * (with those of the layers the view shows), the view says so meanwhile, and the run goes on. */
  waitForLayer(job, layer) {
    const { host } = this;
    job.waiting = layer;
    this.drawWhenReady(job);
    if (!job.drawn) host.waiting();
    const needed = Math.max(layer + 1, layersShown(host.state, host.engine.shape));
    host.engine.loading.ensureLayers(needed).then(() => {
      if (job !== this.job || !host.connected()) return;
      job.waiting = null;
      this.advance(job);
    }, (error) => { if (job === this.job) host.weightsFailed(error); });
  }

  /**
   * Whether the runs `view` reads have `needed` layers: true, or false and the run under way
   * draws the view when they are done; null for a view that compares while sentence B has no
   * run of its text yet (it begins one with A's, which draws the view).
   */
  hasLayers(view, needed) {
    const compares = Boolean(view.compareText);
    if (compares && (!this.compareRun || this.compareRunText !== view.compareText(this.host.state))) {
      if (!this.job) this.runNow();
      return null;
    }
    const sessions = compares ? [this.session, this.compareSession] : [this.session];
    if (sessions.every((session) => session && session.layersDone() >= needed)) return true;
    if (this.job) this.job.drawn = false;
    return false;
  }

  /** The view read weights not yet arrived: the run under way draws it again when it has them
   * (true), else the caller waits for them (false). */
  redrawWhenRun() {
    if (!this.job) return false;
    this.job.drawn = false;
    return true;
  }

  /** The session removes the heads the state switches off (before its next run). */
  syncRemovedHeads(session) {
    const { layers, heads } = this.host.engine.shape;
    const wanted = this.host.state.off.filter(([l, h]) => l < layers && h < heads);
    if (wanted.join(';') === session.removedHeads().join(';')) return;
    session.setRemovedHeads(wanted);
  }
}
