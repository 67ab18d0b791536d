// The owner pages over plain HTTP (the browser flows: pages.test.ts): what GET /oauth/authorize
// answers to a bad request (a page for a bad client or redirect URI, never a redirect; everything else
// back to the client with the RFC 6749 error and the state), a consent form tampered with, the CSRF and
// Origin checks, the session cookie and its rotation, the page headers, open redirects, and sign-in
// throttling that says the same for e-mails that exist and that do not.
import { randomBytes, randomInt } from 'node:crypto';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { createCaller } from '@tlr/api';
import { signInClock } from '@tlr/domain';
import { internal, newCompany, pkcePair, testDb, useCompany } from './helpers.ts';

const PASSWORD = 'correct horse battery';
const CALLBACK = 'http://127.0.0.1:9/callback';

// Behind a proxy on loopback (TRUST_PROXY): each test's client comes from an address of its own.
const t = useCompany({ name: 'Fjordside ApS', env: { OAUTH_ALLOW_HTTP_LOCALHOST: 'true', TRUST_PROXY: 'loopback' } });
let app: { client_id: string };

beforeAll(async () => {
  app = await createCaller(testDb(), { type: 'operator' }, { oauthAllowLocalhost: true }).oauth.createClient({
    name: 'Partner <b>Regnskab</b>',
    redirectUris: [CALLBACK],
    scopes: ['customers:read', 'invoices:read'],
  });
});

/** A client of its own address each (sign-in is throttled per address; X-Forwarded-For counts from loopback here). */
const newIp = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  /** The session cookie the answer set (name=value), if any. */
  cookie: string | undefined;
  /** The CSRF token of the page's first form. */
  csrf: string | undefined;
}

async function send(
  path: string,
  opts: { cookie?: string; form?: Record<string, string>; headers?: Record<string, string>; ip?: string } = {},
): Promise<Answer> {
  const res = await fetch(`${t.svc.url}${path}`, {
    method: opts.form ? 'POST' : 'GET',
    redirect: 'manual',
    headers: {
      'X-Forwarded-For': opts.ip ?? newIp(),
      ...(opts.cookie ? { Cookie: opts.cookie } : {}),
      ...(opts.form ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}),
      ...opts.headers,
    },
    ...(opts.form ? { body: new URLSearchParams(opts.form).toString() } : {}),
  });
  const text = await res.text();
  return {
    status: res.status,
    headers: res.headers,
    text,
    cookie: res.headers.get('set-cookie')?.split(';')[0],
    csrf: /name="csrf_token" value="([^"]+)"/.exec(text)?.[1],
  };
}

/** A signed-in session, as a browser gets one: the form's anonymous session, then a new one on sign-in. */
async function signedIn(ip = newIp()) {
  const form = await send('/signin', { ip });
  const done = await send('/signin', { ip, cookie: form.cookie!, form: { csrf_token: form.csrf!, email: t.company.email, password: PASSWORD } });
  expect(done.status).toBe(303);
  const page = await send('/settings/api-keys', { ip, cookie: done.cookie! });
  expect(page.status).toBe(200);
  return { ip, cookie: done.cookie!, csrf: page.csrf!, anonymous: form.cookie! };
}

function authorizeQuery(over: Record<string, string | undefined> = {}) {
  const params: Record<string, string | undefined> = {
    response_type: 'code',
    client_id: app.client_id,
    redirect_uri: CALLBACK,
    state: 'st-123',
    scope: 'customers:read',
    code_challenge: pkcePair().challenge,
    code_challenge_method: 'S256',
    ...over,
  };
  return Object.fromEntries(Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined));
}
const authorizePath = (over: Record<string, string | undefined> = {}) => `/oauth/authorize?${new URLSearchParams(authorizeQuery(over))}`;

const alertOf = (text: string) => /role="alert"[^>]*>([^<]*)</.exec(text)?.[1];

describe('GET /oauth/authorize: refusals', () => {
  it.each([
    ['no client_id', { client_id: undefined }, 'The request names no client'],
    ['an unknown client', { client_id: '0190f0e0-0000-7000-8000-000000000000' }, 'is not registered with tlr'],
    ['a client_id that is no id', { client_id: 'partner' }, 'is not registered with tlr'],
    ['an unregistered redirect_uri', { redirect_uri: 'https://evil.example/callback' }, 'The return address is not one registered for'],
    ['no redirect_uri', { redirect_uri: undefined }, 'The return address is not one registered for'],
  ])('answers %s with a 400 page and no redirect', async (_what, over, message) => {
    const res = await send(authorizePath(over));
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(alertOf(res.text)).toContain(message);
  });

  it('names the client escaped, never as markup', async () => {
    const res = await send(authorizePath({ redirect_uri: 'https://evil.example/' }));
    expect(res.text).toContain('Partner &#60;b&#62;Regnskab&#60;/b&#62;');
    expect(res.text).not.toContain('<b>Regnskab');
  });

  it('answers a revoked client with the page too', async () => {
    const gone = await createCaller(testDb(), { type: 'operator' }, { oauthAllowLocalhost: true }).oauth.createClient({
      name: 'Withdrawn',
      redirectUris: [CALLBACK],
      scopes: ['customers:read'],
    });
    await internal().oauth.revokeClient({ clientId: gone.client_id });
    const res = await send(authorizePath({ client_id: gone.client_id }));
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
  });

  it.each([
    ['code_challenge_method=plain', { code_challenge_method: 'plain' }, 'invalid_request'],
    ['no code_challenge', { code_challenge: undefined }, 'invalid_request'],
    ['no code_challenge_method', { code_challenge_method: undefined }, 'invalid_request'],
    ['a scope outside the registration', { scope: 'customers:read invoices:write' }, 'invalid_scope'],
    ['an unknown scope', { scope: 'everything' }, 'invalid_scope'],
    ['response_type=token', { response_type: 'token' }, 'unsupported_response_type'],
  ])('sends %s back to the redirect URI with the error and the state', async (_what, over, error) => {
    const res = await send(authorizePath(over));
    expect(res.status).toBe(303);
    const location = new URL(res.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(CALLBACK);
    expect(location.searchParams.get('error')).toBe(error);
    expect(location.searchParams.get('state')).toBe('st-123');
    expect(location.searchParams.get('error_description')).toBeTruthy();
    expect(location.searchParams.has('code')).toBe(false);
  });
});

describe('GET /oauth/authorize: the forms', () => {
  it('shows a sign-in form that returns to the same authorization request', async () => {
    const path = authorizePath();
    const res = await send(path);
    expect(res.status).toBe(200);
    expect(res.text).toContain('<label for="email">Email</label>');
    expect(res.text).toContain('<label for="password">Password</label>');
    const returnTo = /name="return_to" value="([^"]+)"/.exec(res.text)![1]!.replaceAll('&#38;', '&');
    expect(returnTo).toBe(path);
    // Signing in through that form lands back on the request, now as the consent page.
    const done = await send('/signin', {
      cookie: res.cookie!,
      form: { csrf_token: res.csrf!, email: t.company.email, password: PASSWORD, return_to: returnTo },
    });
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe(path);
    const consent = await send(path, { cookie: done.cookie! });
    expect(consent.text).toContain('Partner &#60;b&#62;Regnskab&#60;/b&#62; wants to use your books');
    expect(consent.text).toContain('<li>See your customers');
    expect(consent.text).not.toContain('See your invoices');
  });

  it('the consent page lets its form lead to the client’s origin, and nothing else is loosened', async () => {
    const { cookie } = await signedIn();
    const query = authorizeQuery();
    const res = await send(`/oauth/authorize?${new URLSearchParams(query)}`, { cookie });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toBe(
      "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self' http://127.0.0.1:9; frame-ancestors 'none'; base-uri 'none'",
    );
    // Every parameter the check reads is repeated in the form, with the company choice and the two buttons.
    for (const [name, value] of Object.entries(query)) expect(res.text).toContain(`name="${name}" value="${value}"`);
    expect(res.text).toContain(`<option value="${t.company.companyId}">Fjordside ApS</option>`);
    expect(res.text).toMatch(/<button type="submit" name="decision" value="approve">Approve<\/button>/);
    expect(res.text).toMatch(/<button type="submit" name="decision" value="deny"[^>]*>Deny<\/button>/);
  });
});

describe('POST /oauth/authorize checks the request again', () => {
  async function decide(over: Record<string, string | undefined>, extra: Record<string, string>) {
    const session = await signedIn();
    return send('/oauth/authorize', { ip: session.ip, cookie: session.cookie, form: { ...authorizeQuery(over), csrf_token: session.csrf, ...extra } });
  }

  it('approves: a code for the company and the state', async () => {
    const res = await decide({}, { company: t.company.companyId, decision: 'approve' });
    expect(res.status).toBe(303);
    const back = new URL(res.headers.get('location')!);
    expect(back.searchParams.get('code')).toMatch(/^tlr_code_[0-9a-f]{64}$/);
    expect(back.searchParams.get('state')).toBe('st-123');
  });

  it('denies: access_denied and the state', async () => {
    const res = await decide({}, { company: t.company.companyId, decision: 'deny' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`${CALLBACK}?error=access_denied&state=st-123`);
  });

  it('refuses a redirect URI swapped in the hidden fields with a page, not a redirect', async () => {
    const res = await decide({ redirect_uri: 'https://evil.example/callback' }, { company: t.company.companyId, decision: 'approve' });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
  });

  it('sends a widened scope back as invalid_scope, with no code', async () => {
    const res = await decide({ scope: 'customers:read webhooks:manage' }, { company: t.company.companyId, decision: 'approve' });
    expect(res.status).toBe(303);
    expect(new URL(res.headers.get('location')!).searchParams.get('error')).toBe('invalid_scope');
  });

  it('refuses a company the user does not own with a 400 page, and issues no code', async () => {
    const other = await newCompany('Fremmed ApS');
    const res = await decide({}, { company: other.companyId, decision: 'approve' });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(alertOf(res.text)).toBe(`No company with id ${other.companyId}.`);
    const { rows } = await testDb().pool.query<{ n: number }>('SELECT count(*)::int AS n FROM oauth_codes WHERE company_id = $1', [other.companyId]);
    expect(rows[0]?.n).toBe(0);
  });

  it('refuses a missing decision with a page', async () => {
    const res = await decide({}, { company: t.company.companyId });
    expect(res.status).toBe(400);
    expect(alertOf(res.text)).toBe('Choose Approve or Deny.');
  });
});

describe('CSRF and Origin', () => {
  it('refuses a POST without a token, with a wrong one, without a session or from another origin: 403', async () => {
    const form = await send('/signin');
    const signIn = (csrf: string | undefined, cookie: string | undefined, headers: Record<string, string> = {}) =>
      send('/signin', {
        ...(cookie ? { cookie } : {}),
        headers,
        form: { ...(csrf === undefined ? {} : { csrf_token: csrf }), email: t.company.email, password: 'wrong password' },
      });
    for (const res of [
      await signIn(undefined, form.cookie),
      await signIn(`${form.csrf!.slice(0, -2)}xx`, form.cookie),
      await signIn('', form.cookie),
      await signIn(form.csrf, undefined),
      await signIn(form.csrf, form.cookie, { Origin: 'https://evil.example' }),
      await signIn(form.csrf, form.cookie, { Origin: 'null' }),
    ]) {
      expect(res.status).toBe(403);
      expect(alertOf(res.text)).toBe('This form has expired or did not come from this site. Reload the page and try again.');
    }
    // The same form with its token, from this origin, reaches the password check.
    const ok = await signIn(form.csrf, form.cookie, { Origin: new URL(t.svc.url).origin });
    expect(ok.status).toBe(401);
  });

  it('refuses the other forms without the token too', async () => {
    const { cookie } = await signedIn();
    for (const path of [
      '/oauth/authorize',
      '/settings/api-keys',
      '/settings/api-keys/revoke',
      '/settings/connected-apps/revoke',
      '/settings/company',
      '/signout',
    ]) {
      const res = await send(path, { cookie, form: { company: t.company.companyId, name: 'x', scopes: 'customers:read', mode: 'live', cvr: '12345674' } });
      expect([path, res.status]).toEqual([path, 403]);
    }
    // Still signed in: the refused sign-out did nothing.
    expect((await send('/settings/api-keys', { cookie })).status).toBe(200);
    // And the refused company form changed nothing.
    expect((await internal().internal.companySettings({ companyId: t.company.companyId })).cvr).toBe('');
  });

  it('refuses the company form for a company the user does not own: a 400 page, that company unchanged', async () => {
    const other = await newCompany('Fremmed Sælger ApS');
    const { cookie, csrf } = await signedIn();
    const res = await send('/settings/company', { cookie, form: { csrf_token: csrf, company: other.companyId, name: 'Overtaget ApS', cvr: '12345674' } });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(alertOf(res.text)).toBe(`No company with id ${other.companyId}.`);
    expect(await internal().internal.companySettings({ companyId: other.companyId })).toMatchObject({ name: 'Fremmed Sælger ApS', cvr: '' });
  });

  it('answers hostile company forms with the form again naming the field, never a 500, and changes nothing', async () => {
    const { cookie, csrf } = await signedIn();
    const before = await internal().internal.companySettings({ companyId: t.company.companyId });
    for (const [field, value, rule] of [
      ['name', 'Nul\u0000byte ApS', 'must not contain a NUL character'],
      ['cvr', '<script>alert(1)</script>', 'must have 8 digits'],
      ['iban', 'DK50'.padEnd(5000, '9'), 'must have at most 42 characters'],
    ] as const) {
      const res = await send('/settings/company', { cookie, form: { csrf_token: csrf, company: t.company.companyId, [field]: value } });
      expect([field, res.status]).toEqual([field, 400]);
      expect(res.text).not.toContain('<script>alert(1)</script>'); // what was typed comes back escaped
      expect(alertOf(res.text), field).toMatch(new RegExp(`^[^:]+: ${rule}`)); // the field's label, then the rule once
    }
    expect(await internal().internal.companySettings({ companyId: t.company.companyId })).toEqual(before);
  });
});

describe('the session cookie', () => {
  const attrs = (setCookie: string | null) => setCookie!.split(';').map((s) => s.trim());

  it('is HttpOnly, SameSite=Lax, Path=/, and not Secure over plain http', async () => {
    const res = await send('/signin');
    const [pair, ...rest] = attrs(res.headers.get('set-cookie'));
    expect(pair).toMatch(/^tlr_session=[A-Za-z0-9_-]{43}$/);
    expect(rest.sort()).toEqual(['HttpOnly', 'Path=/', 'SameSite=Lax']);
  });

  it('is Secure when the request came over https (a TLS-terminating proxy on loopback says so)', async () => {
    const res = await send('/signin', { headers: { 'X-Forwarded-Proto': 'https' } });
    expect(attrs(res.headers.get('set-cookie'))).toContain('Secure');
  });

  it('is replaced on sign-in (the anonymous session is gone) and cleared on sign-out', async () => {
    const s = await signedIn();
    expect(s.cookie).not.toBe(s.anonymous);
    // The form's session is deleted, not promoted: it cannot post a form any more.
    const stale = await send('/signin', { cookie: s.anonymous, form: { csrf_token: 'x', email: t.company.email, password: PASSWORD } });
    expect(stale.status).toBe(403);

    const out = await send('/signout', { cookie: s.cookie, form: { csrf_token: s.csrf } });
    expect(out.status).toBe(303);
    expect(out.headers.get('location')).toBe('/signin');
    expect(attrs(out.headers.get('set-cookie'))).toEqual(expect.arrayContaining(['tlr_session=', 'Max-Age=0']));
    const after = await send('/settings/api-keys', { cookie: s.cookie });
    expect(after.status).toBe(303);
    expect(after.headers.get('location')).toBe('/signin?return_to=%2Fsettings%2Fapi-keys');
  });
});

describe('page headers', () => {
  it.each(['/signin', '/oauth/authorize?client_id=nobody', '/settings/api-keys'])('%s: CSP, no framing, no caching, no referrer out', async (path) => {
    const { cookie } = await signedIn();
    const res = await send(path, { cookie });
    expect(res.headers.get('content-security-policy')).toBe(
      "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    );
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('referrer-policy')).toBe('same-origin');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('serves the stylesheet from this server, cached under its content hash', async () => {
    const page = await send('/signin');
    const href = /<link rel="stylesheet" href="(\/assets\/pages\.[0-9a-f]{16}\.css)">/.exec(page.text)![1]!;
    const css = await send(href);
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toMatch(/^text\/css/);
    expect(css.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
  });
});

describe('sign-in', () => {
  it.each([
    ['https://evil.example/', '/settings/api-keys'],
    ['//evil.example/settings/', '/settings/api-keys'],
    ['/settings/\\evil', '/settings/api-keys'],
    ['/api/v1/customers', '/settings/api-keys'],
    ['/settings/connected-apps', '/settings/connected-apps'],
  ])('return_to %s leads to %s', async (returnTo, location) => {
    const ip = newIp();
    const form = await send(`/signin?return_to=${encodeURIComponent(returnTo)}`, { ip });
    expect(form.text.includes('name="return_to"')).toBe(returnTo === location);
    const done = await send('/signin', {
      ip,
      cookie: form.cookie!,
      form: { csrf_token: form.csrf!, email: t.company.email, password: PASSWORD, return_to: returnTo },
    });
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe(location);
  });

  it('is throttled after 5 wrong passwords with the same answer for an e-mail that exists and one that does not', async () => {
    // The throttle's clock stopped at the database's now (the pages run in this process): the hold then
    // reads a whole minute however slow the machine is between the fifth attempt and the sixth.
    const frozen = new Date((await testDb().pool.query<{ now: Date }>('SELECT now() AS now')).rows[0]!.now);
    signInClock.now = () => frozen;
    onTestFinished(() => {
      signInClock.now = undefined;
    });
    // An owner of its own: its e-mail stays held from this address for a minute.
    const locked = await newCompany('Spærret ApS');
    const answers: Answer[] = [];
    for (const email of [locked.email, `nobody-${randomBytes(4).toString('hex')}@example.dk`]) {
      const ip = newIp();
      const form = await send('/signin', { ip });
      const attempt = (password: string) => send('/signin', { ip, cookie: form.cookie!, form: { csrf_token: form.csrf!, email, password } });
      for (let i = 0; i < 5; i++) {
        const wrong = await attempt(`wrong ${i}`);
        expect(wrong.status).toBe(401);
        expect(alertOf(wrong.text)).toBe('The e-mail or password is not right.');
      }
      // Even the right password: throttling comes before any password is checked.
      answers.push(await attempt(PASSWORD));
    }
    for (const res of answers) {
      expect(res.status).toBe(429);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(50);
      expect(Number(res.headers.get('retry-after'))).toBeLessThanOrEqual(60);
      expect(alertOf(res.text)).toBe('Too many sign-in attempts. Try again in 1 minute.');
    }
  });

  it('answers hostile e-mails (NUL, control characters, a lone surrogate, 5,000 characters) as wrong ones, never 500', async () => {
    const ip = newIp();
    const form = await send('/signin', { ip });
    for (const email of [`${t.company.email}\u0000`, `a\u0000b@example.dk`, 'a\u0007b@example.dk', '\ud800@example.dk', 'x'.repeat(5000)]) {
      const res = await send('/signin', { ip, cookie: form.cookie!, form: { csrf_token: form.csrf!, email, password: PASSWORD } });
      expect(res.status, JSON.stringify(email.slice(0, 20))).toBe(401);
      expect(alertOf(res.text)).toBe('The e-mail or password is not right.');
    }
  });

  it('signs in with the e-mail in another case', async () => {
    const ip = newIp();
    const form = await send('/signin', { ip });
    const done = await send('/signin', {
      ip,
      cookie: form.cookie!,
      form: { csrf_token: form.csrf!, email: t.company.email.toUpperCase(), password: PASSWORD },
    });
    expect(done.status).toBe(303);
  });
});

describe('settings pages', () => {
  it('send a visitor who is not signed in to the sign-in page, and back', async () => {
    const res = await send('/settings/connected-apps?company=abc');
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/signin?return_to=%2Fsettings%2Fconnected-apps%3Fcompany%3Dabc');
  });

  it('answer a company the user does not own with a 400 page', async () => {
    const other = await newCompany('Andens ApS');
    const { cookie } = await signedIn();
    for (const path of ['/settings/api-keys', '/settings/connected-apps']) {
      const res = await send(`${path}?company=${other.companyId}`, { cookie });
      expect(res.status).toBe(400);
      expect(alertOf(res.text)).toBe(`No company with id ${other.companyId}.`);
    }
  });

  it('refuse to revoke a key of another company', async () => {
    const other = await newCompany('Tredje ApS');
    const theirs = await other.key(['customers:read']);
    const s = await signedIn();
    const res = await send('/settings/api-keys/revoke', {
      ip: s.ip,
      cookie: s.cookie,
      form: { csrf_token: s.csrf, company: t.company.companyId, id: theirs.id },
    });
    expect(res.status).toBe(400);
    const { rows } = await testDb().pool.query<{ revoked_at: Date | null }>('SELECT revoked_at FROM api_keys WHERE id = $1', [theirs.id]);
    expect(rows).toEqual([{ revoked_at: null }]);
  });

  it('refuse a form larger than 16 kB with a page', async () => {
    const s = await signedIn();
    const res = await send('/settings/api-keys', { ip: s.ip, cookie: s.cookie, form: { csrf_token: s.csrf, name: 'x'.repeat(20_000) } });
    expect(res.status).toBe(413);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('x-frame-options')).toBe('DENY');
  });
});
