// The browser tests' tables (tests/browser/run.mjs's, and those of faults.test.mjs and
// notebook.test.mjs, in their topic modules): every test a topic module exports is in one of them,
// every name run.mjs's sets and limits give is a test of its table, and Firefox runs no test that
// needs what only Chromium has. Runs no browser.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { FIREFOX, FULL_ONLY, LONG_TESTS, NAMED_ONLY, TESTS } from './browser/run.mjs';
import { FAULT_TESTS } from './browser/topics/faults.mjs';
import { NOTEBOOK_TESTS } from './browser/topics/notebook.mjs';

const BROWSER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'browser');
const TOPICS = path.join(BROWSER, 'topics');

const TABLES = { 'run.mjs': TESTS, 'topics/faults.mjs': FAULT_TESTS, 'topics/notebook.mjs': NOTEBOOK_TESTS };

test('every test a topic module exports is in a table, once', async () => {
  const tables = Object.values(TABLES);
  const registered = new Set(tables.flatMap((table) => Object.values(table)));
  const topics = fs.readdirSync(TOPICS).filter((name) => name.endsWith('.mjs'));
  assert.ok(topics.length >= 5, `${topics.length} topic modules`);
  for (const file of topics) {
    const module = await import(path.join(TOPICS, file));
    for (const [name, value] of Object.entries(module)) {
      if (/^test[A-Z]/.test(name) && typeof value === 'function') assert.ok(registered.has(value), `${file}: ${name} is in no table`);
    }
  }
  const names = tables.flatMap((table) => Object.keys(table));
  assert.equal(registered.size, names.length, 'a test body registered under two names');
  assert.equal(new Set(names).size, names.length, 'two tests of the same name');
  for (const [label, table] of Object.entries(TABLES)) assert.ok(Object.keys(table).length >= 5, `${label}: ${Object.keys(table).length} tests`);
});

test('the sets and limits name tests of the table', () => {
  for (const [label, names] of [['FULL_ONLY', [...FULL_ONLY]], ['NAMED_ONLY', [...NAMED_ONLY]], ['FIREFOX', [...FIREFOX]], ['LONG_TESTS', Object.keys(LONG_TESTS)]]) {
    for (const name of names) assert.ok(Object.hasOwn(TESTS, name), `${label}: ${name} is not a test`);
  }
  assert.ok(Object.keys(TESTS).length > FULL_ONLY.size, 'the core set is not empty');
});

test('Firefox runs no test whose body calls what only Playwright pages have', () => {
  const source = fs.readdirSync(TOPICS).map((file) => fs.readFileSync(path.join(TOPICS, file), 'utf8')).join('\n');
  const chromiumOnly = /\bpage\.(locator|keyboard|mouse|touchscreen|route|waitForEvent|emulateMedia)\b|isMobile|locale:/;
  for (const name of FIREFOX) {
    const body = new RegExp(`export (?:async function ${name}\\b|const ${name} = )[\\s\\S]*?\\n}\\n`).exec(source)?.[0]
      ?? new RegExp(`export const ${name} = [^\\n]*\\n`).exec(source)?.[0];
    assert.ok(body, `${name}: no body found in tests/browser/topics/`);
    assert.doesNotMatch(body, chromiumOnly, `${name} is in the FIREFOX set`);
  }
});

test('the shards of ATTN_BROWSER_SHARD share the set out: every test in exactly one, in the table\'s order', async () => {
  const { shardFilter } = await import('./browser/suite.mjs');
  const names = Object.keys(TESTS).filter((name) => !FULL_ONLY.has(name));
  for (const n of [1, 2, 3]) {
    const shards = Array.from({ length: n }, (_, k) => names.filter((name, index) => shardFilter(`${k + 1}/${n}`)([name], index)));
    assert.deepEqual(shards.flat().sort(), [...names].sort(), `${n} shards hold every test once`);
    assert.ok(shards.every((shard) => shard.length >= Math.floor(names.length / n)), `${n} shards of even size`);
  }
  assert.equal(names.filter((name, index) => shardFilter('')([name], index)).length, names.length, 'unset: the whole set');
  for (const bad of ['0/2', '3/2', '1/0', 'a/b', '1']) assert.throws(() => shardFilter(bad), /ATTN_BROWSER_SHARD/, bad);
});
