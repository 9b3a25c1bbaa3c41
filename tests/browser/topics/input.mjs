// What readers do with the page: the keyboard, script injection through the sentence, the URL
// hash (and its restore), long input, the element's attributes, touch on the Matrix view.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ATTENTION_BAR } from '../float64-reference.mjs';
import { layoutProblemsInPage } from '../layout.mjs';
import { FILE, OUT, andRedraw, check, explorer, float64, gotoHash, newPage, nodeSession, pageState, selectView, shot, typeSentence, url, viewValues, waitDrawn } from '../lib/session.mjs';
import { LONG_TEXT } from './layout.mjs';

export async function checkKeyboard(page, label) {
  const start = await pageState(page);
  await explorer(page).locator('textarea').first().focus();
  await page.keyboard.press('Tab');
  const focused = await page.evaluate(() => document.querySelector('attention-explorer').shadowRoot.activeElement?.className);
  check(`${label}: Tab from the sentence reaches the selected token`, /token/.test(focused || ''), focused);
  await andRedraw(page, () => page.keyboard.press('ArrowRight'));
  check(`${label}: ArrowRight selects the next token`, (await pageState(page)).token === start.token + 1);
  await andRedraw(page, () => page.keyboard.press('Home'));
  check(`${label}: Home selects [CLS] (token 0)`, (await pageState(page)).token === 0);
  await page.keyboard.press('Tab');
  await andRedraw(page, () => page.keyboard.press('ArrowRight'));
  check(`${label}: Tab reaches the layer picker; ArrowRight picks the next layer`, (await pageState(page)).layer === start.layer + 1);
  await page.keyboard.press('Tab');
  await andRedraw(page, () => page.keyboard.press('ArrowRight'));
  check(`${label}: Tab reaches the head picker; ArrowRight picks the next head`, (await pageState(page)).head === start.head + 1);
  await page.keyboard.press('Tab');
  await andRedraw(page, () => page.keyboard.press('ArrowRight'));
  const view = (await pageState(page)).view;
  check(`${label}: Tab reaches the view tabs; ArrowRight opens the next view`, view === 'all-heads', view);
  await page.keyboard.press('Tab');
  const cellFocused = await page.evaluate(() => document.querySelector('attention-explorer').shadowRoot.activeElement?.getAttribute('class'));
  check(`${label}: Tab reaches the selected head cell`, /head-cell/.test(cellFocused || ''), cellFocused);
  const before = await pageState(page);
  await andRedraw(page, () => page.keyboard.press('ArrowDown'));
  await andRedraw(page, () => page.keyboard.press('ArrowRight'));
  const after = await pageState(page);
  check(`${label}: arrow keys move through the head grid`, after.layer === Math.min(3, before.layer + 1) && after.head === Math.min(3, before.head + 1),
    `${before.layer},${before.head} → ${after.layer},${after.head}`);
}

export async function testKeyboard() {
  const page = await newPage();
  await page.goto(url(FILE, 'index.html'));
  await waitDrawn(page);
  await checkKeyboard(page, 'keyboard');
  await page.context().close();
}

export async function testInjection() {
  const page = await newPage();
  const attack = '<img src=x onerror=alert(1)><script>alert(2)</script>';
  await page.goto(url(FILE, 'index.html') + '#sentence=' + encodeURIComponent(attack) + '&view=matrix');
  await waitDrawn(page);
  await page.waitForTimeout(200);
  await typeSentence(page, '"><svg onload=alert(3)> <img src=x onerror=alert(1)>');
  for (const view of ['row', 'all-heads', 'compare', 'contributions']) await selectView(page, view);
  await page.waitForTimeout(300);
  const injected = await page.evaluate(() => {
    const root = document.querySelector('attention-explorer').shadowRoot;
    return root.querySelectorAll('img, script, foreignObject, iframe').length + document.querySelectorAll('img').length +
      root.querySelectorAll('svg svg[onload], [onerror], [onload]').length;
  });
  check('injection: a sentence like <img src=x onerror=alert(1)> creates no element and runs nothing', injected === 0 && page.dialogs === 0,
    `${injected} elements, ${page.dialogs} dialogs`);
  const tokens = await explorer(page).locator('.tokens').textContent();
  check('injection: the markup is shown as tokens (text)', tokens.includes('alert') && tokens.includes('<') && tokens.includes('onload'.slice(0, 2)));
  check('injection: no page errors', page.problems.length === 0, page.problems.join('; '));
  await page.context().close();
}

export async function testHash() {
  const page = await newPage();
  const sentence = 'A link should reproduce the view.';
  await page.goto(url(FILE, 'index.html') + `#sentence=${encodeURIComponent(sentence)}&layer=3&head=4&token=5&view=matrix`);
  await waitDrawn(page);
  const state = await pageState(page);
  check('hash: sentence, layer, head, token and view come from the URL',
    state.sentence === sentence && state.layer === 2 && state.head === 3 && state.token === 5 && state.view === 'matrix', JSON.stringify(state));
  const title = await explorer(page).locator('.fig-title').first().textContent();
  check('hash: the matrix view names its head', title.includes('Layer 3 · head 4'), title);
  const rows = await explorer(page).locator('.matrix-row').count();
  check('hash: the matrix has one row per token, each with data-sum', rows === state.n &&
    (await explorer(page).locator('.matrix-row[data-sum][data-ratio]').count()) === rows);
  await page.goto('about:blank');  // a fresh load of the address below (not a same-page hash change)
  await page.goto(url(FILE, 'index.html') + '#layer=9&head=-1&token=99999&view=evil&sentence=ok');
  await waitDrawn(page);
  const safe = await pageState(page);
  check('hash: out-of-range layer/head/token and unknown views are ignored',
    safe.layer >= 0 && safe.layer < 4 && safe.head >= 0 && safe.head < 4 && safe.token < safe.n && safe.view !== 'evil' && safe.sentence === 'ok',
    JSON.stringify({ layer: safe.layer, head: safe.head, token: safe.token, view: safe.view }));
  check('hash: no page errors', page.problems.length === 0, page.problems.join('; '));
  await page.context().close();
}

export async function testLongInput() {
  const page = await newPage();
  await page.goto(url(FILE, 'index.html'));
  await waitDrawn(page);
  const text = Array.from({ length: 700 }, (_, i) => ['the', 'cat', 'sat', 'on', 'a', 'mat'][i % 6]).join(' ');
  const full = nodeSession.runText(text).fullLength;
  await typeSentence(page, text);
  await page.waitForFunction(() => document.querySelector('attention-explorer').run?.n === 512, null, { timeout: 30000 });
  const notice = await explorer(page).locator('.notice').textContent();
  check(`long input: "${notice.trim()}"`, notice.includes('Truncated to 512 tokens') && notice.includes(`the text gives ${full}`), `expected ${full}`);
  await selectView(page, 'matrix');
  check('long input: the 512 × 512 matrix draws', (await explorer(page).locator('.matrix-image').count()) === 1);
  await selectView(page, 'row');
  // Typing in a long text must not freeze the page: the input stays responsive.
  const box = explorer(page).locator('textarea').first();
  await box.press('End');
  const started = Date.now();
  await page.keyboard.type(' dog', { delay: 20 });
  const typingMs = Date.now() - started;
  check(`long input: typing stays responsive (4 keys in ${typingMs} ms)`, typingMs < 1500);
  await page.waitForFunction(() => document.querySelector('attention-explorer').state.sentence.endsWith('dog'));
  await shot(page, 'long-input-row');
  check('long input: no page errors', page.problems.length === 0, page.problems.join('; '));
  await page.context().close();
}

export async function testAttributes() {
  await mkdir(OUT, { recursive: true });
  await writeFile(path.join(OUT, 'attributes.html'), '<!doctype html><meta charset="utf-8"><script src="../web/dist/attention-explorer.js" defer></script>\n' +
    '<attention-explorer sentence="It was late and it was cold." token="it#2" layer="0" head="5" view="heads"></attention-explorer>\n' +
    '<attention-explorer sentence="The cat sat on the mat." token="dog" whatif="maybe" theme="blue"></attention-explorer>\n' +
    '<attention-explorer sentence="The cat sat on the mat." token="cat" layer="2" head="3" view="lines"></attention-explorer>\n' +
    '<attention-explorer sentence="The cat sat on the mat." view="Why-Sqrt-D" theme="DARK" scale="Fixed" special="HIDE" whatif="ON"></attention-explorer>\n' +
    '<attention-explorer sentence="The cat sat on the mat." view="Grid"></attention-explorer>\n');
  const page = await newPage();
  const warnings = [];
  page.on('console', (message) => { if (message.type() === 'warning') warnings.push(message.text()); });
  await page.goto(`${FILE}/test-output/attributes.html`);
  await waitDrawn(page);
  const first = await pageState(page, 0);
  const second = await pageState(page, 1);
  const third = await pageState(page, 2);
  const tokensFirst = nodeSession.runText('It was late and it was cold.').tokens;
  const secondIt = tokensFirst.findIndex((t, i) => t === 'it' && i > tokensFirst.indexOf('it'));
  check(`attributes: token="it#2" picks the second "it" (token ${secondIt})`, first.token === secondIt, `${first.token}`);
  check('attributes: token="cat" picks the word "cat"; layer, head and view="lines" (the head view\'s older name) are used', third.token === 2 && third.layer === 1 && third.head === 2 && third.view === 'head-view',
    JSON.stringify({ token: third.token, layer: third.layer, head: third.head, view: third.view }));
  check('attributes: invalid layer="0", head="5", view="heads" fall back to layer 1, head 1, the row view', first.layer === 0 && first.head === 0 && first.view === 'row');
  const notice = (await explorer(page, 0).locator('.problems').textContent()).replace(/\s+/g, ' ');
  check('attributes: a visible notice names each invalid attribute and what is used instead',
    /layer=.*\u201c0\u201d.*layer 1/.test(notice) && /head=.*\u201c5\u201d.*head 1/.test(notice) && /view=.*\u201cheads\u201d.*row view/.test(notice), notice);
  const noticeSecond = (await explorer(page, 1).locator('.problems').textContent()).replace(/\s+/g, ' ');
  check('attributes: token="dog" (not in the sentence), whatif="maybe" and theme="blue" are named, with what is shown instead',
    /token=.*\u201cdog\u201d.*token 1 \u201cthe\u201d/.test(noticeSecond) && /whatif=.*\u201cmaybe\u201d/.test(noticeSecond) &&
    /theme=.*\u201cblue\u201d.*system setting/.test(noticeSecond) && second.token === 1, noticeSecond);
  check('attributes: the third explorer (all valid) shows no notice', await explorer(page, 2).locator('.problems').isHidden());
  const fourth = await pageState(page, 3), fifth = await pageState(page, 4);
  const dark = await explorer(page, 3).evaluate((e) => e.shadowRoot.querySelector('.explorer').classList.contains('theme-dark'));
  check('attributes: enumerated values in any case (view="Why-Sqrt-D", theme="DARK", scale="Fixed", special="HIDE", whatif="ON"; view="Grid", an older name)',
    fourth.view === 'why-sqrt-d' && dark && fourth.scale === 'fixed' && fourth.hideSpecial === true && fourth.whatIf === true && fifth.view === 'all-heads' &&
    (await explorer(page, 3).locator('.problems').isHidden()) && (await explorer(page, 4).locator('.problems').isHidden()),
    JSON.stringify({ view: fourth.view, dark, scale: fourth.scale, special: fourth.hideSpecial, whatIf: fourth.whatIf, fifth: fifth.view }));
  const named = ['layer=', 'head=', 'view=', 'token=', 'whatif=', 'theme='].filter((name) => warnings.some((w) => w.includes(name)));
  check(`attributes: a console warning for each invalid attribute (${named.join(' ')})`, named.length === 6, warnings.join(' | '));
  check('attributes: no page errors', page.problems.length === 0, page.problems.join('; '));
  // On a French page the notice is in French, with what is shown instead.
  await writeFile(path.join(OUT, 'attributes-fr.html'), '<!doctype html><html lang="fr"><meta charset="utf-8"><script src="../web/dist/attention-explorer.js" defer></script>\n' +
    '<attention-explorer sentence="The cat sat on the mat." layer="0" view="heads" theme="bleu"></attention-explorer>\n');
  await page.goto(`${FILE}/test-output/attributes-fr.html`);
  await waitDrawn(page);
  const french = (await explorer(page).locator('.problems').textContent()).replace(/\s+/g, ' ');
  check(`attributes: on a French page the notice is French ("${french.slice(0, 90)}\u2026")`,
    /n\u2019ont pas pu \u00eatre utilis\u00e9s/.test(french) && /layer=\u00ab\s0\s\u00bb \(attribut\) inutilisable\s; \u00e0 la place\s: la couche 1 \(ce mod\u00e8le a les couches 1\u20134\)/.test(french) &&
    /view=.*la vue row/.test(french) && /theme=.*r\u00e9glage du syst\u00e8me/.test(french), french);
  await page.context().close();
}

export async function testHashRestore() {
  const page = await newPage();
  const params = {
    sentence: 'The trophy did not fit in the suitcase because it was too big.', compare: 'The trophy did not fit in the suitcase because it was too small.',
    layer: '3', head: '2', token: 'it', view: 'scaling', rollout: '2', whatif: 'on', scale: 'fixed', special: 'hide',
  };
  await gotoHash(page, params);
  const state = await pageState(page);
  const itIndex = nodeSession.runText(params.sentence).tokens.indexOf('it');
  const restored = state.sentence === params.sentence && state.compareSentence === params.compare && state.layer === 2 && state.head === 1 &&
    state.token === itIndex && state.view === 'why-sqrt-d' && state.rolloutLayer === 1 && state.whatIf === true && state.scale === 'fixed' && state.hideSpecial === true;
  check('hash: every control (sentence, compare, layer, head, token as a word, view, rollout, whatif, scale, special) is restored', restored, JSON.stringify(state));
  check('hash: the what-if toggle is drawn on', await explorer(page).locator('.whatif-toggle').isChecked() && (await explorer(page).locator('.whatif-row').count()) === 1);
  await selectView(page, 'rollout');
  check('hash: the rollout layer picker shows layer 2', (await explorer(page).locator('.rollout-picker [aria-checked="true"]').textContent()) === '2');
  await andRedraw(page, () => explorer(page).locator('.rollout-picker button').nth(3).click());
  await page.waitForFunction(() => location.hash.includes('rollout=4'), null, { timeout: 3000 }).catch(() => {});
  const hash = await page.evaluate(() => location.hash);
  const written = ['compare=', 'rollout=4', 'whatif=on', 'scale=fixed', 'special=hide', 'view=rollout', `token=${itIndex}`].filter((p) => !hash.includes(p));
  check('hash: the URL keeps every control as it changes', written.length === 0, `missing ${written.join(', ')} in ${hash}`);
  // A new sentence keeps the chosen word when it is still there, not its index.
  await gotoHash(page, { sentence: 'The cat sat on the mat because it was tired.', token: 'it', view: 'row' });
  await typeSentence(page, 'Yesterday the old cat sat on the mat because it was tired.');
  const moved = await pageState(page);
  check('hash: after a new sentence the chosen word ("it") stays chosen, at its new index', moved.tokens[moved.token] === 'it', `${moved.token} ${moved.tokens[moved.token]}`);
  check('hash restore: no page errors', page.problems.length === 0, page.problems.join('; '));
  await page.context().close();
}

/** The matrix on a touch screen: tapping a cell shows its value; a 512-token matrix shows a readable window. */
export async function testMatrixTouch() {
  const page = await newPage({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
  const sentence = 'The cat sat on the mat because it was tired.';
  await gotoHash(page, { sentence, layer: 1, head: 2, token: 2, view: 'matrix' });
  const geometry = await explorer(page).evaluate((e) => {
    const cell = e.shadowRoot.querySelector('.matrix-row[data-token="5"] rect:nth-of-type(3)');
    cell.scrollIntoView({ block: 'center' });
    const box = cell.getBoundingClientRect();
    return { x: box.x + box.width / 2, y: box.y + box.height / 2, column: 2 };
  });
  await andRedraw(page, () => page.touchscreen.tap(geometry.x, geometry.y));
  const readout = await explorer(page).locator('.hover-readout').textContent();
  const value = (await viewValues.float64(page)).ref.row(0, 1, 5)[2];
  const shown = Number(/: ([\d.]+) \(/.exec(readout)?.[1]);
  check(`matrix: a tap on a cell shows its value ("${readout}", float64 ${value.toFixed(4)})`, readout.includes('row 5') && readout.includes('column 2') &&
    float64.see('matrix', 'tapped cell readout', Math.abs(shown - value), 5e-4 + ATTENTION_BAR), `${value}`);
  await gotoHash(page, { sentence: LONG_TEXT, layer: 1, head: 1, token: 300, view: 'matrix' });
  const cells = await explorer(page).locator('.matrix-row').count();
  const values = await explorer(page).locator('.cell-value').count();
  const overview = await explorer(page).locator('.matrix-image').count();
  check(`matrix, 512 tokens at 390 px: a window of ${cells} rows with a value in every cell, beside an overview of the whole matrix`,
    cells >= 8 && values === cells * cells && overview === 1 && (await explorer(page).locator('.matrix-row[data-token="300"]').count()) === 1);
  await shot(page, 'phone-matrix-512');
  // Zoom out step by step to the whole matrix, checking the layout at every step, then back in by key.
  const steps = [];
  for (let k = 0; k < 12 && await explorer(page).locator('.zoom-out').isEnabled(); k++) {
    await andRedraw(page, () => explorer(page).locator('.zoom-out').tap());
    const problems = await page.evaluate(layoutProblemsInPage, 0);
    steps.push(`${(await explorer(page).locator('.zoom-state').textContent()).split(' of ')[0]}${problems.length ? ' ' + problems[0] : ''}`);
  }
  const whole = (await explorer(page).locator('.zoom-state').textContent()).startsWith('512 \u00d7 512 of 512');
  check(`matrix, 512 tokens: zooming out shows ${steps.join(' → ')} with no overlapping or cut text`, whole && steps.every((s) => !s.includes('"')), steps.join(' | '));
  await shot(page, 'phone-matrix-512-whole');
  await explorer(page).locator('.figure-box svg').focus();
  await andRedraw(page, () => page.keyboard.press('+'));
  check('matrix: the + key zooms back in', (await explorer(page).locator('.zoom-state').textContent()) !== `512 \u00d7 512 of 512 \u00d7 512 tokens, values on tap or hover`);
  check('matrix touch: no page errors', page.problems.length === 0, page.problems.join('; '));
  await page.context().close();
}
