// The admin app in a real Chromium (docs/admin.md): support and admin staff sign in at /admin, find a
// company, look up a request the test made through the REST API by its X-Request-ID, reset a sandbox
// (the pg-boss job) and see the effect through the API, watch dead letters and replay one, read the
// health page, and revoke keys, grants and OAuth clients (admin only). A support user's admin action is
// refused by the procedures and, like every staff action, lands in the trail. No page may raise a
// console error (a CSP violation is one). TLR_SCREENSHOTS=1 refreshes docs/screenshots/admin-*.png.
import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { afterAll, assert, beforeAll, describe, expect, it } from 'vitest';
import { checkCvr } from '@tlr/domain';
import { freshPage as isolatedPage, launchBrowser, screenshot as saveScreenshot, type BrowserSession } from '../../../test/browser.ts';
import {
  api,
  approveCode,
  connectedApp,
  deliveries,
  idem,
  newStaff,
  ok,
  pkcePair,
  STAFF_PASSWORD,
  subscribe,
  useCompany,
  waitFor,
  webhookReceiver,
} from './helpers.ts';

const COMPANY = `Støttecenter ${randomUUID().slice(0, 6)} ApS`;
/** A valid CVR number (modulus 11) no other test file's company has. */
const CVR = ((): string => {
  for (;;) {
    const n = String(10_000_000 + Math.floor(Math.random() * 89_999_999));
    if (!checkCvr(n)) return n;
  }
})();

// Its own worker runs the sandbox-reset job and the webhook deliveries (a short retry unit). Behind a
// proxy on loopback: each fresh page comes from an address of its own (test/browser.ts).
const t = useCompany({
  name: COMPANY,
  cvr: CVR,
  env: { RUN_WORKER: 'true', WEBHOOK_ALLOW_INSECURE_URLS: 'true', WEBHOOK_RETRY_UNIT_MS: '5', TRUST_PROXY: 'loopback' },
});
let browser: BrowserSession;
let hook: Awaited<ReturnType<typeof webhookReceiver>>;
/** What the webhook receiver answers: 500 until a test says otherwise. */
let hookStatus = 500;
let support: { email: string };
let admin: { email: string };

beforeAll(async () => {
  [browser, hook, support, admin] = await Promise.all([
    launchBrowser({ viewport: { width: 1280, height: 800 } }),
    webhookReceiver(),
    newStaff('support'),
    newStaff('admin'),
  ]);
  hook.answer(() => hookStatus);
});
afterAll(async () => {
  await browser?.close();
  await hook?.close();
});

const freshPage = () => isolatedPage(browser.browser);
const screenshot = (page: Page, name: string) => saveScreenshot(page, `admin-${name}`, true);

async function fillSignIn(page: Page, email: string, password: string) {
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

async function signedIn(who: { email: string }) {
  const p = await freshPage();
  await p.page.goto(`${t.svc.url}/admin/signin`);
  await fillSignIn(p.page, who.email, STAFF_PASSWORD);
  await p.page.waitForURL(`${t.svc.url}/admin/companies`);
  return p;
}

const companyUrl = () => `${t.svc.url}/admin/companies/${t.company.companyId}`;
const h1 = (page: Page) => page.getByRole('heading', { level: 1 }).innerText();
/** The text of the table row that contains `text`. */
const row = (page: Page, text: string) => page.locator('tbody tr', { hasText: text }).first().innerText();

describe('sign-in', () => {
  it('takes staff accounts only, on a cookie of its own under /admin, and returns to the page asked for', async () => {
    const { page, problems } = await freshPage();
    await page.goto(`${t.svc.url}/admin/health`);
    expect(page.url()).toBe(`${t.svc.url}/admin/signin?return_to=%2Fadmin%2Fhealth`);
    await screenshot(page, 'signin');

    // The company owner's own (valid) credentials are no staff account.
    await fillSignIn(page, t.company.email, 'correct horse battery');
    await expect(page.getByRole('alert').innerText()).resolves.toBe('The e-mail or password is not right.');
    await fillSignIn(page, support.email, 'not the password');
    await expect(page.getByRole('alert').innerText()).resolves.toBe('The e-mail or password is not right.');

    await fillSignIn(page, support.email, STAFF_PASSWORD);
    await page.waitForURL(`${t.svc.url}/admin/health`);
    await expect(h1(page)).resolves.toBe('Health');
    await expect(page.locator('header .who').innerText()).resolves.toBe(`${support.email} (support)`);
    const cookies = await page.context().cookies();
    // The session, and the device cookie of the staff realm (decision 174), both only under /admin.
    expect(
      cookies.map((c) => ({ name: c.name, path: c.path, httpOnly: c.httpOnly, sameSite: c.sameSite })).sort((a, b) => a.name.localeCompare(b.name)),
    ).toEqual([
      { name: 'tlr_admin_device', path: '/admin', httpOnly: true, sameSite: 'Lax' },
      { name: 'tlr_admin_session', path: '/admin', httpOnly: true, sameSite: 'Lax' },
    ]);
    // A staff session is no owner session: the owner pages still ask for a sign-in.
    await page.goto(`${t.svc.url}/settings/api-keys`);
    expect(page.url()).toBe(`${t.svc.url}/signin?return_to=%2Fsettings%2Fapi-keys`);

    await page.goto(`${t.svc.url}/admin/health`);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${t.svc.url}/admin/signin`);
    await page.goto(`${t.svc.url}/admin/companies`);
    expect(page.url()).toBe(`${t.svc.url}/admin/signin?return_to=%2Fadmin%2Fcompanies`);
    expect(problems).toEqual([]);
  });

  it("does not let an owner's session cookie into the admin app", async () => {
    const { page } = await freshPage();
    await page.goto(`${t.svc.url}/signin`);
    await fillSignIn(page, t.company.email, 'correct horse battery');
    await page.waitForURL(`${t.svc.url}/settings/api-keys`);
    const owner = (await page.context().cookies()).find((c) => c.name === 'tlr_session')!;
    // Even presented under the admin cookie's name, an owner session is not a staff session.
    await page.context().addCookies([{ name: 'tlr_admin_session', value: owner.value, domain: owner.domain, path: '/admin' }]);
    await page.goto(`${t.svc.url}/admin/companies`);
    expect(page.url()).toBe(`${t.svc.url}/admin/signin?return_to=%2Fadmin%2Fcompanies`);
  });
});

describe('support', () => {
  it('finds a company by API key prefix and sees its keys, connected apps and webhooks, without revoke buttons', async () => {
    const key = await t.company.key(['customers:read'], 'test');
    const { app } = await connectedApp(t.svc.url, t.company, ['customers:read']);
    await subscribe(api(t.svc.url, (await t.company.key(['webhooks:manage'], 'test')).key), `${hook.url}?overview`, ['customer.created']);

    const { page, problems } = await signedIn(support);
    await page.getByLabel('Search').fill(key.key_prefix);
    await page.getByRole('button', { name: 'Search' }).click();
    await expect(page.locator('tbody tr').count()).resolves.toBe(1);
    await page.getByRole('link', { name: COMPANY }).click();
    await page.waitForURL(companyUrl());
    await expect(h1(page)).resolves.toBe(COMPANY);
    await expect(row(page, key.key_prefix)).resolves.toMatch(/Test\s+tlr_test_[0-9a-f]+…\s+customers:read\s+never\s+Active/);
    await expect(row(page, app.clientId)).resolves.toContain('customers:read');
    await expect(row(page, `${hook.url}?overview`)).resolves.toContain('customer.created');
    // Support may not revoke: the page offers no such button (and the procedures refuse it, below).
    await expect(page.getByRole('button', { name: /^Revoke/ }).count()).resolves.toBe(0);
    await expect(page.locator('body').innerText()).resolves.not.toContain(key.key);
    await screenshot(page, 'company');
    expect(problems).toEqual([]);
  });

  it('finds a company by its name, CVR, owner e-mail, company id and sandbox id', async () => {
    const sandboxKey = await t.company.key(['accounts:read'], 'test');
    const sandboxId = (await ok(api(t.svc.url, sandboxKey.key).GET('/settings/company'))).data.id;
    expect(sandboxId).not.toBe(t.company.companyId);
    const { page, problems } = await signedIn(support);
    const terms = [COMPANY.toUpperCase(), CVR, t.company.email, t.company.companyId, sandboxId];
    for (const term of terms) {
      await page.getByLabel('Search').fill(term);
      await page.getByRole('button', { name: 'Search' }).click();
      await page.waitForURL(/\/admin\/companies\?q=/);
      const rows = await page.locator('tbody tr').allInnerTexts();
      expect({ term, rows: rows.length }).toEqual({ term, rows: 1 });
      expect(rows[0]).toContain(COMPANY);
    }
    // A term that matches nothing says so rather than listing every company.
    await page.getByLabel('Search').fill(`ingen-${randomUUID()}`);
    await page.getByRole('button', { name: 'Search' }).click();
    await expect(page.locator('tbody tr').count()).resolves.toBe(0);
    await expect(page.locator('main').innerText()).resolves.toContain('No company matches');
    expect(problems).toEqual([]);
  });

  it('looks up a request the test made through the REST API by its X-Request-ID', async () => {
    const live = await t.company.key(['customers:read'], 'live');
    const missing = randomUUID();
    const res = await api(t.svc.url, live.key).GET('/customers/{id}', { params: { path: { id: missing } } });
    expect(res.response.status).toBe(404);
    const requestId = res.response.headers.get('x-request-id');
    assert(requestId, 'the answer names its request');

    const { page, problems } = await signedIn(support);
    await page.getByRole('link', { name: 'Requests' }).click();
    // The request log is written in batches: look again until it is there.
    await waitFor(async () => {
      await page.getByLabel('X-Request-ID').fill(requestId);
      await page.getByRole('button', { name: 'Look up' }).click();
      await page.waitForURL(/\/admin\/requests\?id=/);
      return (await page.locator('tbody tr').count()) === 1 || null;
    });
    const text = await row(page, 'GET');
    expect(text).toContain(`/api/v1/customers/${missing}`);
    expect(text).toMatch(/GET\s+\/api\/v1\/customers\/\S+\s+404\s+not_found\s+[\d.]+ ms\s+api_key [0-9a-f-]{36}\s+/);
    expect(text).toContain(COMPANY);
    await screenshot(page, 'request');
    expect(problems).toEqual([]);
  });

  it('resets a sandbox through the job, shows its progress, and the API then shows an empty sandbox', { timeout: 150_000 }, async () => {
    const test = api(t.svc.url, (await t.company.key(['customers:read', 'customers:write'], 'test')).key);
    expect((await test.POST('/customers', { params: idem(), body: { name: 'Før nulstilling' } })).response.status).toBe(201);
    expect((await ok(test.GET('/customers'))).data).not.toEqual([]);

    const { page, problems } = await signedIn(support);
    await page.goto(companyUrl());
    await page.getByRole('button', { name: 'Reset sandbox' }).click();
    await page.waitForURL(/\/sandbox\/resets\/[0-9a-f-]{36}$/);
    await expect(h1(page)).resolves.toBe('Sandbox reset');
    // The page refreshes itself (a Refresh header, no script) until the job is done.
    // Every worker of the run serves this database's jobs: one of another file that is stopping when it
    // takes the job fails it back or lets its heartbeat lapse (10 s, supervised every 10 s), and another
    // worker runs it then; so up to about half a minute more than the reset itself.
    await expect.poll(() => page.locator('dd .badge').first().innerText(), { timeout: 90_000, interval: 250 }).toBe('done');
    await expect(page.locator('dl.facts').innerText()).resolves.toContain(`by staff `);
    await screenshot(page, 'sandbox-reset');

    // Contract, Test mode 4: the sandbox is empty, and its keys and webhook subscriptions survive.
    const after = await test.GET('/customers');
    expect(after.response.status).toBe(200);
    expect(after.data?.data).toEqual([]);
    await page.goto(companyUrl());
    await expect(row(page, 'staff ')).resolves.toMatch(/done/);
    await expect(row(page, `${hook.url}?overview`)).resolves.toContain('Test');

    // Pressed twice at once (two tabs): one reset, and both presses show its progress.
    const csrf = await page.locator('header input[name="csrf_token"]').inputValue();
    const press = () => page.context().request.post(`${companyUrl()}/sandbox/reset`, { form: { csrf_token: csrf }, maxRedirects: 0 });
    const [a, b] = await Promise.all([press(), press()]);
    expect([a.status(), b.status()]).toEqual([303, 303]);
    expect(a.headers().location).toMatch(/\/sandbox\/resets\/[0-9a-f-]{36}$/);
    expect(b.headers().location).toBe(a.headers().location);
    expect(problems).toEqual([]);
  });

  it('sees a dead letter across the service and replays it from its subscription', async () => {
    const c = api(t.svc.url, (await t.company.key(['webhooks:manage', 'customers:write'], 'live')).key);
    const url = `${hook.url}?dead=${randomUUID()}`;
    const sub = await subscribe(c, url, ['customer.created']);
    hookStatus = 500;
    await ok(c.POST('/customers', { params: idem(), body: { name: 'Død post ApS' } }));
    const dead = await waitFor(async () => {
      const [latest] = await deliveries(c, sub.id);
      return latest?.status === 'dead_letter' ? latest : null;
    }, 30_000);

    const { page, problems } = await signedIn(support);
    await page.getByRole('link', { name: 'Dead letters' }).click();
    await expect(row(page, url)).resolves.toMatch(/customer\.created\s+\S+\s+8\s+500/);
    await page.locator('tbody tr', { hasText: url }).getByRole('link', { name: 'Deliveries' }).click();
    await page.waitForURL(`${companyUrl()}/webhooks/${sub.id}`);
    await expect(row(page, 'customer.created')).resolves.toMatch(/dead_letter\s+8\s+500/);
    await screenshot(page, 'deliveries');

    hookStatus = 200;
    await page.getByRole('button', { name: `Replay delivery ${dead.id}` }).click();
    await page.waitForURL(`${companyUrl()}/webhooks/${sub.id}`);
    await waitFor(async () => (await deliveries(c, sub.id))[0]?.status === 'succeeded' || null, 30_000);
    await page.reload();
    await expect(row(page, 'customer.created')).resolves.toMatch(/succeeded/);
    expect(problems).toEqual([]);
  });

  it('reads the health of the database and the queues', async () => {
    const { page, problems } = await signedIn(support);
    await page.getByRole('link', { name: 'Health' }).click();
    await expect(page.locator('dl.facts').innerText()).resolves.toMatch(/Database\s+reachable round trip [\d.]+ ms/);
    // This file's server is on DATABASE_URL with no backup settings: the step missing, not a last run.
    await expect(page.locator('dl.facts').innerText()).resolves.toMatch(
      /Last backup\s+not set up backups are not set up: with DATABASE_URL, pgBackRest runs on the database host: there, set BACKUP_PG_DATA_DIR/,
    );
    // This file's worker has run the reset job: its queue is listed.
    await expect(row(page, 'sandbox-reset')).resolves.toMatch(/sandbox-reset\s+\d+\s+\d+\s+\d+/);
    await screenshot(page, 'health');
    expect(problems).toEqual([]);
  });

  it('is refused an admin action by the procedures (403, nothing changed), and the refusal is in the trail', async () => {
    const live = await t.company.key(['customers:read'], 'live');
    const { page, problems } = await signedIn(support);
    await page.goto(companyUrl());
    // The form the page does not offer support, posted with the session's own CSRF token.
    const csrf = await page.locator('header input[name="csrf_token"]').inputValue();
    const res = await page.context().request.post(`${companyUrl()}/keys/revoke`, { form: { csrf_token: csrf, id: live.id } });
    expect(res.status()).toBe(403);
    expect(await res.text()).toContain('Not allowed');
    expect((await api(t.svc.url, live.key).GET('/customers')).response.status).toBe(200);

    await page.goto(`${t.svc.url}/admin/audit?company=${t.company.companyId}`);
    await expect(row(page, `${support.email} (support)`)).resolves.toBeTruthy();
    const refused = await row(page, 'internal.revokeApiKey');
    expect(refused).toContain(`${support.email} (support)`);
    expect(refused).toContain(live.id);
    expect(refused).toContain('forbidden');
    // Every action support took above is there too, with its outcome.
    const trail = await page.locator('tbody').innerText();
    for (const action of ['support.company', 'support.resetSandbox', 'support.sandboxReset', 'support.deliveries', 'support.replayDelivery']) {
      expect(trail).toContain(action);
    }
    await screenshot(page, 'trail');
    expect(problems).toEqual([]);
  });
});

describe('admin', () => {
  it('revokes an API key, a connected app and an OAuth client, and each stops working on the API', async () => {
    const live = await t.company.key(['customers:read'], 'live');
    const { app, tokens } = await connectedApp(t.svc.url, t.company, ['customers:read']);
    const bearer = api(t.svc.url, tokens.access_token);
    const withKey = api(t.svc.url, live.key);
    expect((await bearer.GET('/customers')).response.status).toBe(200);
    expect((await withKey.GET('/customers')).response.status).toBe(200);

    const { page, problems } = await signedIn(admin);
    await page.goto(companyUrl());
    await page.getByRole('button', { name: `Revoke key ${live.key_prefix}` }).click();
    await page.waitForURL(companyUrl());
    await expect(row(page, live.key_prefix)).resolves.toContain('Revoked');
    expect((await withKey.GET('/customers')).response.status).toBe(401);

    await page.locator('tbody tr', { hasText: app.clientId }).getByRole('button', { name: 'Revoke grant of' }).click();
    await page.waitForURL(companyUrl());
    // A revoked grant is no longer a connected app: it leaves the list.
    await expect(page.locator('tbody tr', { hasText: app.clientId }).count()).resolves.toBe(0);
    expect((await bearer.GET('/customers')).response.status).toBe(401);

    // The client itself: a new authorization is refused once it is revoked.
    await page.getByRole('link', { name: 'OAuth clients' }).click();
    await page.locator('tbody tr', { hasText: app.clientId }).getByRole('button', { name: 'Revoke client' }).click();
    await page.waitForURL(`${t.svc.url}/admin/oauth-clients`);
    await expect(row(page, app.clientId)).resolves.toContain('Revoked');
    const again = pkcePair();
    await expect(approveCode(t.company, app, again.challenge)).rejects.toThrow();

    await page.goto(`${t.svc.url}/admin/audit`);
    const mine = await page.locator('tbody tr', { hasText: `${admin.email} (admin)` }).allInnerTexts();
    for (const action of ['internal.revokeApiKey', 'oauth.revokeGrant', 'oauth.revokeClient']) {
      expect(mine.find((r) => r.includes(action))).toMatch(/\(change\)[\s\S]*ok/);
    }
    expect(problems).toEqual([]);
  });

  it('answers hostile input with a page saying what is wrong, never a 500', async () => {
    const { page } = await signedIn(admin);
    const c = `/admin/companies/${t.company.companyId}`;
    const paths = [
      '/admin/companies?q=%00',
      '/admin/companies?q=%ED%A0%80',
      `/admin/companies?q=${'x'.repeat(5000)}`,
      '/admin/companies?q=tlr_live_%00',
      '/admin/companies/%00',
      '/admin/companies/not-a-uuid',
      `${c}/sandbox/resets/%00`,
      `${c}/webhooks/${randomUUID()}`,
      '/admin/requests?id=%00',
      `/admin/requests?id=${'r'.repeat(5000)}`,
      '/admin/audit?company=%00',
      '/admin/audit?company=not-a-uuid',
    ];
    for (const path of paths) {
      const res = await page.context().request.get(`${t.svc.url}${path}`);
      expect({ path, status: res.status() }).toEqual({ path, status: expect.toSatisfy((s: number) => s < 500) });
      expect(res.headers()['content-type'], path).toMatch(/^text\/html/);
    }
    const csrf = await page.locator('header input[name="csrf_token"]').inputValue();
    for (const form of [{ id: '\u0000' }, { id: 'x'.repeat(10_000) }, { id: randomUUID() }]) {
      const res = await page.context().request.post(`${t.svc.url}${c}/keys/revoke`, { form: { csrf_token: csrf, ...form } });
      expect(res.status()).toBe(400);
    }
  });

  it('answers a page that does not exist with an HTML 404, and a forged form with 403', async () => {
    const { page } = await signedIn(admin);
    const missing = await page.goto(`${t.svc.url}/admin/nothing-here`);
    expect(missing!.status()).toBe(404);
    await expect(h1(page)).resolves.toBe('No such page');
    const forged = await page.context().request.post(`${t.svc.url}/admin/oauth-clients/revoke`, { form: { csrf_token: 'not-the-token', client_id: 'x' } });
    expect(forged.status()).toBe(403);
    const unknown = await page.goto(`${t.svc.url}/admin/companies/${randomUUID()}`);
    expect(unknown!.status()).toBe(400);
    await expect(page.locator('.error').innerText()).resolves.toMatch(/live company/);
  });
});
