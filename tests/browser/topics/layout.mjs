// Layout: every view at every column width a course page gives it (320 to 1280 px), in English
// and French, light and dark, short and 512-token sentences: no overlapping or cut text, no
// sideways scroll; the model card's layout; compact controls; screenshots of every view
// (test-output/screenshots/, prefixed firefox- in Firefox).
import path from 'node:path';
import { VIEWS } from '../../../web/src/views/index.mjs';
import { layoutProblemsInPage } from '../layout.mjs';
import { andRedraw, browserName, check, closePage, explorer, FILE, gotoHash, newPage, pageState, selectView, shot, SHOTS, typeSentence, url, waitDrawn } from '../lib/session.mjs';

/**
 * The text boxes layoutProblemsInPage measures: Firefox's box of an SVG text is the font's cell
 * and more (tests/browser/layout.mjs), so there the glyphs' ink is measured.
 */
const TEXT_BOX = { chromium: 'font', firefox: 'ink' };
/**
 * The page's width around a column of `width`: a phone's viewport below 560 px, a desktop's
 * above. Firefox's checks have always been of a page as wide as the column (in a 1280 px page,
 * Firefox draws the head grid's captions over its Σ lines in a 560 px column).
 */
const pageWidth = (width) => (browserName === 'firefox' || width < 560 ? width : 1280);
/** The colour schemes of the layout checks: Firefox's pages are light (WebDriver BiDi emulates no media). */
const SCHEMES = { chromium: ['light', 'dark'], firefox: ['light'] };

export const VIEW_IDS = VIEWS.map((view) => view.id);

export const LONG_TEXT = Array.from({ length: 700 }, (_, i) => ['the', 'cat', 'sat', 'on', 'a', 'mat'][i % 6]).join(' ');

/** Column widths of the layout test: the full suite's, and the few of --core. */
export const LAYOUT_WIDTHS = [320, 390, 560, 620, 700, 900, 1280];

/** The widths screenshots are taken at: a phone's, a course column's, a desktop's. */
export const SHOT_WIDTHS = [390, 700, 1280];

/** The French widths of testLayoutFrench (in --core); the full suite's testLayout adds the others. */
export const FRENCH_CORE_WIDTHS = [390, 700, 1280];

/**
 * Every view at each width, in a column of that width (the explorer's own container, as in a
 * course page; in a phone's viewport below 560 px), for 3, 12 and 512 tokens in light mode and
 * for 12 tokens in dark mode (the theme changes colours and the words of two subtitles, not the
 * figures' geometry, which the token counts do): no two text boxes of a figure intersect, none is
 * cut by the figure or its box, nothing scrolls sideways. Screenshots: English at 390 px
 * (test-output/screenshots/phone-*.png), French at the widths of testScreenshots (fr-*.png).
 */
export async function layoutIn(lang, widths) {
  const sentences = [['3 tokens', 'Hello'], ['12 tokens', 'The cat sat on the mat because it was tired.'], ['512 tokens', LONG_TEXT]];
  const query = lang === 'en' ? '' : `?lang=${lang}`;
  const label = lang === 'en' ? '' : ` (${lang})`;
  for (const scheme of SCHEMES[browserName]) {
    const page = await newPage({ colorScheme: scheme, viewport: { width: 1280, height: 900 } });
    const counted = scheme === 'light' ? sentences : sentences.filter(([count]) => count === '12 tokens');
    await page.goto(url(FILE, `index.html${query}`) + '#view=row');
    await waitDrawn(page);
    if (lang !== 'en') {
      const tab = await explorer(page).locator('.tab[data-view="row"]').textContent();
      check(`layout${label}: the explorer speaks ${lang} (Row tab "${tab}")`, tab !== 'Row', tab);
    }
    for (const [count, sentence] of counted) {
      await typeSentence(page, sentence);
      await openModelCard(page);
      for (const width of widths) {
        await page.setViewportSize({ width: pageWidth(width), height: 844 });
        await explorer(page).evaluate((e, w) => { e.style.display = 'block'; e.style.width = `${w}px`; e.style.maxWidth = '100%'; }, width);
        await page.waitForTimeout(150);
        const failures = [];
        for (const view of VIEW_IDS) {
          await selectView(page, view);
          if (view === 'why-sqrt-d' && !(await explorer(page).locator('.whatif-toggle').isChecked())) {
            await andRedraw(page, () => explorer(page).locator('.whatif-toggle').check());
          }
          const problems = await page.evaluate(layoutProblemsInPage, [0, { box: TEXT_BOX[browserName] }]);
          if (problems.length) failures.push(`${view}: ${problems.slice(0, 3).join('; ')}`);
          const number = String(VIEW_IDS.indexOf(view) + 1).padStart(2, '0');
          if (lang === 'en' && width === 390 && count === '12 tokens') await shot(page, `phone-${scheme}-${number}-${view}`);
          if (lang !== 'en' && count === '12 tokens' && SHOT_WIDTHS.includes(width)) await shot(page, `${lang}-${width}-${scheme}-${number}-${view}`);
        }
        check(`layout${label} ${width} px, ${scheme}, ${count}: ${VIEW_IDS.length} views, no overlapping or cut text`, failures.length === 0, failures.join(' | '));
      }
    }
    check(`layout${label} ${scheme}: no page errors`, page.problems.length === 0, page.problems.join('; '));
    await closePage(page);
  }
}

/** Opens the model card (a <details>) under the explorer. */
export async function openModelCard(page, index = 0) {
  await explorer(page, index).evaluate((e) => { e.shadowRoot.querySelector('.model-card').open = true; });
}

/**
 * The model card open at every width of LAYOUT_WIDTHS, in English and French: it stays inside
 * the explorer and nothing scrolls sideways (the layout test's checks, on the Row view).
 * Screenshots of the French card: test-output/screenshots/card-fr-*.png.
 */
export async function testModelCardLayout() {
  for (const lang of ['en', 'fr']) {
    const page = await newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(url(FILE, `index.html?lang=${lang}`) + '#view=row&sentence=' + encodeURIComponent('The cat sat on the mat because it was tired.'));
    await waitDrawn(page);
    await openModelCard(page);
    for (const width of LAYOUT_WIDTHS) {
      await page.setViewportSize({ width: width < 560 ? width : 1280, height: 844 });
      await explorer(page).evaluate((e, w) => { e.style.display = 'block'; e.style.width = `${w}px`; e.style.maxWidth = '100%'; }, width);
      await page.waitForTimeout(150);
      const problems = await page.evaluate(layoutProblemsInPage, [0, { box: TEXT_BOX[browserName] }]);
      check(`model card (${lang}) open at ${width} px: inside the explorer, no sideways scroll`, problems.length === 0, problems.slice(0, 4).join('; '));
      if (lang === 'fr' && [320, 390, 700, 1280].includes(width)) {
        await explorer(page).locator('.model-card').screenshot({ path: path.join(SHOTS, `card-fr-${width}.png`) });
      }
    }
    check(`model card layout (${lang}): no page errors`, page.problems.length === 0, page.problems.join('; '));
    await closePage(page);
  }
}

/**
 * The full suite: the widths testLayoutColumns and testLayoutFrench leave, in each language, so
 * that with them every width of LAYOUT_WIDTHS is checked once in English and once in French.
 */
export async function testLayout() {
  await layoutIn('en', FRENCH_CORE_WIDTHS);
  await layoutIn('fr', LAYOUT_WIDTHS.filter((w) => !FRENCH_CORE_WIDTHS.includes(w)));
}

/** --core: the widths testLayoutFrench leaves, in English, so that the core set has every width
 * of LAYOUT_WIDTHS in one language (the full suite has them all in both). */
export async function testLayoutColumns() {
  await layoutIn('en', LAYOUT_WIDTHS.filter((w) => !FRENCH_CORE_WIDTHS.includes(w)));
}

export async function testLayoutFrench() {
  await layoutIn('fr', FRENCH_CORE_WIDTHS);
}

export async function testScreenshots() {
  const views = VIEW_IDS;
  for (const scheme of ['light', 'dark']) {
    const page = await newPage({ colorScheme: scheme });
    await page.goto(url(FILE, 'index.html') + '#sentence=' + encodeURIComponent('The cat sat on the mat because it was tired.') + '&layer=2&head=3&token=8&view=row');
    await waitDrawn(page);
    for (const width of SHOT_WIDTHS) {
      await page.setViewportSize({ width: width < 560 ? width : 1280, height: 900 });
      await explorer(page).evaluate((e, w) => { e.style.display = 'block'; e.style.width = `${w}px`; e.style.maxWidth = '100%'; }, width);
      for (const view of views) {
        if (view === 'mask') await typeSentence(page, 'The cat sat on the [MASK] because it was tired.');
        if (view === 'compare') await typeSentence(page, 'The cat sat on the mat because it was tired.');
        await selectView(page, view);
        if (view === 'why-sqrt-d' && !(await explorer(page).locator('.whatif-toggle').isChecked())) await andRedraw(page, () => explorer(page).locator('.whatif-toggle').check());
        if (view === 'matrix') await explorer(page).locator('.figure-box svg').hover({ position: { x: Math.min(300, width - 60), y: 260 } });
        if (view === 'head-importance') await explorer(page).locator('.imp-cell').first().waitFor({ timeout: 60000 });
        await shot(page, `${scheme}-${width}-${String(views.indexOf(view) + 1).padStart(2, '0')}-${view}`);
      }
    }
    check(`screenshots: ${views.length} views in ${scheme} mode, no page errors`, page.problems.length === 0, page.problems.join('; '));
    await closePage(page);
  }
  const phone = await newPage({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
  await phone.goto(url(FILE, 'index.html') + '#token=2&layer=1&head=1&view=row');
  await waitDrawn(phone);
  await shot(phone, 'phone-row', 0, true);
  await selectView(phone, 'all-heads');
  await shot(phone, 'phone-grid');
  const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  check('phone width (390 px): the page does not scroll sideways', overflow <= 0, `${overflow}px`);
  await closePage(phone);
}

// ---- honest readings, attributes, hash, head view, copying the files, model card -------------

/**
 * controls="none" and "compact": the figure stays, the sentence box, token strip and tabs go; the token is chosen on the figure (click, tap on a row) and from the keyboard
 * (the stepper); a figure-only explorer of a 12-token sentence fits one 390 × 844 phone screen.
 */
export async function testCompactControls() {
  const page = await newPage({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  await gotoHash(page, { sentence: 'The cat sat on the mat because it was tired.', view: 'row', token: 8 });
  await andRedraw(page, () => explorer(page).evaluate((e) => e.setAttribute('controls', 'NONE')));
  const sizes = await explorer(page).evaluate((e) => {
    const visible = (sel) => { const el = e.shadowRoot.querySelector(sel); return !!el && el.getClientRects().length > 0; };
    return { height: e.getBoundingClientRect().height, sentence: visible('textarea'), tokens: visible('.tokens'), tabs: visible('.tabs'), figure: visible('.figure-box svg') };
  });
  check(`controls="NONE": figure only (no sentence box, token strip or tabs), ${Math.round(sizes.height)} px tall at 390 px for 12 tokens (≤ 844)`,
    sizes.figure && !sizes.sentence && !sizes.tokens && !sizes.tabs && sizes.height <= 844, JSON.stringify(sizes));
  await page.waitForTimeout(100);
  const box = await explorer(page).locator('.figure-box svg').evaluate((svg) => ({ top: Number(svg.dataset.rowTop), row: Number(svg.dataset.rowHeight) }));
  await andRedraw(page, () => explorer(page).locator('.figure-box svg').tap({ position: { x: 60, y: box.top + 2.5 * box.row } }));
  check('controls="none": a tap on a row of the figure picks its token', (await pageState(page)).token === 2, String((await pageState(page)).token));
  await explorer(page).locator('.stepper-next').focus();
  await andRedraw(page, () => page.keyboard.press('ArrowRight'));
  check('controls="none": the arrow keys on the token stepper move the token', (await pageState(page)).token === 3);
  await andRedraw(page, () => explorer(page).evaluate((e) => e.setAttribute('controls', 'compact')));
  const compact = await explorer(page).evaluate((e) => ({ tabs: e.shadowRoot.querySelector('.tabs').getClientRects().length > 0, tokens: e.shadowRoot.querySelector('.tokens').getClientRects().length > 0 }));
  check('controls="compact": tabs and token strip dropped', !compact.tabs && !compact.tokens, JSON.stringify(compact));
  await andRedraw(page, () => explorer(page).evaluate((e) => e.setAttribute('controls', 'tiny')));
  const notice = await explorer(page).locator('.problems').textContent();
  check('controls="tiny" is reported, the full controls used', /controls=/.test(notice) && await explorer(page).locator('.tokens').isVisible(), notice);
  check('compact controls: no page errors', page.problems.length === 0, page.problems.join('; '));
  await closePage(page);
}

/**
 * controls="compact" is one phone screen: at 390 × 844, in English and French, a 12-token
 * sentence gives the layer and head pickers and the token stepper on one line above the figure,
 * the figure, and one line of reading (Σ, ratio, effective tokens: the engine's row statistics);
 * no sentence box, tabs, notes, buttons or card; the explorer's height is measured.
 * Screenshots: test-output/screenshots/compact-{en,fr}-390.png.
 */
export async function testCompactHeight() {
  for (const lang of ['en', 'fr']) {
    const page = await newPage({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    await page.goto(url(FILE, `index.html?lang=${lang}`) + '#view=row&layer=2&head=3&token=8&sentence=' + encodeURIComponent('The cat sat on the mat because it was tired.'));
    await waitDrawn(page);
    await andRedraw(page, () => explorer(page).evaluate((e) => e.setAttribute('controls', 'compact')));
    const m = await explorer(page).evaluate((e) => {
      const root = e.shadowRoot;
      const shown = (sel) => [...root.querySelectorAll(sel)].some((el) => el.getClientRects().length > 0);
      const rect = (sel) => root.querySelector(sel).getBoundingClientRect();
      const line = root.querySelector('.compact-reading');
      const lineHeight = parseFloat(getComputedStyle(line).lineHeight) || 20;
      const stepper = rect('.token-stepper'), layer = rect('.layer-picker'), head = rect('.head-picker'), figure = rect('.figure-box svg');
      const rowStats = e.session.rowStats(e.state.layer, e.state.head, e.state.token);
      return {
        height: e.getBoundingClientRect().height, n: e.run.n,
        oneLine: Math.max(stepper.top, layer.top, head.top) < Math.min(stepper.bottom, layer.bottom, head.bottom),
        aboveFigure: Math.max(stepper.bottom, layer.bottom, head.bottom) <= figure.top + 1,
        readingLines: Math.round(line.getBoundingClientRect().height / lineHeight), readingBelow: line.getBoundingClientRect().top >= figure.bottom - 1,
        reading: line.textContent, sum: Number(line.dataset.sum), effective: Number(line.dataset.effective), expected: rowStats,
        hidden: ['textarea', '.tokens', '.tabs', '.view-controls', '.notes', '.actions', '.model-card'].filter((sel) => shown(sel)),
        sideways: root.querySelector('.explorer').scrollWidth > root.querySelector('.explorer').clientWidth + 1 || document.scrollingElement.scrollWidth > document.scrollingElement.clientWidth + 1,
      };
    });
    check(`controls="compact" (${lang}): ${m.n} tokens, ${Math.round(m.height)} px tall at 390 px (one 390 × 844 screen)`, m.n >= 12 && m.height <= 844, JSON.stringify(m));
    check(`controls="compact" (${lang}): layer and head pickers and the token stepper on one line above the figure`, m.oneLine && m.aboveFigure, JSON.stringify(m));
    check(`controls="compact" (${lang}): one line of reading under the figure: "${m.reading}"`, m.readingLines === 1 && m.readingBelow
      && m.sum === m.expected.sum && m.effective === m.expected.effective && /\u03a3 = 1[.,]000/.test(m.reading) && m.reading.includes(lang === 'fr' ? 'tokens effectifs' : 'effective tokens'), JSON.stringify(m));
    check(`controls="compact" (${lang}): no sentence box, tabs, view controls, notes, buttons or card; no sideways scroll`, m.hidden.length === 0 && !m.sideways, JSON.stringify(m));
    await shot(page, `compact-${lang}-390`);
    await andRedraw(page, () => explorer(page).locator('.stepper-next').click());
    check(`controls="compact" (${lang}): the stepper moves the token`, (await pageState(page)).token === 9);
    check(`controls="compact" (${lang}): no page errors`, page.problems.length === 0, page.problems.join('; '));
    await closePage(page);
  }
}

/** index.html as a reader opens it, at a phone's and a desktop's width (index-390.png, index-1280.png). */
export async function testIndexScreenshots() {
  for (const width of [390, 1280]) {
    const page = await newPage({ viewport: { width, height: width === 390 ? 844 : 900 } });
    await page.goto(url(FILE, 'index.html'));
    await waitDrawn(page);
    await shot(page, `index-${width}`, 0, true);
    check(`screenshot: index.html at ${width} px (index-${width}.png), no page errors`, page.problems.length === 0, page.problems.join('; '));
    await closePage(page);
  }
}
