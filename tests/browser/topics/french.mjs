// The page in French: numbers written the French way, the language following the element, its
// ancestors and the page's switch, the model card's texts, a cased checkpoint, the address.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { FILE, HTTP, SERVED, andRedraw, check, explorer, newPage, pageState, selectView, typeSentence, url, waitDrawn } from '../lib/session.mjs';
import { VIEW_IDS } from './layout.mjs';

/** What a view prints for people: its figure's texts and its notes, as one string. */
export async function shownText(page) {
  return explorer(page).evaluate((e) => {
    const root = e.shadowRoot;
    const texts = [...root.querySelectorAll('.figure-box svg text')].map((t) => t.textContent);
    const notes = [...root.querySelectorAll('.notes, .hover-readout, .which')].map((n) => n.textContent);
    return [...texts, ...notes].join(' \u2016 ');
  });
}

/**
 * French on a French page: every view that prints numbers writes them the French way
 * (0,942; Σ = 1,000; 12,24×; 42 %) and no English decimal is left, while the data-*
 * values stay machine-readable; the language follows lang on the element, then on an
 * ancestor, changes redraw, an unsupported language falls back to English with one note;
 * index.html follows the browser's language and its switch.
 */
export async function testFrench() {
  const page = await newPage({ locale: 'fr-FR' });
  const notes = [];
  page.on('console', (message) => { if (message.type() === 'info') notes.push(message.text()); });
  await page.goto(url(FILE, 'index.html') + '#sentence=' + encodeURIComponent('The cat sat on the mat because it was tired.') + '&layer=2&head=3&token=8&view=row');
  await waitDrawn(page);
  check('French: index.html follows the browser\'s language (fr-FR): <html lang="fr">, French prose and explorer',
    (await page.evaluate(() => document.documentElement.lang)) === 'fr' && (await page.locator('h1:visible').textContent()).includes('Explorateur') &&
    (await explorer(page).locator('.tab[data-view="row"]').textContent()) === 'Ligne');
  const englishDecimal = /(^|[^\w.])\d+\.\d/;
  for (const view of VIEW_IDS) {
    if (view === 'mask') await typeSentence(page, 'The cat sat on the [MASK] because it was tired.');
    if (view === 'compare') await typeSentence(page, 'The cat sat on the mat because it was tired.');
    await selectView(page, view);
    if (view === 'why-sqrt-d') await andRedraw(page, () => explorer(page).locator('.whatif-toggle').check());
    if (view === 'head-importance') await explorer(page).locator('.imp-cell').first().waitFor({ timeout: 60000 });
    const text = await shownText(page);
    const english = englishDecimal.exec(text);
    check(`French numbers, ${view}: decimal commas (${(text.match(/\d,\d/g) || []).length}), no English decimal point`,
      /\d,\d/.test(text) && !english, english ? `"${text.slice(Math.max(0, english.index - 40), english.index + 40)}"` : text.slice(0, 200));
  }
  await selectView(page, 'row');
  const row = await explorer(page).evaluate((e) => {
    const root = e.shadowRoot;
    return { sum: root.querySelector('.attention-row').dataset.sum, shown: root.querySelector('[data-role="row-sum"]').textContent,
      stats: [...root.querySelectorAll('.attention-row text')].map((t) => t.textContent).join(' | ') };
  });
  check(`French numbers: the row's \u03a3 is shown "${row.shown}", its data-sum stays machine-readable (${row.sum})`,
    row.shown === Number(row.sum).toFixed(3).replace('.', ',') && /^\d\.\d+/.test(row.sum) && row.stats.includes('\u03a3 = 1,000'), row.stats);
  await selectView(page, 'all-heads');
  const ratios = await explorer(page).locator('.cell-ratio, .cell-ratio-compact').allTextContents();
  check(`French numbers: the head grid's ratios are written 12,24\u00d7 (${ratios.slice(0, 3).join(' ')})`, ratios.length === 16 && ratios.every((r) => /^\d+,\d\d\u00d7$/.test(r)));
  await typeSentence(page, 'The cat sat on the [MASK] because it was tired.');
  await selectView(page, 'mask');
  const percents = await explorer(page).locator('.mlm-row text.val').allTextContents();
  check(`French numbers: percentages with a narrow no-break space (${percents.slice(0, 2).join(', ')})`, percents.length > 0 && percents.every((p) => /^\d+(,\d)?\u202f%$/.test(p)));
  const maskLine = await explorer(page).locator('.mask-line').first().textContent();
  check(`French: the [MASK] line under the sentence ("${maskLine.slice(0, 60)}\u2026")`, maskLine.includes('au token') && /\u00ab\u202f\S+\u202f\u00bb \d+/.test(maskLine));
  await page.locator('.language-switch button[value="en"]').click();
  await page.waitForFunction(() => document.querySelector('attention-explorer').shadowRoot.querySelector('.tab[data-view="row"]').textContent === 'Row', null, { timeout: 5000 }).catch(() => {});
  check('French: the page\'s switch turns page and explorer to English',
    (await explorer(page).locator('.tab[data-view="row"]').textContent()) === 'Row' && (await page.locator('h1:visible').textContent()) === 'Attention explorer');
  // The element's own lang wins over the page's; an unsupported one falls back to English, noted once.
  await andRedraw(page, () => explorer(page).evaluate((e) => e.setAttribute('lang', 'fr')));
  check('French: lang="fr" on the element redraws it in French', (await explorer(page).locator('.tab[data-view="row"]').textContent()) === 'Ligne');
  await andRedraw(page, () => explorer(page).evaluate((e) => e.setAttribute('lang', 'de')));
  await explorer(page).evaluate((e) => { e.setAttribute('lang', 'fr'); e.setAttribute('lang', 'de'); });
  await page.waitForTimeout(100);
  const german = notes.filter((n) => n.includes('"de"'));
  check(`French: lang="de" falls back to English with one console note (${german.length})`,
    (await explorer(page).locator('.tab[data-view="row"]').textContent()) === 'Row' && german.length === 1, notes.join(' | '));
  await explorer(page).evaluate((e) => e.removeAttribute('lang'));
  await andRedraw(page, () => page.evaluate(() => { document.documentElement.lang = 'fr'; }));
  check('French: with no lang of its own, the explorer follows <html lang> as it changes', (await explorer(page).locator('.tab[data-view="row"]').textContent()) === 'Ligne');
  check('French: no page errors', page.problems.length === 0, page.problems.join('; '));
  await page.context().close();
}

// Words that mark a sentence as English or as French (short, frequent, not shared).
export const ENGLISH_WORDS = new Set(['the', 'of', 'and', 'is', 'its', 'it', 'to', 'with', 'not', 'on', 'no', 'what', 'which', 'words', 'word', 'text', 'tokens of', 'model', 'head', 'heads', 'weight', 'rather', 'than', 'often', 'are', 'has', 'have', 'why', 'where', 'looks', 'held-out', 'trained', 'right', 'frequent']);

export const FRENCH_WORDS = new Set(['le', 'la', 'les', 'de', 'des', 'du', 'et', 'est', 'sur', 'un', 'une', 'pas', 'ne', 'son', 'sa', 'ses', 'leur', 'mots', 'mot', 'tête', 'têtes', 'poids', 'modèle', 'texte', 'aucune', 'où', 'pour', 'en', 'que', 'qui', 'entraîné', 'précision']);

/** The sentences of `texts` that read as English: at least three English marker words, more than French ones. */
export function englishSentences(texts) {
  return texts.flatMap((text) => text.split(/(?<=[.:;!?])\s+/)).filter((sentence) => {
    const words = sentence.toLowerCase().replace(/\u201c[^\u201d]*\u201d|\u00ab[^\u00bb]*\u00bb/g, ' ').split(/[^\p{L}'’-]+/u).filter(Boolean);
    const english = words.filter((w) => ENGLISH_WORDS.has(w)).length;
    const french = words.filter((w) => FRENCH_WORDS.has(w)).length;
    return english >= 3 && english > french;
  });
}

/** The texts of the open model card of explorer `index`: summary, labels, values, sentences. */
export async function cardTexts(page, index = 0) {
  return explorer(page, index).evaluate((e) => {
    const card = e.shadowRoot.querySelector('.model-card');
    card.open = true;
    return [...card.querySelectorAll('summary, p, dt, dd, li')].map((n) => n.textContent);
  });
}

/**
 * A French page with the model card open shows no English sentence, for the default model's
 * card and for a card of a model with positional heads; the detector itself fails on the
 * English card that files written before carry (a check that cannot fail is no check).
 * The sentences follow the measured roles: no positional head → said so with the recipe;
 * positional heads → named.
 */
export async function testFrenchCard() {
  const page = await newPage({ locale: 'fr-FR' });
  await page.goto(url(FILE, 'index.html?lang=fr') + '#view=row');
  await waitDrawn(page);
  const texts = await cardTexts(page);
  const english = englishSentences(texts);
  check('French card: no English sentence in the open model card (default model)', english.length === 0 && texts.length > 5, english.join(' | ') || texts.join(' | '));
  const joined = texts.join(' ');
  check('French card: the default model has no positional head, says so and points to the recipe',
    /Aucune tête positionnelle/.test(joined) && /bert-mini de Google/.test(joined) && /13\u202f017\u202f689 tokens de texte en anglais/.test(joined), joined);
  check('French card: the precision of the matrices is shown', /les 28 matrices en int8/.test(joined), joined);
  const roles = await explorer(page).evaluate((e) => {
    const card = { ...e.engine.modelCard() };
    card.head_previous = card.head_previous.map((v, i) => (i === 3 ? 0.93 : v));
    card.head_next = card.head_next.map((v, i) => (i === 4 || i === 9 ? 0.71 : v));
    e.engine.card = card;
    e.buildShapeControls();
    return card;
  });
  const positional = (await cardTexts(page)).join(' ');
  check('French card: positional heads are named (1.4 on the previous word; 2.1, 3.2 on the next)',
    /1 tête regarde le mot précédent \(1\.4\)/.test(positional) && /2 têtes regardent le mot suivant \(2\.1, 3\.2\)/.test(positional)
      && !/Aucune tête positionnelle/.test(positional) && englishSentences([positional]).length === 0, positional);
  await explorer(page).evaluate((e, card) => {
    e.engine.card = { name: card.name, trained_on: '13,017,689 tokens of English text', heldout_mlm_accuracy: 0.1424,
      limits: 'A small model: its masked-word guesses are often frequent words rather than the right one; attention weights show where the model looks, not why it decides.' };
    e.buildShapeControls();
  }, roles);
  const legacy = englishSentences(await cardTexts(page));
  check('French card: the English sentences of a card written before are caught by the check (and still shown)', legacy.length >= 2, legacy.join(' | '));
  check('French card: no page errors', page.problems.length === 0, page.problems.join('; '));
  await page.context().close();
}

/**
 * A cased model (weights format version 3: its tokenizer keeps capitals and accents) on a French
 * sentence, over http: the token strip shows the pieces exactly as the model sees them.
 */
export async function testCasedFrench() {
  const { makeCasedCheckpoint } = await import('../../../tools/make-cased-checkpoint.mjs');
  const { convert } = await import('../../../weights/convert.mjs');
  const dir = await mkdtemp(path.join(os.tmpdir(), 'attn-cased-page-'));
  try {
    makeCasedCheckpoint(path.join(dir, 'checkpoint'));
    await writeFile(path.join(dir, 'cased.bin'), convert({ checkpointDir: path.join(dir, 'checkpoint'), referenceCache: false, log: () => {} }).bytes);
    SERVED.set('/cased-model/', dir);
    const page = await newPage();
    const sentence = "Le chat s'est assis sur le tapis parce qu'il était fatigué.";
    await page.goto(`${HTTP}/bench/first-row.html?weights=${encodeURIComponent('/cased-model/cased.bin')}&sentence=${encodeURIComponent(sentence)}`);
    await waitDrawn(page);
    const strip = await explorer(page).evaluate((e) => [...e.shadowRoot.querySelectorAll('.tokens .token .piece')].map((p) => p.textContent));
    const { tokens } = await pageState(page);
    check(`cased model: the token strip shows accented, cased pieces as the model sees them (${strip.join(' ')})`,
      strip.join(' ') === tokens.join(' ') && ['Le', 'était', 'fatigué'].every((t) => strip.includes(t)) && !strip.includes('etait') && strip[1] === 'Le',
      JSON.stringify({ strip, tokens }));
    check('cased model: no page errors', page.problems.length === 0, page.problems.join('; '));
    await page.context().close();
  } finally {
    SERVED.delete('/cased-model/');
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * index.html's language switch writes ?lang= into the address (the hash kept), from file://
 * and over http, so that the link, shared or reloaded, opens in that language.
 */
export async function testLanguageAddress() {
  for (const [base, label] of [[FILE, 'file://'], [HTTP, 'http']]) {
    const page = await newPage({ locale: 'en-US' });
    await page.goto(url(base, 'index.html') + '#view=matrix&layer=2');
    await waitDrawn(page);
    await page.locator('.language-switch button[value="fr"]').click();
    const address = new URL(page.url());
    check(`language switch (${label}): ?lang=fr in the address, the hash kept (${address.search}${address.hash})`,
      address.searchParams.get('lang') === 'fr' && /view=matrix/.test(address.hash) && /layer=2/.test(address.hash), page.url());
    await page.reload();
    await waitDrawn(page);
    check(`language switch (${label}): the address opens in French in an English browser`,
      (await page.evaluate(() => document.documentElement.lang)) === 'fr' && (await explorer(page).locator('.tab[data-view="row"]').textContent()) === 'Ligne');
    await page.locator('.language-switch button[value="en"]').click();
    check(`language switch (${label}): back to English, ?lang=en`, new URL(page.url()).searchParams.get('lang') === 'en', page.url());
    check(`language switch (${label}): no page errors`, page.problems.length === 0, page.problems.join('; '));
    await page.context().close();
  }
}
