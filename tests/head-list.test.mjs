// One grammar of head lists: the page's off= and off attribute (web/src/head-list.mjs through
// view-state.mjs headListParam) and the command line's --ablate (c/cli.c) give the same answer
// on every case of tests/fixtures/head-lists.json: the same heads in the same order, or a
// refusal of the same kind.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { parseHeadList, HEAD_LIST_MAX } from '../web/src/head-list.mjs';
import { headListParam } from '../web/src/view-state.mjs';
import { repoRoot } from './lib/node-engine.mjs';

const { cases } = JSON.parse(fs.readFileSync(path.join(repoRoot, 'tests/fixtures/head-lists.json'), 'utf8'));
const build = spawnSync('make', ['-s', 'build/attn'], { cwd: repoRoot, encoding: 'utf8' });
const cli = path.join(repoRoot, 'build/attn');
const nativeMissing = build.status !== 0 && process.env.ATTN_ALLOW_MISSING_NATIVE === '1' && `build/attn: ${build.stderr}`;

// How the command line words each kind of refusal.
const CLI_REFUSAL = {
  syntax: /write each head as LAYER\.HEAD/,
  twice: /is listed twice/,
  reversed: /run backwards/,
  many: new RegExp(`more than ${HEAD_LIST_MAX} heads listed`),
};

const expectedHeads = (c) => (c.count ? null : c.heads);

test('the page reads every case of the table as the table says', () => {
  assert.ok(cases.length >= 30);
  for (const c of cases) {
    const r = parseHeadList(c.text);
    if (c.error) assert.equal(r.error, c.error, JSON.stringify(c.text));
    else if (c.count) assert.equal(r.heads.length, c.count, JSON.stringify(c.text));
    else assert.deepEqual(r.heads, c.heads, JSON.stringify(c.text));
  }
});

test('off= and the off attribute: the table\'s heads inside the model are switched off, anything else is reported', () => {
  const param = headListParam('off', 'off', () => 'reported');
  const context = { layers: 12, heads: 12, current: {} };
  for (const c of cases) {
    const r = param.read(c.text, context);
    const heads = expectedHeads(c);
    if (c.error || (heads && heads.some(([l, h]) => l < 1 || h < 1 || l > 12 || h > 12))) {
      assert.equal(r.used, 'reported', JSON.stringify(c.text));
    } else if (heads) {
      const sorted = heads.map(([l, h]) => [l - 1, h - 1]).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
      assert.deepEqual(r.set.off, sorted, JSON.stringify(c.text));
    }
  }
});

test('--ablate reads every case of the table as the page does (a 4 × 4 model: other heads are the model\'s refusal)', { skip: nativeMissing }, () => {
  assert.equal(build.status, 0, build.stderr);
  for (const c of cases) {
    const r = spawnSync(cli, ['The cat', '--json', '--ablate', c.text], { encoding: 'utf8' });
    const out = JSON.parse(r.stdout);
    const heads = expectedHeads(c);
    if (c.error) {
      assert.match(out.error?.message ?? '', CLI_REFUSAL[c.error], JSON.stringify(c.text));
    } else if (heads && heads.length === 0) {
      // The one difference, on purpose: an empty --ablate is a mistake on the command line.
      assert.match(out.error?.message ?? '', /names no head/, JSON.stringify(c.text));
    } else if (heads && heads.every(([l, h]) => l >= 1 && h >= 1 && l <= 4 && h <= 4)) {
      assert.deepEqual(out.removed_heads, heads, `${JSON.stringify(c.text)}: ${r.stdout.slice(0, 200)}`);
    } else {
      assert.match(out.error?.message ?? '', /this model has (layers|heads) 1–4/, JSON.stringify(c.text));
    }
  }
});
