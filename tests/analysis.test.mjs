// The engine's analyses against an independent float64 computation (tests/lib/analysis-reference.mjs
// on weights/reference.mjs) on the golden fixtures' sentences: row statistics, rollout, head
// roles and their masses, contributions with each head's own W_O slice, the √d what-if and the
// inside-a-layer steps. Bars are a few times the largest difference measured on the int8-native
// default (whose attention matches the reference to 5e-5); each test prints its figures.
//
// Needs ../shared/checkpoints/bert-mini-int8 (the default weights' checkpoint): without it the
// tests fail, unless ATTN_ALLOW_MISSING_SHARED=1 turns the failure into a counted skip.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { loadCheckpoint } from '../weights/reference.mjs';
import { analyseSentence, ANALYSIS_BARS as BARS, maxAbs, maxDelta, ROLE_NAMES, rowStats } from './lib/analysis-reference.mjs';
import { loadEngine, repoRoot } from './lib/node-engine.mjs';
import { runFixtureSentence } from './lib/pairs.mjs';

const CHECKPOINT = process.env.ATTN_CHECKPOINT ?? `${repoRoot}../shared/checkpoints/bert-mini-int8`;
const FIXTURE = `${repoRoot}tests/fixtures/bert-mini-int8/attention.json`;

const missing = existsSync(`${CHECKPOINT}/model.safetensors`) ? null : `${CHECKPOINT} is missing`;
const allowMissing = process.env.ATTN_ALLOW_MISSING_SHARED === '1';

/** The checkpoint, the engine and the sentences, or null after a counted skip when allowed. */
async function setup(t) {
  if (missing) {
    if (allowMissing) { t.skip(`${missing}; ATTN_ALLOW_MISSING_SHARED=1`); return null; }
    assert.fail(`${missing}; set ATTN_ALLOW_MISSING_SHARED=1 to skip instead of failing`);
  }
  return shared ??= (async () => {
    const model = loadCheckpoint(CHECKPOINT);
    const engine = await loadEngine();
    const spec = JSON.parse(readFileSync(FIXTURE, 'utf8'));
    assert.ok(spec.sentences.length > 0, `${FIXTURE} has no sentences`);
    // Head roles read every demo, short and mid sentence and the first long one (the sinks are
    // rare); the other readings every demo, every third short and mid sentence and the long one.
    const firstLong = spec.sentences.findIndex((x) => x.set === 'long');
    const all = spec.sentences.filter((x, i) => x.set === 'demos' || x.set === 'short' || x.set === 'mid' || i === firstLong);
    const some = all.filter((x, i) => x.set === 'demos' || x.set === 'long' || i % 3 === 0);
    return { model, engine, all, some, analyses: new Map() };
  })();
}
let shared = null;

/**
 * Runs fn(session, reference, sentence) on the chosen sentences (`all` or `some`); the engine
 * must read the fixture's ids.
 */
function eachSentence(s, fn, which = 'some') {
  const session = s.engine.createSession();
  const mismatches = [];
  for (const sentence of s[which]) {
    const run = runFixtureSentence(session, sentence);
    if (run.ids.length !== sentence.ids.length || run.ids.some((id, i) => id !== sentence.ids[i])) {
      mismatches.push(sentence.text.slice(0, 40));
      continue;
    }
    if (!s.analyses.has(sentence)) {
      s.analyses.set(sentence, analyseSentence(s.model, sentence.ids, { tokens: sentence.tokens, typeIds: sentence.type_ids, checkpoint: CHECKPOINT }));
    }
    fn(session, s.analyses.get(sentence), sentence);
  }
  session.destroy();
  assert.deepEqual(mismatches, [], 'the engine tokenizes these fixture sentences differently');
  assert.ok(s[which].length >= 40, `only ${s[which].length} sentences`);
}

/** Tracks the largest difference of one reading; NaN counts as infinitely large. */
class Worst {
  constructor(name, bar) { Object.assign(this, { name, bar, value: 0, where: '' }); }
  see(d, where) {
    const value = Number.isNaN(d) ? Infinity : d;
    if (value > this.value) Object.assign(this, { value, where });
  }
  report() {
    const ok = this.value <= this.bar;
    console.log(`  ${this.name}: max |Δ| ${this.value.toExponential(2)} (bar ${this.bar.toExponential(0)})` +
      `${this.where ? ` at ${this.where}` : ''} — ${ok ? 'ok' : 'FAIL'}`);
    return ok;
  }
}

function heads(shape, fn) {
  for (let l = 0; l < shape.layers; l++) for (let h = 0; h < shape.heads; h++) fn(l, h);
}

function assertAll(worsts) {
  const failed = worsts.filter((w) => !w.report());
  assert.deepEqual(failed.map((w) => w.name), [], 'readings over their bar');
}

test('row statistics: max, argmax, ratio to uniform, entropy, effective tokens, normalised entropy', async (t) => {
  const s = await setup(t);
  if (!s) return;
  const w = {
    max: new Worst('max', BARS.rowMax), ratio: new Worst('ratio / n', BARS.ratio),
    entropy: new Worst('entropy', BARS.entropy), effective: new Worst('effective tokens (relative)', BARS.effective),
    normalized: new Worst('entropy / ln n', BARS.normalized), argmax: new Worst('argmax differs on a clear row', 0),
  };
  let rows = 0;
  eachSentence(s, (session, ref, sentence) => {
    heads(s.engine.shape, (l, h) => {
      for (let i = 0; i < ref.n; i++) {
        const ours = session.rowStats(l, h, i), theirs = ref.rowStats(l, h, i);
        const where = `"${sentence.text.slice(0, 30)}" layer ${l + 1} head ${h + 1} row ${i}`;
        rows++;
        w.max.see(Math.abs(ours.max - theirs.max), where);
        w.ratio.see(Math.abs(ours.ratio - theirs.ratio) / ref.n, where);
        w.entropy.see(Math.abs(ours.entropy - theirs.entropy), where);
        w.effective.see(Math.abs(ours.effective - theirs.effective) / theirs.effective, where);
        w.normalized.see(Math.abs(ours.normalized - theirs.normalized), where);
        // An argmax may change only where the reference's two largest weights are within the bar.
        const sorted = ref.row(l, h, i).sort((a, b) => b - a);
        if (ours.argmax !== theirs.argmax && sorted[0] - sorted[1] > 2 * BARS.rowMax) w.argmax.see(1, where);
      }
    });
  });
  console.log(`  ${rows} rows`);
  assertAll(Object.values(w));
});

test('rollout through every layer', async (t) => {
  const s = await setup(t);
  if (!s) return;
  const worst = new Worst('rollout', BARS.rollout);
  eachSentence(s, (session, ref, sentence) => {
    for (let last = 0; last < s.engine.shape.layers; last++) {
      const ours = session.rollout(last), theirs = ref.rollout(last);
      for (let i = 0; i < ref.n; i++) {
        worst.see(maxDelta(ours.subarray(i * ref.n, (i + 1) * ref.n), theirs[i]),
          `"${sentence.text.slice(0, 30)}" through layer ${last + 1} row ${i}`);
      }
    }
  });
  assertAll([worst]);
});

test('head roles and the mass on each token kind', async (t) => {
  const s = await setup(t);
  if (!s) return;
  const mass = new Worst('mass on a token kind', BARS.mass);
  const differing = [], seen = Object.fromEntries(ROLE_NAMES.map((r) => [r, 0]));
  let compared = 0, borderline = 0;
  eachSentence(s, (session, ref, sentence) => {
    heads(s.engine.shape, (l, h) => {
      const ours = session.headRoles(l, h), theirs = ref.headRoles(l, h);
      const where = `"${sentence.text.slice(0, 30)}" layer ${l + 1} head ${h + 1}`;
      for (const kind of ['word', 'cls', 'sep', 'punctuation']) mass.see(Math.abs(ours.mass[kind] - theirs.mass[kind]), `${where} ${kind}`);
      ROLE_NAMES.forEach((role, r) => {
        if (theirs.margins[r] < BARS.roleBorderline) { borderline++; return; }
        compared++;
        const expected = theirs.roles.includes(role);
        if (expected) seen[role]++;
        if (ours.roles.includes(role) !== expected) differing.push(`${where}: ${expected ? 'not ' : ''}called ${role}`);
      });
    });
  }, 'all');
  console.log(`  ${compared} role calls compared, ${borderline} within ${BARS.roleBorderline} of their threshold not compared; ` +
    `reference calls: ${ROLE_NAMES.map((r) => `${r} ${seen[r]}`).join(', ')}`);
  assertAll([mass]);
  assert.deepEqual(differing.slice(0, 10), [], `${differing.length} role calls differ from the reference`);
  // Each role must occur, or a relabelled role would pass unseen. The positional roles cannot:
  // no head of bert-mini puts its argmax on the neighbour of 90% of the rows of any text tried
  // (at most 50% on the fixtures), so for them the test shows only that neither side calls them.
  const observable = ROLE_NAMES.filter((r) => r !== 'previous' && r !== 'next');
  assert.deepEqual(observable.filter((r) => seen[r] === 0), [], 'roles the sentences never show');
});

test('contributions ‖α·f(x)‖ with each head\'s own W_O slice', async (t) => {
  const s = await setup(t);
  if (!s) return;
  const worst = new Worst('contributions (relative to the row\'s largest)', BARS.contributions);
  eachSentence(s, (session, ref, sentence) => {
    heads(s.engine.shape, (l, h) => {
      for (const i of new Set([0, Math.floor(ref.n / 2), ref.n - 1])) {
        const ours = session.contributions(l, h, i), theirs = ref.contributions(l, h, i);
        worst.see(maxDelta(ours, theirs) / maxAbs(theirs), `"${sentence.text.slice(0, 30)}" layer ${l + 1} head ${h + 1} row ${i}`);
      }
    });
  });
  assertAll([worst]);
});

test('the √d what-if: rows with and without the division, and the statistics of the undivided row', async (t) => {
  const s = await setup(t);
  if (!s) return;
  const scaled = new Worst('divided by √d', BARS.scaled), unscaled = new Worst('not divided', BARS.unscaled);
  const ratio = new Worst('not divided: ratio to uniform / n', BARS.unscaled);
  const effective = new Worst('not divided: effective tokens, relative', BARS.effective);
  eachSentence(s, (session, ref, sentence) => {
    heads(s.engine.shape, (l, h) => {
      for (const i of new Set([0, 1, ref.n - 1])) {
        const where = `"${sentence.text.slice(0, 30)}" layer ${l + 1} head ${h + 1} row ${i}`;
        scaled.see(maxDelta(session.rowScaled(l, h, i, true), ref.rowScaled(l, h, i, true)), where);
        unscaled.see(maxDelta(session.rowScaled(l, h, i, false), ref.rowScaled(l, h, i, false)), where);
        const ours = session.rowScaledStats(l, h, i, false), theirs = rowStats(ref.rowScaled(l, h, i, false));
        ratio.see(Math.abs(ours.ratio - theirs.ratio) / ref.n, where);
        effective.see(Math.abs(ours.effective - theirs.effective) / theirs.effective, where);
      }
    });
  });
  assertAll([scaled, unscaled, ratio, effective]);
});

test('inside a layer: heads concatenated, after W_O, after the residual, after LayerNorm', async (t) => {
  const s = await setup(t);
  if (!s) return;
  const parts = ['concat', 'projected', 'residual', 'normed'];
  const worsts = Object.fromEntries(parts.map((p) => [p, new Worst(`${p} (relative to its largest)`, BARS.walkthrough)]));
  eachSentence(s, (session, ref, sentence) => {
    for (let l = 0; l < s.engine.shape.layers; l++) {
      for (const token of new Set([0, Math.floor(ref.n / 2), ref.n - 1])) {
        const ours = session.walkthrough(l, token), theirs = ref.walkthrough(l, token);
        for (const p of parts) {
          worsts[p].see(maxDelta(ours[p], theirs[p]) / maxAbs(theirs[p]), `"${sentence.text.slice(0, 30)}" layer ${l + 1} token ${token}`);
        }
      }
    }
  });
  assertAll(Object.values(worsts));
});
