// The message catalogues (web/src/i18n/*.mjs): every language has exactly the keys of English,
// the same placeholders in every entry and the plural forms its language has; every key the
// page's sources name exists; numbers are written as each language writes them.

import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CATALOGUES, placeholdersOf, translator, supportedLanguage, frenchSpacing } from '../web/src/i18n/index.mjs';
import { breakableWords } from '../web/src/charts.mjs';
import { STATUS } from '../web/src/engine.mjs';
import { VIEWS } from '../web/src/views/index.mjs';
import { ROLES } from '../web/src/figures.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const english = CATALOGUES.en;
const others = Object.entries(CATALOGUES).filter(([lang]) => lang !== 'en');

test('every language has exactly the keys of English', () => {
  for (const [lang, catalogue] of others) {
    const missing = Object.keys(english).filter((key) => !(key in catalogue));
    const extra = Object.keys(catalogue).filter((key) => !(key in english));
    assert.deepEqual({ missing, extra }, { missing: [], extra: [] }, `${lang}.mjs`);
  }
});

test('every entry has the same placeholders in every language', () => {
  for (const [lang, catalogue] of others) {
    const differ = Object.keys(english).filter((key) => key in catalogue && placeholdersOf(english[key]).join() !== placeholdersOf(catalogue[key]).join());
    assert.deepEqual(differ, [], `${lang}.mjs: placeholders differ`);
  }
});

test('plural entries have `other`, only categories of their language, and a {count}', () => {
  for (const [lang, catalogue] of Object.entries(CATALOGUES)) {
    const categories = new Intl.PluralRules(lang).resolvedOptions().pluralCategories;
    for (const [key, entry] of Object.entries(catalogue)) {
      if (typeof entry === 'string') continue;
      assert.ok('other' in entry, `${lang} ${key}: no "other" form`);
      for (const form of Object.keys(entry)) assert.ok(categories.includes(form), `${lang} ${key}: "${form}" is not a plural category of ${lang}`);
      assert.ok(placeholdersOf(entry).includes('count'), `${lang} ${key}: plural forms without {count}`);
    }
  }
});

test('every key the page names exists: literal t(...) keys, view labels, status names, roles', () => {
  const keys = new Set();
  const sources = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(file);
      else if (file.endsWith('.mjs') && !file.includes(`${path.sep}i18n${path.sep}`)) sources.push(file);
    }
  };
  walk(path.join(ROOT, 'web/src'));
  for (const file of sources) {
    for (const match of readFileSync(file, 'utf8').matchAll(/\bt\(\s*'([a-zA-Z][\w.-]*)'/g)) keys.add(match[1]);
  }
  for (const view of VIEWS) keys.add(view.labelKey);
  for (const name of Object.keys(STATUS)) if (name !== 'OK') keys.add(`status.${name}`);
  for (const role of ROLES) { keys.add(`badge.${role}`); keys.add(`badgeShort.${role}`); }
  for (const kind of ['focused', 'spread', 'uniform-like']) keys.add(`reading.${kind}`);
  for (const part of ['wasm', 'weights', 'engine']) { keys.add(`progress.loading.${part}`); keys.add(`progress.decoding.${part}`); }
  assert.ok(keys.size > 200, `only ${keys.size} keys found in the sources`);
  const missing = [...keys].filter((key) => !(key in english));
  assert.deepEqual(missing, [], 'keys named in web/src but not in en.mjs');
});

test('numbers as each language writes them', () => {
  const fr = translator('fr'), en = translator('en');
  assert.equal(fr.number(0.9423), '0,942');
  assert.equal(en.number(0.9423), '0.942');
  assert.equal(fr.times(12.2449), '12,24\u00d7');
  assert.equal(fr('row.statSum', { sum: fr.number(1, 3) }), '\u03a3 = 1,000');
  assert.equal(fr.percent(0.42), '42\u202f%');
  assert.equal(en.percent(0.42), '42%');
  assert.equal(fr.number(-0.25, 2), '\u22120,25');
  assert.equal(fr.number(-0.0001, 3), '0,000');
  assert.equal(fr.probability(0.0003), '3e\u22124');
  assert.equal(fr('reading.focused', { measure: 'a', top: 'b' }), 'Concentr\u00e9e\u202f: a\u202f; b.');
  assert.equal(fr.quote('cat'), '\u00ab\u202fcat\u202f\u00bb');
});

test('French guillemets stay with their word: narrow no-break spaces, and no line breaks there', () => {
  assert.equal(frenchSpacing('le mot « chat » et «chien»'), 'le mot \u00ab\u202fchat\u202f\u00bb et \u00ab\u202fchien\u202f\u00bb');
  const fr = translator('fr');
  const quoted = Object.keys(CATALOGUES.fr).map((key) => fr(key, { count: 2 })).filter((text) => /[\u00ab\u00bb]/.test(text));
  assert.ok(quoted.length > 0, 'the French catalogue quotes something');
  for (const text of quoted) assert.doesNotMatch(text, /\u00ab[^\u202f]|[^\u202f]\u00bb/, text);
  // The figures' own line breaking (charts.mjs wrapText) breaks at spaces, never at U+202F.
  const words = breakableWords(`il regarde ${fr.quote('cat')} puis 42\u202f%`);
  assert.deepEqual(words, ['il', 'regarde', '\u00ab\u202fcat\u202f\u00bb', 'puis', '42\u202f%']);
});

test('plural forms are chosen by the language', () => {
  const fr = translator('fr'), en = translator('en');
  assert.equal(en('tokens.count', { count: 1 }), '1 token, including [CLS] and [SEP]');
  assert.equal(en('tokens.count', { count: 0 }), '0 tokens, including [CLS] and [SEP]');
  assert.equal(fr('tokens.count', { count: 0 }), '0 token, [CLS] et [SEP] compris');
  assert.equal(fr('tokens.count', { count: 12 }), '12 tokens, [CLS] et [SEP] compris');
});

test('language tags: supported ones by their base, others refused', () => {
  assert.equal(supportedLanguage('fr-CA'), 'fr');
  assert.equal(supportedLanguage('EN_gb'), 'en');
  assert.equal(supportedLanguage('de'), null);
  assert.equal(supportedLanguage(''), null);
});
