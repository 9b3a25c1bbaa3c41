// Playwright-style locators over a puppeteer page, scoped to the shadow root of one
// <attention-explorer>, so that the checks written for the Chromium suite
// (tests/browser/view-values.mjs) read the page the same way in another browser:
// explorer(page, i).locator(css).first().textContent(), .evaluateAll(fn), .click(), …
// Reads and actions wait up to WAIT_MS for a matching element, as Playwright's do.

const WAIT_MS = 10000;

/** The explorer element number `index` on the page, with evaluate, locator and screenshot. */
export function explorerOf(page, index = 0) {
  const host = () => page.evaluateHandle((i) => document.querySelectorAll('attention-explorer')[i], index);
  return {
    evaluate: (fn, arg) => using(host(), (h) => h.evaluate(fn, arg)),
    locator: (selector) => locator(page, index, selector, null),
    screenshot: (options) => using(host(), (h) => h.screenshot(options)),
  };
}

async function using(handlePromise, use) {
  const handle = await handlePromise;
  try {
    return await use(handle);
  } finally {
    await handle.dispose().catch(() => {});
  }
}

function locator(page, index, selector, nth) {
  const all = () => page.evaluateHandle((i, css) =>
    [...(document.querySelectorAll('attention-explorer')[i]?.shadowRoot?.querySelectorAll(css) ?? [])], index, selector);
  /** The element (the first unless nth is set), once it exists. */
  async function element() {
    await page.waitForFunction((i, css, k) => !!document.querySelectorAll('attention-explorer')[i]?.shadowRoot?.querySelectorAll(css)[k],
      { timeout: WAIT_MS, polling: 50 }, index, selector, nth ?? 0).catch(() => {
      throw new Error(`no element ${selector}${nth ? ` #${nth}` : ''} in explorer ${index} after ${WAIT_MS} ms`);
    });
    return page.evaluateHandle((i, css, k) => document.querySelectorAll('attention-explorer')[i].shadowRoot.querySelectorAll(css)[k],
      index, selector, nth ?? 0);
  }
  const onElement = (use) => using(element(), use);
  return {
    first: () => locator(page, index, selector, 0),
    nth: (k) => locator(page, index, selector, k),
    count: () => using(all(), (h) => h.evaluate((list) => list.length)),
    evaluateAll: (fn, arg) => using(all(), (h) => h.evaluate(fn, arg)),
    allTextContents: () => using(all(), (h) => h.evaluate((list) => list.map((e) => e.textContent))),
    evaluate: (fn, arg) => onElement((h) => h.evaluate(fn, arg)),
    textContent: () => onElement((h) => h.evaluate((e) => e.textContent)),
    isChecked: () => onElement((h) => h.evaluate((e) => e.checked)),
    isEnabled: () => onElement((h) => h.evaluate((e) => !e.disabled)),
    click: () => onElement((h) => h.click()),
    focus: () => onElement((h) => h.focus()),
    check: () => onElement(async (h) => { if (!(await h.evaluate((e) => e.checked))) await h.click(); }),
    /** Sets the value as a user's paste would, with one input event (Playwright's fill). */
    fill: (value) => onElement((h) => h.evaluate((e, v) => {
      e.focus();
      e.value = v;
      e.dispatchEvent(new InputEvent('input', { bubbles: true, composed: true, inputType: 'insertFromPaste', data: v }));
    }, value)),
    screenshot: (options) => onElement((h) => h.screenshot(options)),
    /** Waits until the element exists ({ state: 'visible' }: and is shown), as Playwright's waitFor. */
    waitFor: ({ state = 'attached', timeout = WAIT_MS } = {}) => page.waitForFunction((i, css, k, visible) => {
      const e = document.querySelectorAll('attention-explorer')[i]?.shadowRoot?.querySelectorAll(css)[k];
      return !!e && (!visible || e.checkVisibility());
    }, { timeout, polling: 50 }, index, selector, nth ?? 0, state === 'visible').then(() => {}),
  };
}
