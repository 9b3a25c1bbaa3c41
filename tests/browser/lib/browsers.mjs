// The two browsers of the browser suite, launched and given pages that answer the same calls:
// Chromium through npm `playwright-core`, Debian's firefox-esr through npm `puppeteer-core`
// over WebDriver BiDi (no browser is downloaded). A Firefox page is wrapped so that the calls
// the tests make read as Playwright's: waitForFunction(fn, arg, options), setViewportSize,
// addInitScript, waitForTimeout, context().close(). Every page records the requests it makes
// (`network`: any outside file://, data:, blob: and the local server fails the suite), its
// page errors and console errors (`page.problems`).
import net from 'node:net';
import { chromium } from 'playwright-core';
import puppeteer from 'puppeteer-core';

export const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const FIREFOX = process.env.FIREFOX || '/usr/bin/firefox-esr';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--no-first-run'];
const VIEWPORT = { width: 1100, height: 900 };

/** Launches `name` ('chromium' or 'firefox'); `http` is the local server's origin. */
export function launchBrowser(name, http) {
  const isLocal = (address) => ['file:', 'data:', 'blob:', 'about:'].some((p) => address.startsWith(p)) || address.startsWith(http + '/');
  const network = { total: 0, outside: [], proxied: [] };
  if (name === 'chromium') return launchChromium(isLocal, network);
  if (name === 'firefox') return launchFirefox(isLocal, network);
  throw new Error(`BROWSER=${name}: the suite runs in chromium or firefox`);
}

/** What every page records, whatever its browser. */
async function watchPage(page, isLocal, network, addInitScript) {
  page.problems = [];
  page.dialogs = 0;
  page.on('request', (request) => {
    network.total++;
    if (!isLocal(request.url())) network.outside.push(request.url());
  });
  page.on('pageerror', (error) => page.problems.push(`page error: ${error.message}`));
  page.on('console', (message) => { if (message.type() === 'error') page.problems.push(`console: ${message.text()}`); });
  page.on('dialog', (dialog) => { page.dialogs++; dialog.dismiss(); });
  // Resources that failed to load (from file:// Firefox reports no request, only the element's error event).
  await addInitScript(() => {
    window.__failedLoads = [];
    window.__cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) => window.__cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`));
    window.addEventListener('error', (e) => { if (e.target !== window) window.__failedLoads.push(e.target.src || e.target.href || e.target.tagName); }, true);
  });
}

/** Chromium with the suite's arguments, as Playwright's browser, for the runners that make their own pages. */
export const startChromium = () => chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });

async function launchChromium(isLocal, network) {
  const browser = await startChromium();
  async function newPage(options = {}) {
    const context = await browser.newContext({ viewport: VIEWPORT, acceptDownloads: true, ...options });
    const page = await context.newPage();
    await context.route((u) => !isLocal(u.href), (route) => route.abort());
    await watchPage(page, isLocal, network, (fn) => page.addInitScript(fn));
    return page;
  }
  return { name: 'chromium', browser, network, newPage, version: `Chromium ${browser.version()} (${CHROMIUM}), playwright-core`,
    close: () => browser.close(), networkChecks: () => [] };
}

async function launchFirefox(isLocal, network) {
  const sink = await startSink(network);
  // MOZ_DISABLE_NONLOCAL_CONNECTIONS is Firefox's own switch for test runs: it refuses non-local
  // connections and lets the profile point remote settings at nothing (a release build ignores
  // that preference otherwise).
  const browser = await puppeteer.launch({
    browser: 'firefox', executablePath: FIREFOX, headless: true, protocol: 'webDriverBiDi',
    env: { ...process.env, MOZ_DISABLE_NONLOCAL_CONNECTIONS: '1' }, extraPrefsFirefox: preferences(sink),
    defaultViewport: VIEWPORT, timeout: 90000,
  }).catch((error) => {
    sink.close();
    throw new Error(`${FIREFOX} does not start (${error.message.split('\n')[0]}); tools/install-deps.sh installs Debian's firefox-esr`);
  });
  async function newPage({ viewport, colorScheme, ...rest } = {}) {
    if (Object.keys(rest).length) throw new Error(`firefox pages: no option ${Object.keys(rest).join(', ')} (a Chromium-only test)`);
    const context = await browser.createBrowserContext();
    const raw = await context.newPage();
    if (viewport) await raw.setViewport(viewport);
    // WebDriver BiDi has no media emulation: Firefox's pages are light.
    if (colorScheme && colorScheme !== 'light') throw new Error(`firefox pages: no colorScheme ${colorScheme} (WebDriver BiDi emulates none)`);
    await watchPage(raw, isLocal, network, (fn) => raw.evaluateOnNewDocument(fn));
    return asPlaywrightPage(raw, () => closeFirefoxPage(raw, isLocal, network));
  }
  return {
    name: 'firefox', browser, network, newPage, version: `${await browser.version()} (${FIREFOX}), puppeteer-core over WebDriver BiDi`,
    close: async () => { await browser.close(); sink.close(); },
    networkChecks: () => [[`network: no connection reached the proxy sink (Firefox's own traffic included)`, network.proxied.length === 0,
      [...new Set(network.proxied)].slice(0, 5).join(', ')]],
  };
}

/** Every resource the page loaded must be local (Firefox reports no request for some); then its context is closed. */
async function closeFirefoxPage(raw, isLocal, network) {
  const loaded = await raw.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name)).catch(() => []);
  network.total += loaded.length;
  network.outside.push(...loaded.filter((address) => !isLocal(address)));
  await raw.browserContext().close();
}

/** A puppeteer page answering the Playwright calls the tests make; `page.raw` is the page itself. */
function asPlaywrightPage(raw, close) {
  const calls = {
    raw,
    waitForFunction: (fn, arg, options = {}) => raw.waitForFunction(fn, { polling: 50, ...options }, arg),
    setViewportSize: (size) => raw.setViewport(size),
    viewportSize: () => raw.viewport(),
    addInitScript: (fn) => raw.evaluateOnNewDocument(fn),
    waitForTimeout: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    context: () => ({ close }),
  };
  return new Proxy(raw, {
    get(target, property) {
      if (Object.hasOwn(calls, property)) return calls[property];
      const value = Reflect.get(target, property);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** Firefox's proxy: records the first line of every connection (CONNECT host:443, GET http://…) and refuses it. */
function startSink(network) {
  const sink = net.createServer((socket) => {
    socket.on('error', () => {});
    socket.once('data', (data) => {
      network.proxied.push(data.toString('latin1').split('\r\n')[0]);
      socket.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
    });
  });
  return new Promise((resolve) => sink.listen(0, '127.0.0.1', () => resolve(sink)));
}

/**
 * The profile's preferences beyond puppeteer's own (which already turn off safebrowsing,
 * search updates, data reporting, …). Every outside connection goes to the sink (loopback
 * addresses are never proxied); the background services that would make one are off.
 * file:// keeps Firefox's default origin policy (puppeteer relaxes it), so the page loads
 * from file:// as a reader's Firefox loads it.
 */
const preferences = (sink) => ({
  'network.proxy.type': 1,
  'network.proxy.http': '127.0.0.1', 'network.proxy.http_port': sink.address().port,
  'network.proxy.ssl': '127.0.0.1', 'network.proxy.ssl_port': sink.address().port,
  'network.proxy.no_proxies_on': '',
  'network.proxy.allow_hijacking_localhost': false,
  'security.fileuri.strict_origin_policy': true,
  'app.update.auto': false, 'app.update.enabled': false, 'app.update.staging.enabled': false,
  'toolkit.telemetry.enabled': false, 'toolkit.telemetry.unified': false, 'toolkit.telemetry.archive.enabled': false,
  'toolkit.telemetry.server': '', 'toolkit.telemetry.updatePing.enabled': false, 'toolkit.telemetry.firstShutdownPing.enabled': false,
  'toolkit.telemetry.newProfilePing.enabled': false, 'toolkit.telemetry.shutdownPingSender.enabled': false,
  'datareporting.usage.uploadEnabled': false, 'browser.ping-centre.telemetry': false,
  'network.captive-portal-service.enabled': false, 'captivedetect.canonicalURL': '',
  'network.connectivity-service.enabled': false,
  'network.trr.mode': 5, 'network.dns.disablePrefetch': true, 'network.prefetch-next': false, 'network.predictor.enabled': false,
  'browser.safebrowsing.provider.google4.updateURL': '', 'browser.safebrowsing.provider.mozilla.updateURL': '',
  'browser.safebrowsing.provider.google.updateURL': '', 'browser.safebrowsing.update.enabled': false,
  'app.normandy.enabled': false, 'app.shield.optoutstudies.enabled': false, 'messaging-system.rsexperimentloader.enabled': false,
  'extensions.blocklist.enabled': false, 'extensions.systemAddon.update.enabled': false, 'extensions.getAddons.showPane': false,
  'browser.region.network.url': '', 'browser.region.update.enabled': false, 'browser.search.geoip.url': '',
  'geo.provider.network.url': '', 'media.gmp-gmpopenh264.enabled': false, 'media.gmp-widevinecdm.enabled': false,
  'security.OCSP.enabled': 0, 'security.remote_settings.crlite_filters.enabled': false,
  'security.remote_settings.intermediates.enabled': false, 'browser.newtabpage.activity-stream.feeds.telemetry': false,
  'browser.newtabpage.activity-stream.telemetry': false, 'browser.discovery.enabled': false,
  'privacy.query_stripping.enabled': false, 'browser.topsites.contile.enabled': false,
  // Scrollbars overlay the page, as in Firefox for Android and on Linux and macOS desktops: a 390 px
  // viewport is a 390 px page, as in the Chromium suite (headless Chromium shows no scrollbars).
  'ui.useOverlayScrollbars': 1,
  'browser.chrome.site_icons': false,  // no /favicon.ico request: a page's own failed requests are what the checks count
});
