// Conditions both browser suites wait for in the page, written once: each runner hands them to
// its own driver (Playwright's page.waitForFunction / evaluate in Chromium, Puppeteer's in
// Firefox), which runs them in the page as they are written here.

/** Whether explorer `index` has run its current sentence to the end, with nothing queued, and drawn it. */
export function runDrawnInPage(index) {
  const e = document.querySelectorAll('attention-explorer')[index];
  return Boolean(e.run && !e.runJob && !e.frameQueued && e.parts.busy.hidden && e.session?.complete() &&
    e.parts.sentence.value === e.state.sentence && e.shadowRoot.querySelector('.figure-box svg, .figure-box .error'));
}

/** Resolves after two animation frames: a long figure draws the rows in sight in the first. */
export function twoFramesInPage() {
  return new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
}
