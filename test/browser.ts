// Browser tests: playwright-core driving Debian's Chromium (Playwright's own browser download cannot
// work here). `npm test` installs Chromium first (scripts/ensure-chromium.mjs); a missing one fails.
// One Chromium serves the whole run (launched by test/global-setup.ts); each file connects to it and
// each test works in a context of its own (a fresh profile: no cookies, no storage).
import { randomInt } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inject } from 'vitest';
import { chromium, type Browser, type BrowserServer, type Page } from 'playwright-core';

const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/** Headless, nothing of its own on the network (no updates, sync or QUIC probes), no GPU. */
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
];

const missing = () =>
  new Error(
    `No Chromium at ${CHROMIUM_PATH}. Run the tests with \`npm test\` (it installs Debian's chromium when run as root), ` +
      'or `sudo apt-get install chromium`, or set CHROMIUM_PATH to a Chromium or Chrome binary.',
  );

/** The run's Chromium (global set-up), or undefined when the machine has none: the browser tests then fail saying so. */
export async function launchBrowserServer(): Promise<BrowserServer | undefined> {
  if (!existsSync(CHROMIUM_PATH)) return undefined;
  return chromium.launchServer({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
}

export interface BrowserSession {
  browser: Browser;
  page: Page;
  /** Ends this file's connection to the run's Chromium (its contexts and pages go with it). */
  close: () => Promise<void>;
}

/** A connection to the run's Chromium with one page open in a fresh context. */
export async function launchBrowser(options: { viewport?: { width: number; height: number } } = {}): Promise<BrowserSession> {
  const endpoint = inject('browserEndpoint');
  if (!endpoint) throw missing();
  const browser = await chromium.connect(endpoint);
  try {
    const context = await browser.newContext({ viewport: options.viewport ?? { width: 1280, height: 900 } });
    const page = await context.newPage();
    return { browser, page, close: () => browser.close() };
  } catch (err) {
    await browser.close();
    throw err;
  }
}

/**
 * A fresh profile (no cookies) that comes from an address of its own: sign-in is throttled per address,
 * and a service started with TRUST_PROXY=loopback takes X-Forwarded-For from the test as from a proxy
 * (`address`: a random one unless given). `problems`
 * collects console errors and warnings (a CSP violation is one) and page errors; Chromium's line for
 * every non-2xx page it loads is left out, since some steps expect one.
 */
export async function freshPage(
  browser: Browser,
  address = `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`,
): Promise<{ page: Page; problems: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, extraHTTPHeaders: { 'X-Forwarded-For': address } });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (m) => {
    if ((m.type() === 'error' || m.type() === 'warning') && !m.text().startsWith('Failed to load resource: the server responded with a status of')) {
      problems.push(`${m.type()}: ${m.text()}`);
    }
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  return { page, problems };
}

const SCREENSHOTS = join(import.meta.dirname, '..', 'docs', 'screenshots');

/** A PNG of the page; with TLR_SCREENSHOTS=1 it replaces docs/screenshots/<name>.png. */
export async function screenshot(page: Page, name: string, fullPage = false): Promise<void> {
  const png = await page.screenshot({ fullPage });
  if (png.subarray(1, 4).toString() !== 'PNG') throw new Error(`The screenshot ${name} is not a PNG.`);
  if (process.env.TLR_SCREENSHOTS === '1') {
    mkdirSync(SCREENSHOTS, { recursive: true });
    writeFileSync(join(SCREENSHOTS, `${name}.png`), png);
  }
}
