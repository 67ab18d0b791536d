// The owner pages in a real Chromium (docs/owner-pages.md): sign-in, the OAuth consent page with a
// partner's callback served by this test, API keys (shown once, working on the API, revoked) and
// connected apps (a revoked grant's bearer token stops working), the company page (the seller and its
// CVR, refused by field and rule), the e-mail texts page (a placeholder refused by field). The pages must raise no console error
// (a CSP violation is one). TLR_SCREENSHOTS=1 refreshes the seven screenshots under docs/screenshots/.
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCaller } from '@tlr/api';
import { freshPage as isolatedPage, launchBrowser, screenshot as saveScreenshot, type BrowserSession } from '../../../test/browser.ts';
import { api, bodyOf, idem, newCompany, oauthApi, ok, pkcePair, startTestService, testDb } from './helpers.ts';
import type { Service } from '../src/service.ts';

const PASSWORD = 'correct horse battery';

// Not the useCompany fixture: the owner starts without a key, as the API keys page and its
// screenshots show it.
let svc: Service;
let owner: Awaited<ReturnType<typeof newCompany>>;
let browser: BrowserSession;
let callbackServer: Server;
let callbackUrl: string;
/** Every request the partner's callback received: its query, and its Referer header (there must be none). */
const callbacks: { query: URLSearchParams; referer: string | undefined }[] = [];

beforeAll(async () => {
  callbackServer = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://callback');
    // Not the favicon Chromium asks the partner's site for after the page loaded.
    if (url.pathname === '/callback') callbacks.push({ query: url.searchParams, referer: req.headers.referer });
    res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><title>Partner</title><p>Callback received.</p>');
  });
  await new Promise<void>((resolve) => callbackServer.listen(0, '127.0.0.1', resolve));
  callbackUrl = `http://127.0.0.1:${(callbackServer.address() as AddressInfo).port}/callback`;
  [svc, browser, owner] = await Promise.all([
    // Behind a proxy on loopback: each fresh page comes from an address of its own (test/browser.ts).
    startTestService({ OAUTH_ALLOW_HTTP_LOCALHOST: 'true', TRUST_PROXY: 'loopback' }),
    launchBrowser({ viewport: { width: 1280, height: 800 } }),
    newCompany('Nordlys Regnskab ApS'),
  ]);
});
afterAll(async () => {
  await browser?.close();
  await svc?.stop();
  await new Promise((resolve) => callbackServer?.close(resolve));
});

const freshPage = () => isolatedPage(browser.browser);
const screenshot = (page: Page, name: string) => saveScreenshot(page, name);

async function signIn(page: Page, password = PASSWORD) {
  await page.getByLabel('Email').fill(owner.email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

async function signedInPage() {
  const p = await freshPage();
  await p.page.goto(`${svc.url}/signin`);
  await signIn(p.page);
  await p.page.waitForURL(`${svc.url}/settings/api-keys`);
  return p;
}

describe('sign-in', () => {
  it('refuses a wrong password with a message, then signs in and returns to the page asked for', async () => {
    const { page, problems } = await freshPage();
    await page.goto(`${svc.url}/settings/connected-apps`);
    expect(page.url()).toBe(`${svc.url}/signin?return_to=%2Fsettings%2Fconnected-apps`);
    await screenshot(page, 'signin');

    await signIn(page, 'not the password');
    await expect(page.getByRole('alert').innerText()).resolves.toBe('The e-mail or password is not right.');
    // The e-mail typed stays in the form; the password does not.
    await expect(page.getByLabel('Email').inputValue()).resolves.toBe(owner.email);
    await expect(page.getByLabel('Password').inputValue()).resolves.toBe('');

    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${svc.url}/settings/connected-apps`);
    await expect(page.getByRole('heading', { level: 1 }).innerText()).resolves.toBe('Connected apps');
    const cookies = await page.context().cookies();
    expect(cookies.find((c) => c.name === 'tlr_session')).toMatchObject({ httpOnly: true, sameSite: 'Lax', secure: false, path: '/', expires: -1 });
    // The device cookie (decision 174): this browser signed in to this account, for 180 days.
    const device = cookies.find((c) => c.name === 'tlr_device')!;
    expect(device).toMatchObject({ httpOnly: true, sameSite: 'Lax', secure: false, path: '/' });
    expect(device.value).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(device.expires * 1000 - Date.now()).toBeGreaterThan(179 * 24 * 3600 * 1000);

    // Signing out ends the session: the settings pages ask for a sign-in again. The device cookie stays.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${svc.url}/signin`);
    await page.goto(`${svc.url}/settings/api-keys`);
    expect(page.url()).toBe(`${svc.url}/signin?return_to=%2Fsettings%2Fapi-keys`);
    expect((await page.context().cookies()).find((c) => c.name === 'tlr_device')?.value).toBe(device.value);
    expect(problems).toEqual([]);
  });
});

describe('API keys page', () => {
  /** Fills in the page's form for a key and sends it. */
  async function createKey(page: Page, name: string, scopes: string[], mode: 'Live' | 'Test') {
    await page.getByLabel('Name').fill(name);
    for (const scope of scopes) await page.getByLabel(scope, { exact: true }).check();
    await page.getByLabel(mode).check();
    await page.getByRole('button', { name: 'Create key' }).click();
  }

  it('creates a live key shown once that works on the API, lists it without the key, and revokes it', async () => {
    const { page, problems } = await signedInPage();
    await createKey(page, 'Bank sync', ['customers:read', 'invoices:read'], 'Live');

    await expect(page.getByRole('alert').innerText()).resolves.toContain('It will not be shown again');
    const key = await page.locator('#new-key').innerText();
    expect(key).toMatch(/^tlr_live_[0-9a-f]{48}$/);
    await screenshot(page, 'api-key-created');
    const bank = api(svc.url, key);
    expect((await bank.GET('/customers')).response.status).toBe(200);
    // Only within its scopes.
    expect((await bank.GET('/products')).response.status).toBe(403);

    // The list (a reload of the page) shows the key's prefix and never the key.
    await page.goto(`${svc.url}/settings/api-keys`);
    const row = page.getByRole('row').filter({ hasText: 'Bank sync' });
    await expect(row.innerText()).resolves.toMatch(
      /Live\s+tlr_live_\w+…\s+invoices:read, customers:read\s+\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC\s+no expiry\s+Active/,
    );
    await expect(page.content()).resolves.not.toContain(key);
    await expect(page.content()).resolves.toContain(key.slice(0, 12));

    await row.getByRole('button', { name: 'Revoke' }).click();
    await page.waitForURL(/\/settings\/api-keys\?company=/);
    await expect(page.getByRole('row').filter({ hasText: 'Bank sync' }).innerText()).resolves.toContain('Revoked');
    expect((await bank.GET('/customers')).response.status).toBe(401);
    expect(problems).toEqual([]);
  });

  it('creates a test key that works on the sandbox', async () => {
    const { page, problems } = await signedInPage();
    await createKey(page, 'Sandbox trial', ['customers:write', 'customers:read'], 'Test');
    const key = await page.locator('#new-key').innerText();
    expect(key).toMatch(/^tlr_test_[0-9a-f]{48}$/);
    const sandbox = api(svc.url, key);
    expect((await sandbox.POST('/customers', { params: idem(), body: { name: 'Sandkasse Kunde' } })).response.status).toBe(201);
    expect((await ok(sandbox.GET('/customers'))).data.map((c) => c.name)).toEqual(['Sandkasse Kunde']);
    // Nothing of it reached the real books.
    const live = await owner.key(['customers:read']);
    expect((await ok(api(svc.url, live.key).GET('/customers'))).data).toEqual([]);
    await page.goto(`${svc.url}/settings/api-keys`);
    await expect(page.getByRole('row').filter({ hasText: 'Sandbox trial' }).innerText()).resolves.toMatch(/\tTest\ttlr_test_/);
    await screenshot(page, 'api-keys');
    expect(problems).toEqual([]);
  });

  it('shows the procedure’s refusal and keeps what was typed', async () => {
    const { page, problems } = await signedInPage();
    await page.getByLabel('Name').fill('Too late');
    await page.getByLabel('reports:read', { exact: true }).check();
    await page.getByLabel('Expires').fill('2020-01-31');
    await page.getByRole('button', { name: 'Create key' }).click();
    await expect(page.getByRole('alert').innerText()).resolves.toBe('The expiry lies in the past. (field: expires_at)');
    await expect(page.getByLabel('Name').inputValue()).resolves.toBe('Too late');
    await expect(page.getByLabel('reports:read', { exact: true }).isChecked()).resolves.toBe(true);

    await page.getByLabel('Expires').fill('');
    await page.getByLabel('reports:read', { exact: true }).uncheck();
    await page.getByRole('button', { name: 'Create key' }).click();
    await expect(page.getByRole('alert').innerText()).resolves.toBe('A key needs at least one scope. (field: scopes)');
    expect(await page.locator('#new-key').count()).toBe(0);
    expect(problems).toEqual([]);
  });
});

describe('the authorization page', () => {
  async function partner() {
    const created = await createCaller(testDb(), { type: 'operator' }, { oauthAllowLocalhost: true }).oauth.createClient({
      name: 'Kvittering Pro',
      redirectUris: [callbackUrl],
      scopes: ['customers:read', 'invoices:read', 'invoices:write'],
    });
    const pkce = pkcePair();
    const state = randomBytes(12).toString('base64url');
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: created.client_id,
      redirect_uri: callbackUrl,
      state,
      scope: 'customers:read invoices:read',
      code_challenge: pkce.challenge,
      code_challenge_method: 'S256',
    });
    return { ...created, pkce, state, url: `${svc.url}/oauth/authorize?${query}` };
  }

  /** The callback's query once the browser has been sent there. */
  async function callbackOf(page: Page): Promise<URLSearchParams> {
    await page.waitForURL(`${callbackUrl}?**`);
    const got = callbacks.at(-1)!;
    expect(new URL(page.url()).searchParams.toString()).toBe(got.query.toString());
    // The consent page's address (with the state) does not leak to the partner.
    expect(got.referer).toBeUndefined();
    return got.query;
  }

  it('signs in, asks for consent, and Approve sends a code back; the connected app is listed and revoked', async () => {
    const app = await partner();
    const { page, problems } = await freshPage();
    await page.goto(app.url);
    await expect(page.locator('main p').first().innerText()).resolves.toBe('Sign in to tlr to connect Kvittering Pro to your books.');
    await signIn(page);
    await page.waitForURL(app.url);

    await expect(page.getByRole('heading', { level: 1 }).innerText()).resolves.toBe('Kvittering Pro wants to use your books');
    await expect(page.locator('ul.scope-words li').allInnerTexts()).resolves.toEqual([
      'See your customers (customers:read)',
      'See your invoices (invoices:read)',
    ]);
    await expect(page.getByLabel('Company').locator('option').allInnerTexts()).resolves.toEqual(['Nordlys Regnskab ApS']);
    await screenshot(page, 'consent');

    await page.getByRole('button', { name: 'Approve' }).click();
    const back = await callbackOf(page);
    expect(back.get('state')).toBe(app.state);
    expect(back.get('code')).toMatch(/^tlr_code_/);
    expect(back.has('error')).toBe(false);

    const exchange = await oauthApi(svc.url).POST('/oauth/token', {
      body: {
        grant_type: 'authorization_code',
        code: back.get('code') ?? '',
        redirect_uri: callbackUrl,
        client_id: app.client_id,
        client_secret: app.client_secret,
        code_verifier: app.pkce.verifier,
      },
    });
    expect(exchange.response.status).toBe(200);
    const tokens = bodyOf(200, exchange);
    expect(tokens.scope).toBe('customers:read invoices:read');
    const bearer = api(svc.url, tokens.access_token);
    expect((await bearer.GET('/customers')).response.status).toBe(200);

    await page.goto(`${svc.url}/settings/connected-apps`);
    const row = page.getByRole('row').filter({ hasText: 'Kvittering Pro' });
    await expect(row.innerText()).resolves.toMatch(
      /See your customers\s+See your invoices\s+\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC\s+\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/,
    );
    await screenshot(page, 'connected-apps');

    await row.getByRole('button', { name: 'Revoke' }).click();
    await page.waitForURL(/\/settings\/connected-apps\?company=/);
    await expect(page.getByText('No application is connected to this company.').count()).resolves.toBe(1);
    expect((await bearer.GET('/customers')).response.status).toBe(401);
    expect(problems).toEqual([]);
  });

  it('Deny sends access_denied and the state back, and issues no code', async () => {
    const app = await partner();
    const { page, problems } = await signedInPage();
    await page.goto(app.url);
    await page.getByRole('button', { name: 'Deny' }).click();
    const back = await callbackOf(page);
    expect(Object.fromEntries(back)).toEqual({ error: 'access_denied', state: app.state });
    const { rows } = await testDb().pool.query<{ n: number }>('SELECT count(*)::int AS n FROM oauth_codes WHERE client_id = $1', [app.client_id]);
    expect(rows).toEqual([{ n: 0 }]);
    expect(problems).toEqual([]);
  });
});

describe('e-mail texts page', () => {
  it("shows each kind's text, refuses a placeholder the kind does not fill in by field and rule keeping what was typed, saves, and goes back to the built-in text", async () => {
    const { page, problems } = await signedInPage();
    await page.getByRole('link', { name: 'E-mail texts' }).click();
    await page.waitForURL(`${svc.url}/settings/email-templates`);
    await expect(page.getByRole('heading', { level: 1 }).innerText()).resolves.toBe('E-mail texts');
    await expect(page.locator('h2[id^="kind-"]').count()).resolves.toBe(5);
    await expect(page.locator('#invoice-subject').inputValue()).resolves.toBe('Faktura {{invoice_number}} fra {{company_name}}');
    const settings = api(svc.url, (await owner.key(['accounts:read'])).key);

    await page.locator('#invoice-subject').fill('Regning {{quote_number}}');
    await page.locator('#invoice-body').fill('Hej {{customer_name}}\nBeløb: {{amount}}');
    await page.getByRole('button', { name: 'Save the invoice text' }).click();
    await expect(page.getByRole('alert').innerText()).resolves.toMatch(
      /^Subject: \{\{quote_number\}\} is not a placeholder of invoice e-mails; they are \{\{company_name\}\}/,
    );
    await expect(page.locator('#invoice-subject').getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(page.locator('#invoice-body').inputValue()).resolves.toBe('Hej {{customer_name}}\nBeløb: {{amount}}');
    expect((await ok(settings.GET('/settings/email-templates'))).data[0]).toMatchObject({ kind: 'invoice', default: true });

    await page.locator('#invoice-subject').fill('Regning {{invoice_number}}');
    await page.getByRole('button', { name: 'Save the invoice text' }).click();
    await page.waitForURL(/\/settings\/email-templates\?company=[0-9a-f-]+&saved=invoice#kind-invoice$/);
    await expect(page.getByRole('status').innerText()).resolves.toBe('Saved');
    expect((await ok(settings.GET('/settings/email-templates'))).data[0]).toMatchObject({
      kind: 'invoice',
      default: false,
      subject: 'Regning {{invoice_number}}',
      body: 'Hej {{customer_name}}\nBeløb: {{amount}}',
    });
    await screenshot(page, 'email-templates');

    await page.getByRole('button', { name: 'Use the built-in invoice text' }).click();
    await page.waitForURL(/saved=invoice#kind-invoice$/);
    await expect(page.locator('#invoice-subject').inputValue()).resolves.toBe('Faktura {{invoice_number}} fra {{company_name}}');
    expect((await ok(settings.GET('/settings/email-templates'))).data[0]).toMatchObject({ kind: 'invoice', default: true });
    expect(problems).toEqual([]);
  });
});

// Last: the CVR set here also shows in the consent page's company select.
describe('company page', () => {
  it('shows the seller, refuses a CVR failing the modulus 11 rule by field and rule keeping what was typed, and saves a valid one', async () => {
    const { page, problems } = await signedInPage();
    await page.getByRole('link', { name: 'Company' }).click();
    await page.waitForURL(`${svc.url}/settings/company`);
    await expect(page.getByRole('heading', { level: 1 }).innerText()).resolves.toBe('Company');
    await expect(page.getByLabel('Name').inputValue()).resolves.toBe('Nordlys Regnskab ApS');
    await expect(page.getByLabel('CVR number').inputValue()).resolves.toBe('');
    const settings = api(svc.url, (await owner.key(['accounts:read'])).key);

    await page.getByLabel('CVR number').fill('12345678');
    await page.getByLabel('City').fill('Aalborg');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByRole('alert').innerText()).resolves.toBe(
      'CVR number: has a wrong check digit (not a valid CVR number by the modulus 11 rule; check for a typing error)',
    );
    await expect(page.getByLabel('CVR number').getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(page.getByLabel('City').getAttribute('aria-invalid')).resolves.toBeNull();
    await expect(page.getByLabel('CVR number').inputValue()).resolves.toBe('12345678');
    await expect(page.getByLabel('City').inputValue()).resolves.toBe('Aalborg');
    expect((await ok(settings.GET('/settings/company'))).data).toMatchObject({ cvr: '', city: '' });

    await page.getByLabel('CVR number').fill('12 34 56 74');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(/\/settings\/company\?company=[0-9a-f-]+&saved=1$/);
    await expect(page.getByRole('status').innerText()).resolves.toBe('Saved');
    await expect(page.getByLabel('CVR number').inputValue()).resolves.toBe('12345674');
    expect((await ok(settings.GET('/settings/company'))).data).toMatchObject({ name: 'Nordlys Regnskab ApS', cvr: '12345674', city: 'Aalborg' });

    // The company's own Peppol id, by its scheme's rule (decision 206).
    await page.getByLabel('Peppol id').fill('0088:5790000436102');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByRole('alert').innerText()).resolves.toBe(
      'Peppol id: has a wrong check digit (not a valid GLN by the GS1 check digit rule; check for a typing error)',
    );
    await page.getByLabel('Peppol id').fill('0184:1234 5674');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(/saved=1$/);
    await expect(page.getByLabel('Peppol id').inputValue()).resolves.toBe('0184:12345674');
    expect((await ok(settings.GET('/settings/company'))).data).toMatchObject({ peppol_id: '0184:12345674' });
    await screenshot(page, 'company');
    expect(problems).toEqual([]);
  });
});
