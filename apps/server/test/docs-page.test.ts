// The human API reference at /api/v1/docs, in a real Chromium: it renders the operations of the served
// OpenAPI document, loads nothing from outside this server, and its CSP lets the bundle run (no
// violations). TLR_SCREENSHOTS=1 refreshes docs/screenshots/api-reference.png.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, type BrowserSession } from '../../../test/browser.ts';
import { client, startTestService } from './helpers.ts';
import { operationOf, operationsOf, servedDocument } from './openapi-document.ts';
import type { Service } from '../src/service.ts';

const SCREENSHOT = join(import.meta.dirname, '..', '..', '..', 'docs', 'screenshots', 'api-reference.png');

let svc: Service;
let browser: BrowserSession;

beforeAll(async () => {
  [svc, browser] = await Promise.all([startTestService(), launchBrowser({ viewport: { width: 1440, height: 900 } })]);
});
afterAll(async () => {
  await browser?.close();
  await svc?.stop();
});

describe('GET /api/v1/docs over HTTP', () => {
  it('is public HTML with a strict Content-Security-Policy and no caching', async () => {
    const res = await fetch(`${svc.url}/api/v1/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    const nonce = /script-src 'nonce-([A-Za-z0-9+/=]+)'/.exec(csp)?.[1];
    expect(nonce).toBeTruthy();
    // No 'unsafe-inline', no 'unsafe-eval', no host other than this one.
    expect(csp).not.toMatch(/unsafe|https?:|\*/);
    const html = await res.text();
    const scripts = [...html.matchAll(/<script nonce="([^"]+)" src="([^"]+)"><\/script>/g)];
    expect(scripts).toHaveLength(2);
    for (const [, n, src] of scripts) {
      expect(n).toBe(nonce);
      expect(src).toMatch(/^\/api\/v1\/docs\/assets\/[a-z.]+\.[0-9a-f]{16}\.js$/);
    }
    // A fresh nonce for every response.
    const again = await fetch(`${svc.url}/api/v1/docs`);
    expect(again.headers.get('content-security-policy')).not.toBe(csp);
  });

  it('serves the bundle from this server under a content-hashed name, cached for a year', async () => {
    const html = await (await fetch(`${svc.url}/api/v1/docs`)).text();
    const src = /src="(\/api\/v1\/docs\/assets\/redoc\.standalone\.[0-9a-f]+\.js)"/.exec(html)![1]!;
    const res = await fetch(`${svc.url}${src}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(res.headers.get('content-encoding')).toBe('gzip');
    const body = await res.text();
    expect(body.length).toBeGreaterThan(500_000);
    expect(body).not.toContain('cdn.redoc.ly');
  });

  it('answers an unknown asset with the usual 404, and /docs redirects to the page', async () => {
    const r = await client(svc.url).get('/docs/assets/nope.js');
    expect(r.status).toBe(404);
    expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const redirect = await fetch(`${svc.url}/docs`, { redirect: 'manual' });
    expect(redirect.status).toBe(301);
    expect(redirect.headers.get('location')).toBe('/api/v1/docs');
  });
});

describe('the API reference in Chromium', () => {
  it('renders the operations of our document and reaches nothing outside this server', async () => {
    const { page } = browser;
    const origin = new URL(svc.url).origin;
    const requests: string[] = [];
    const problems: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    page.on('console', (m) => {
      // CSP violations are reported as console errors.
      if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));

    const doc = await servedDocument(svc.url);
    const summaries = new Set(operationsOf(doc).flatMap(({ op }) => (op.summary ? [op.summary] : [])));
    expect(operationOf(doc, '/customers', 'post').summary).toBe('Create a customer');

    // The short address a newcomer tries first.
    const response = await page.goto(`${svc.url}/docs`);
    expect(response!.status()).toBe(200);
    expect(page.url()).toBe(`${origin}/api/v1/docs`);

    await page
      .locator('h2', { hasText: /^Create a customer\s*$/ })
      .first()
      // Redoc lays out the whole document (2 MB of JSON) before the first operation shows: 5 s on a quiet
      // machine, more than 30 s when the suite's other files hold both cores.
      .waitFor({ timeout: 100_000 })
      .catch(async (err: Error) => {
        // Say why: a CSP refusal or a script error shows up here, not in the timeout.
        throw new Error(
          `${err.message}\nconsole: ${JSON.stringify(problems, null, 1)}\nrequests: ${requests.join(' ')}\npage: ${(await page.locator('body').innerText()).slice(0, 500)}`,
        );
      });
    // The right panel names the path of the operation.
    await expect(page.getByText('/customers', { exact: true }).count()).resolves.toBeGreaterThan(0);
    // Every operation of the document is on the page, by its summary.
    const text = await page.locator('body').innerText();
    const missing = [...summaries].filter((s) => !text.includes(s));
    expect(missing).toEqual([]);
    expect(summaries.size).toBeGreaterThan(20);
    // Every section opens with its tag's description (packages/api/src/tags.ts), not with nothing.
    const { tags } = doc;
    expect(tags.length).toBeGreaterThan(10);
    const undescribed = tags.filter((t) => !text.includes(t.description.replace(/`/g, '').split('. ')[0]!)).map((t) => t.name);
    expect(undescribed).toEqual([]);

    const shot = await page.screenshot({ fullPage: false });
    expect(shot.subarray(1, 4).toString()).toBe('PNG');
    if (process.env.TLR_SCREENSHOTS === '1') {
      mkdirSync(join(SCREENSHOT, '..'), { recursive: true });
      writeFileSync(SCREENSHOT, shot);
    }

    // Network requests only: data: URLs (the empty favicon) never leave the page.
    const outside = requests.filter((u) => !u.startsWith('data:') && new URL(u).origin !== origin);
    expect(outside).toEqual([]);
    expect(requests).toContain(`${origin}/api/v1/openapi.json`);
    expect(problems).toEqual([]);
  }, 150_000);
});
