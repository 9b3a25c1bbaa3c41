// The browser suite's table (tests/browser/run.mjs): every test a topic module exports is in it,
// every name its sets and limits give is a test of it, and Firefox runs no test that needs what
// only Chromium has. Runs no browser.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { FIREFOX, FULL_ONLY, LONG_TESTS, TESTS } from './browser/run.mjs';

const BROWSER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'browser');
const TOPICS = path.join(BROWSER, 'topics');

test('every test a topic module exports is in the table, once', async () => {
  const registered = new Set(Object.values(TESTS));
  const topics = fs.readdirSync(TOPICS).filter((name) => name.endsWith('.mjs'));
  assert.ok(topics.length >= 5, `${topics.length} topic modules`);
  for (const file of topics) {
    const module = await import(path.join(TOPICS, file));
    for (const [name, value] of Object.entries(module)) {
      if (/^test[A-Z]/.test(name) && typeof value === 'function') assert.ok(registered.has(value), `${file}: ${name} is not in run.mjs's table`);
    }
  }
  assert.equal(registered.size, Object.keys(TESTS).length, 'a test body registered under two names');
});

test('the sets and limits name tests of the table', () => {
  for (const [label, names] of [['FULL_ONLY', [...FULL_ONLY]], ['FIREFOX', [...FIREFOX]], ['LONG_TESTS', Object.keys(LONG_TESTS)]]) {
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
