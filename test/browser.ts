// Browser tests: playwright-core driving Debian's Chromium (Playwright's own browser download cannot
// work here). `npm test` installs Chromium first (scripts/ensure-chromium.mjs); a missing one fails.
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/** Headless, nothing of its own on the network (no updates, sync or QUIC probes), no GPU. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
];

export interface BrowserSession {
  browser: Browser;
  page: Page;
  /** Closes the browser (Playwright then removes its profile). */
  close: () => Promise<void>;
}

/** A fresh Chromium with one page open. Playwright's launch gives it a new temporary user-data dir. */
export async function launchBrowser(options: { viewport?: { width: number; height: number } } = {}): Promise<BrowserSession> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `No Chromium at ${CHROMIUM_PATH}. Run the tests with \`npm test\` (it installs Debian's chromium when run as root), ` +
        'or `sudo apt-get install chromium`, or set CHROMIUM_PATH to a Chromium or Chrome binary.',
    );
  }
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage({ viewport: options.viewport ?? { width: 1280, height: 900 } });
    return { browser, page, close: () => browser.close() };
  } catch (err) {
    await browser.close();
    throw err;
  }
}
