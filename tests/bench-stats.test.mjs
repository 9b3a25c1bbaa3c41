// The bench's interval (bench/measure.mjs blockBootstrapMedian): it must widen when the blocks
// of a run disagree (what a single-level bootstrap over pooled rounds does not do) and stay
// narrow when they agree.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { blockBootstrapMedian, median, roundsPerBlock, seededRandom } from '../bench/measure.mjs';

/** `count` values around `centre` with a small deterministic scatter (±1%). */
function block(centre, count, random) {
  return Array.from({ length: count }, () => centre * (1 + 0.02 * (random() - 0.5)));
}

test('blocks that agree: the interval is the within-block scatter (about ±0.2%)', () => {
  const random = seededRandom(1);
  const blocks = Array.from({ length: 8 }, () => block(2.5, 26, random));
  const { median: m, lo, hi } = blockBootstrapMedian(blocks, seededRandom(2));
  assert.ok(lo <= m && m <= hi);
  assert.ok(hi / lo < 1.01, `[${lo}, ${hi}]`);
});

test('blocks that disagree by 6%: the interval covers the spread of the block medians', () => {
  const random = seededRandom(3);
  const centres = [2.4, 2.45, 2.5, 2.55, 2.4, 2.45, 2.5, 2.55];
  const blocks = centres.map((c) => block(c, 26, random));
  const { median: m, lo, hi } = blockBootstrapMedian(blocks, seededRandom(4));
  const pooled = median(blocks.flat());
  assert.ok(Math.abs(m - pooled) < 1e-12, 'the point is the median of every round');
  // A single-level bootstrap over the 208 pooled rounds gives about ±0.5% here; blocks ±2%.
  assert.ok(lo < 2.45 && hi > 2.5, `[${lo}, ${hi}] too narrow for block medians 2.40…2.55`);
  assert.ok(lo > 2.35 && hi < 2.6, `[${lo}, ${hi}] wider than the blocks`);
});

test('the same seed gives the same interval; rounds are shared out among the blocks', () => {
  const blocks = [[1, 2, 3], [2, 3, 4], [3, 4, 5]];
  assert.deepEqual(blockBootstrapMedian(blocks, seededRandom(9)), blockBootstrapMedian(blocks, seededRandom(9)));
  assert.equal(roundsPerBlock(201, 8), 26);
  assert.equal(roundsPerBlock(10, 2), 5);
});
