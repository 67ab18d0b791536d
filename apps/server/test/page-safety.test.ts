// CSRF and XSS across every page, owner pages and admin app alike. Every form's POST is sent as a forged
// one would come: without the token, with a wrong one, and with the right one from a foreign Origin
// (and `Origin: null`); each is refused with 403 and changes nothing, and the same form with its token
// from this site then does what it says (so each refusal was the CSRF check). Names stored through the
// API and the operator's procedures (a company name, a key name, an OAuth client name, a request path)
// are hostile markup, and every page that shows them, in Chromium, shows them as text under the
// strict CSP, with no console error (a CSP violation is one).
import { randomInt } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCaller } from '@tlr/api';
import { SCOPES } from '@tlr/domain';
import { freshPage, launchBrowser, type BrowserSession } from '../../../test/browser.ts';
import {
  api,
  approveCode,
  codeExchange,
  connectedApp,
  countRows,
  created,
  deliveries,
  idem,
  internal,
  newStaff,
  oauthApi,
  ok,
  pkcePair,
  STAFF_PASSWORD,
  subscribe,
  testDb,
  useCompany,
  waitFor,
  webhookReceiver,
} from './helpers.ts';

const PASSWORD = 'correct horse battery';
const REFUSED = 'This form has expired or did not come from this site. Reload the page and try again.';
const CSP = "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

// A worker of its own delivers (and dead-letters) webhooks for the admin's replay form, at a short unit;
// behind a proxy on loopback (TRUST_PROXY), each visitor comes from an address of its own.
const t = useCompany({
  name: 'Sikker Side ApS',
  env: { RUN_WORKER: 'true', WEBHOOK_ALLOW_INSECURE_URLS: 'true', WEBHOOK_RETRY_UNIT_MS: '5', TRUST_PROXY: 'loopback' },
});
let hook: Awaited<ReturnType<typeof webhookReceiver>>;
let staff: { email: string };
beforeAll(async () => {
  [hook, staff] = await Promise.all([webhookReceiver(), newStaff('admin')]);
  hook.answer(() => 500);
});
afterAll(() => hook?.close());

/** The text of a page's alert. */
const alertOf = (text: string) => /role="alert"[^>]*>([^<]*)</.exec(text)?.[1];

/**
 * A browser without a browser: one address of its own (sign-in is throttled per address, and the
 * service takes X-Forwarded-For from the loopback proxy, TRUST_PROXY) and the cookies it holds, kept as
 * a browser would.
 */
function visitor() {
  const ip = `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
  const jar = new Map<string, string>();
  const go = async (path: string, opts: { form?: Record<string, string>; headers?: Record<string, string> } = {}) => {
    const res = await fetch(`${t.svc.url}${path}`, {
      method: opts.form ? 'POST' : 'GET',
      redirect: 'manual',
      headers: {
        'X-Forwarded-For': ip,
        ...(jar.size ? { Cookie: [...jar].map(([name, value]) => `${name}=${value}`).join('; ') } : {}),
        ...(opts.form ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}),
        ...opts.headers,
      },
      ...(opts.form ? { body: new URLSearchParams(opts.form).toString() } : {}),
    });
    for (const set of res.headers.getSetCookie()) {
      const [name, value] = set.split(';')[0]!.split(/=(.*)/) as [string, string];
      if (/;\s*Max-Age=0/i.test(set)) jar.delete(name);
      else jar.set(name, value);
    }
    const text = await res.text();
    return { status: res.status, location: res.headers.get('location'), text, csrf: /name="csrf_token" value="([^"]+)"/.exec(text)?.[1] };
  };
  return { go };
}
type Visitor = ReturnType<typeof visitor>;

/** A visitor signed in on the owner pages (`/signin`) or the admin app (`/admin/signin`), and a CSRF token of its session. */
async function signedIn(site: '' | '/admin', email: string, password: string): Promise<{ v: Visitor; csrf: string }> {
  const v = visitor();
  const form = await v.go(`${site}/signin`);
  const done = await v.go(`${site}/signin`, { form: { csrf_token: form.csrf!, email, password } });
  expect(done.status).toBe(303);
  const page = await v.go(site ? `${site}/health` : '/settings/api-keys');
  expect(page.status).toBe(200);
  return { v, csrf: page.csrf! };
}

/**
 * One form: where it posts, what it sends besides its token, and what it changes (`state`, as seen by
 * the visitor). `session` is the visitor who posts it, with the token of its session.
 */
interface Form {
  path: string;
  session(): Promise<{ v: Visitor; csrf: string }>;
  fields: Record<string, string>;
  state(v: Visitor): Promise<unknown>;
  /** What the genuine post answers when its effect is the answer itself (a redirect), not a change of `state`. */
  answers?: RegExp;
}

/** Each forged post is refused and changes nothing; the genuine one, last, changes the state. */
async function refusesForgeries(form: Form) {
  const { v, csrf } = await form.session();
  const before = await form.state(v);
  const forgeries: [string, Record<string, string>, Record<string, string>][] = [
    ['no token', form.fields, {}],
    ['a wrong token', { ...form.fields, csrf_token: `${csrf.slice(0, -2)}xx` }, {}],
    ['another origin', { ...form.fields, csrf_token: csrf }, { Origin: 'https://evil.example' }],
    ['origin null', { ...form.fields, csrf_token: csrf }, { Origin: 'null' }],
  ];
  for (const [what, fields, headers] of forgeries) {
    const res = await v.go(form.path, { form: fields, headers });
    expect({ what, status: res.status, location: res.location, alert: alertOf(res.text) }).toEqual({ what, status: 403, location: null, alert: REFUSED });
    expect({ what, state: await form.state(v) }).toEqual({ what, state: before });
  }
  const genuine = await v.go(form.path, { form: { ...form.fields, csrf_token: csrf }, headers: { Origin: new URL(t.svc.url).origin } });
  expect(genuine.status, genuine.text).toBeLessThan(400);
  if (form.answers) expect(genuine.location).toMatch(form.answers);
  else expect(await form.state(v)).not.toEqual(before);
}

const owner = () => signedIn('', t.company.email, PASSWORD);
const admin = () => signedIn('/admin', staff.email, STAFF_PASSWORD);
const company = () => t.company.companyId;
const revokedAt = async (id: string) => (await testDb().pool.query<{ revoked_at: Date | null }>('SELECT revoked_at FROM api_keys WHERE id = $1', [id])).rows;
/** The answer a connected app's access token gets on the API: 200 while its grant stands. */
const bearerStatus = async (token: string) => (await api(t.svc.url, token).GET('/customers')).response.status;
const grantOf = async (clientId: string) =>
  (await testDb().pool.query<{ id: string }>('SELECT id FROM oauth_grants WHERE company_id = $1 AND client_id = $2', [company(), clientId])).rows[0]!.id;

/** A revoke form of a connected app (a fresh one each time): a forged one leaves the app's access token working. */
async function revokesNoApp(path: string, session: Form['session'], fields: (app: { clientId: string; grantId: string }) => Record<string, string>) {
  const { app, tokens } = await connectedApp(t.svc.url, t.company, ['customers:read']);
  const grantId = await grantOf(app.clientId);
  await refusesForgeries({ path, session, fields: fields({ clientId: app.clientId, grantId }), state: () => bearerStatus(tokens.access_token) });
}

/** A partner's consent request, as the authorization page's form posts it back. */
async function consentFields() {
  const app = await createCaller(testDb(), { type: 'operator' }).oauth.createClient({
    name: 'Formpartner',
    redirectUris: ['https://partner.example/callback'],
    scopes: ['customers:read'],
  });
  return {
    response_type: 'code',
    client_id: app.client_id,
    redirect_uri: 'https://partner.example/callback',
    state: 'st-csrf',
    scope: 'customers:read',
    code_challenge: pkcePair().challenge,
    code_challenge_method: 'S256',
    company: company(),
  };
}
const codesOf = (clientId: string) => countRows('SELECT count(*)::int AS n FROM oauth_codes WHERE client_id = $1', [clientId]);

describe('CSRF: every form of the owner pages', () => {
  it('sign-in: a forged one signs nobody in', async () => {
    const v = visitor();
    await refusesForgeries({
      path: '/signin',
      session: async () => ({ v, csrf: (await v.go('/signin')).csrf! }),
      fields: { email: t.company.email, password: PASSWORD },
      state: async (s) => (await s.go('/settings/api-keys')).status,
    });
  });

  it('sign-out: a forged one leaves the session signed in', async () => {
    await refusesForgeries({ path: '/signout', session: owner, fields: {}, state: async (v) => (await v.go('/settings/api-keys')).status });
  });

  it('API keys: a forged create makes no key, a forged revoke revokes none', async () => {
    const name = `Forfalsket ${Date.now()}`;
    await refusesForgeries({
      path: '/settings/api-keys',
      session: owner,
      fields: { company: company(), name, scopes: 'customers:read', mode: 'live' },
      state: () => countRows('SELECT count(*)::int AS n FROM api_keys WHERE company_id = $1 AND name = $2', [company(), name]),
    });
    const key = await t.company.key(['customers:read']);
    await refusesForgeries({
      path: '/settings/api-keys/revoke',
      session: owner,
      fields: { company: company(), id: key.id },
      state: () => revokedAt(key.id),
    });
  });

  it('connected apps: a forged revoke leaves the grant and its tokens working', async () => {
    await revokesNoApp('/settings/connected-apps/revoke', owner, (app) => ({ company: company(), id: app.grantId }));
  });

  it('company: a forged save changes nothing', async () => {
    await refusesForgeries({
      path: '/settings/company',
      session: owner,
      fields: { company: company(), name: `Omdøbt ${Date.now()} ApS` },
      state: async () => (await internal().internal.companySettings({ companyId: company() })).name,
    });
  });

  it('recurring invoices: a forged pause or resume changes nothing', async () => {
    const customer_id = (await created(t.api.POST('/customers', { params: idem(), body: { name: 'Abonnent ApS' } }))).data.id;
    const body = { customer_id, lines: [{ description: 'Abonnement', quantity: 1, unit_price: 100 }], interval: 'month' as const, start_date: '2030-01-01' };
    const { id } = (await created(t.api.POST('/recurring-invoices', { params: idem(), body }))).data;
    const status = async () => (await ok(t.api.GET('/recurring-invoices/{id}', { params: { path: { id } } }))).data.status;
    for (const verb of ['pause', 'resume']) {
      await refusesForgeries({ path: `/settings/recurring-invoices/${verb}`, session: owner, fields: { company: company(), id, back: 'list' }, state: status });
    }
  });

  it('consent: a forged Approve issues no code, and no forged Approve or Deny sends the browser to the partner', async () => {
    for (const [decision, answers] of [
      ['approve', undefined],
      ['deny', /^https:\/\/partner\.example\/callback\?error=access_denied&/],
    ] as const) {
      const fields = { ...(await consentFields()), decision };
      await refusesForgeries({
        path: '/oauth/authorize',
        session: async () => {
          const s = await owner();
          // The form's own token: that of the consent page the visitor was shown.
          const page = await s.v.go(`/oauth/authorize?${new URLSearchParams(fields)}`);
          expect(page.status).toBe(200);
          return { v: s.v, csrf: page.csrf! };
        },
        fields,
        state: () => codesOf(fields.client_id),
        ...(answers ? { answers } : {}),
      });
    }
  });
});

describe('CSRF: every form of the admin app', () => {
  const companyPath = () => `/admin/companies/${company()}`;

  it('sign-in and sign-out', async () => {
    const v = visitor();
    await refusesForgeries({
      path: '/admin/signin',
      session: async () => ({ v, csrf: (await v.go('/admin/signin')).csrf! }),
      fields: { email: staff.email, password: STAFF_PASSWORD },
      state: async (s) => (await s.go('/admin/health')).status,
    });
    await refusesForgeries({ path: '/admin/signout', session: admin, fields: {}, state: async (s) => (await s.go('/admin/health')).status });
  });

  it("revoking a company's key and its connected app", async () => {
    const key = await t.company.key(['customers:read']);
    await refusesForgeries({ path: `${companyPath()}/keys/revoke`, session: admin, fields: { id: key.id }, state: () => revokedAt(key.id) });
    await revokesNoApp(`${companyPath()}/grants/revoke`, admin, (app) => ({ id: app.grantId }));
  });

  it('revoking an OAuth client', async () => {
    await revokesNoApp('/admin/oauth-clients/revoke', admin, (app) => ({ client_id: app.clientId }));
  });

  it('resetting the sandbox', async () => {
    const sandbox = (await t.company.key(['customers:read'], 'test')).company_id;
    await refusesForgeries({
      path: `${companyPath()}/sandbox/reset`,
      session: admin,
      fields: {},
      state: () => countRows('SELECT count(*)::int AS n FROM sandbox_resets WHERE company_id = $1', [sandbox]),
    });
  });

  it('replaying a dead letter', async () => {
    const c = api(t.svc.url, (await t.company.key(SCOPES)).key);
    const sub = await subscribe(c, `${hook.url}?csrf=${Date.now()}`, ['customer.created']);
    await created(c.POST('/customers', { params: idem(), body: { name: 'Død post ApS' } }));
    const dead = await waitFor(async () => (await deliveries(c, sub.id)).find((d) => d.status === 'dead_letter'));
    // From now on the receiver takes it: a replay ends in succeeded, never in a dead letter again.
    hook.answer(() => 200);
    await refusesForgeries({
      path: `${companyPath()}/webhooks/${sub.id}/replay`,
      session: admin,
      fields: { delivery_id: dead.id },
      state: async () => (await deliveries(c, sub.id)).map((d) => [d.id, d.status, d.attempts]),
    });
  });
});

describe('XSS: hostile names on every page that shows them', () => {
  /** Markup in every form a name can carry it: closing an attribute, an element with a handler, a script, a quote. */
  const HOSTILE = `"><img/src=x/onerror=alert(1)><script>alert(2)</script><svg/onload=alert(3)>'`;
  let browser: BrowserSession;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(() => browser?.close());

  /** A company's request whose path is markup, sent as bytes (fetch would percent-encode it), under a request id of its own. */
  function hostileRequest(key: string, requestId: string) {
    return new Promise<number>((resolve, reject) => {
      const { hostname, port } = new URL(t.svc.url);
      const path = `/api/v1/customers/${HOSTILE.replaceAll("'", '')}`;
      const req = httpRequest({ hostname, port, path, headers: { 'X-API-Key': key, 'X-Request-ID': requestId } }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      req.on('error', reject).end();
    });
  }

  /**
   * Opens `path` and expects the page to show each of `texts` as text (in its text or a field's value),
   * to hold no element the markup would have made, to carry `csp`, and to raise no console error.
   */
  async function showsAsText(p: { page: Page; problems: string[] }, path: string, texts: string[], csp = CSP) {
    const res = await p.page.goto(`${t.svc.url}${path}`);
    expect({ path, status: res?.status(), csp: res?.headers()['content-security-policy'] }).toEqual({ path, status: 200, csp });
    const fields = await Promise.all((await p.page.locator('input').all()).map((input) => input.inputValue()));
    const shown = [await p.page.locator('body').innerText(), ...fields, ...(await p.page.locator('option').allInnerTexts())].join('\n');
    for (const text of texts) expect(shown, path).toContain(text);
    expect({ path, injected: await p.page.locator('img, script, svg, [onerror], [onload]').count() }).toEqual({ path, injected: 0 });
    expect(p.problems).toEqual([]);
  }

  it('owner pages, the consent page and the admin app show them as text under the CSP', async () => {
    const firm = await t.another(`Firma ${HOSTILE}`);
    const companyId = firm.company.companyId;
    // Stored through the API and the operator's procedures.
    await ok(firm.api.PUT('/settings/company', { body: { name: `Firma ${HOSTILE}` } }));
    await internal().internal.createApiKey({ companyId, name: `Nøgle ${HOSTILE}`, scopes: ['customers:read'], mode: 'live' });
    const partner = { clientId: '', clientSecret: '', redirectUri: 'https://partner.example/callback', scopes: ['customers:read' as const] };
    const registered = await createCaller(testDb(), { type: 'operator' }).oauth.createClient({
      name: `Partner ${HOSTILE}`,
      redirectUris: [partner.redirectUri],
      scopes: partner.scopes,
    });
    [partner.clientId, partner.clientSecret] = [registered.client_id, registered.client_secret];
    const pkce = pkcePair();
    await ok(
      oauthApi(t.svc.url).POST('/oauth/token', { body: codeExchange(partner, await approveCode(firm.company, partner, pkce.challenge), pkce.verifier) }),
    );
    // The URL as the API stores and lists it (its serialised form).
    const hookUrl = (await subscribe(firm.api, `${hook.url}?x=${HOSTILE}`, ['customer.created'])).url;
    const requestId = `xss-${Date.now()}`;
    expect(await hostileRequest(firm.key, requestId)).toBe(404);
    const customer_id = (await created(firm.api.POST('/customers', { params: idem(), body: { name: `Kunde ${HOSTILE}` } }))).data.id;
    const subscription = {
      customer_id,
      lines: [{ description: 'Abonnement', quantity: 1, unit_price: 100 }],
      interval: 'month' as const,
      start_date: '2030-01-01',
    };
    const recurring = (await created(firm.api.POST('/recurring-invoices', { params: idem(), body: subscription }))).data.id;

    const owner = await freshPage(browser.browser);
    await owner.page.goto(`${t.svc.url}/signin`);
    await owner.page.getByLabel('Email').fill(firm.company.email);
    await owner.page.getByLabel('Password').fill(PASSWORD);
    await owner.page.getByRole('button', { name: 'Sign in' }).click();
    await owner.page.waitForURL(`${t.svc.url}/settings/api-keys`);
    const q = `company=${companyId}`;
    await showsAsText(owner, `/settings/api-keys?${q}`, [`Nøgle ${HOSTILE}`]);
    await showsAsText(owner, `/settings/connected-apps?${q}`, [`Partner ${HOSTILE}`]);
    await showsAsText(owner, `/settings/company?${q}`, [`Firma ${HOSTILE}`]);
    await showsAsText(owner, `/settings/recurring-invoices?${q}`, [`Kunde ${HOSTILE}`]);
    await showsAsText(owner, `/settings/recurring-invoices/${recurring}?${q}`, [`Kunde ${HOSTILE}`]);
    const consent = new URLSearchParams({
      response_type: 'code',
      client_id: partner.clientId,
      redirect_uri: partner.redirectUri,
      state: HOSTILE,
      scope: 'customers:read',
      code_challenge: pkcePair().challenge,
      code_challenge_method: 'S256',
    });
    await showsAsText(
      owner,
      `/oauth/authorize?${consent}`,
      [`Partner ${HOSTILE}`, `Firma ${HOSTILE}`, HOSTILE],
      CSP.replace("form-action 'self'", "form-action 'self' https://partner.example"),
    );
    // What a visitor typed comes back: the page to return to, and (after a wrong password) the e-mail.
    const anonymous = await freshPage(browser.browser);
    const returnTo = `/settings/api-keys?x=${HOSTILE}`;
    await showsAsText(anonymous, `/signin?return_to=${encodeURIComponent(returnTo)}`, [returnTo]);
    const v = visitor();
    const form = await v.go('/signin');
    const wrong = await v.go('/signin', { form: { csrf_token: form.csrf!, email: `${HOSTILE}@example.dk`, password: 'not it' } });
    expect(wrong.status).toBe(401);
    expect(wrong.text).not.toContain('<script>alert(2)');
    expect(wrong.text).toContain('&#34;&#62;&#60;img/src=x/onerror=alert(1)&#62;&#60;script&#62;');

    const staffPage = await freshPage(browser.browser);
    await staffPage.page.goto(`${t.svc.url}/admin/signin`);
    await staffPage.page.getByLabel('Email').fill(staff.email);
    await staffPage.page.getByLabel('Password').fill(STAFF_PASSWORD);
    await staffPage.page.getByRole('button', { name: 'Sign in' }).click();
    await staffPage.page.waitForURL(`${t.svc.url}/admin/companies`);
    await showsAsText(staffPage, `/admin/companies?q=${encodeURIComponent(HOSTILE)}`, [HOSTILE]);
    await showsAsText(staffPage, `/admin/companies?q=${companyId}`, [`Firma ${HOSTILE}`]);
    await showsAsText(staffPage, `/admin/companies/${companyId}`, [`Firma ${HOSTILE}`, `Nøgle ${HOSTILE}`, `Partner ${HOSTILE}`, hookUrl]);
    await showsAsText(staffPage, '/admin/oauth-clients', [`Partner ${HOSTILE}`]);
    await showsAsText(staffPage, `/admin/requests?id=${requestId}`, [`/api/v1/customers/${HOSTILE.replaceAll("'", '')}`, `Firma ${HOSTILE}`]);
  }, 60_000);
});
