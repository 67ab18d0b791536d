// OAuth 2.0 over HTTP (contract: Authentication > OAuth 2.0; OAuth endpoints; Limits), on two servers:
// the code exchange and its refusals, bearer tokens on the API, refresh rotation and reuse detection,
// RFC 7009 revocation, single use under concurrency, and the token endpoint's limit. Codes come from
// the consent procedure the authorization page calls (the page itself: authorize-page.test.ts).
import { afterAll, assert, beforeAll, describe, expect, it } from 'vitest';
import type { paths } from '../../../test/generated/api.ts';
import {
  api,
  approveCode,
  codeExchange,
  countRows,
  idem,
  internal,
  newCompany,
  oauthApi,
  oauthClient,
  oauthPost,
  ok,
  pkcePair,
  startServers,
  testDb,
  type Schemas,
} from './helpers.ts';

type TokenRequest = paths['/oauth/token']['post']['requestBody']['content']['application/json'];

let servers: Awaited<ReturnType<typeof startServers>>;
let url: string;
let other: string;

beforeAll(async () => {
  // Behind a proxy on loopback, as in production: the token endpoint's limit counts X-Forwarded-For.
  servers = await startServers(1, { TRUST_PROXY: 'loopback' });
  [url, other] = servers.urls as [string, string];
}, 90_000);
afterAll(() => servers?.stop());

/** Each test its own address: the token endpoint's limit is per client and IP address. */
let ipCounter = 0;
const nextIp = () => ({ 'X-Forwarded-For': `198.51.100.${(ipCounter += 1)}` });

/** Makes the client's unused codes expired, as 60 seconds would. */
const expireCodesOf = (clientId: string) =>
  testDb().pool.query("UPDATE oauth_codes SET expires_at = now() - interval '1 second' WHERE used_at IS NULL AND client_id = $1", [clientId]);

/** The status of a customer list read with an access token on `base`: 200 while the token works, 401 once it does not. */
const bearerStatus = async (base: string, accessToken: string) => (await api(base, accessToken).GET('/customers')).response.status;

async function authorized(scopes: Parameters<typeof oauthClient>[0] = ['customers:read', 'customers:write']) {
  const owner = await newCompany('OAuth Ejer ApS');
  const app = await oauthClient(scopes);
  const pkce = pkcePair();
  const code = await approveCode(owner, app, pkce.challenge);
  const headers = nextIp();
  const exchangeBody = codeExchange(app, code, pkce.verifier);
  const exchange = (over: Partial<TokenRequest> = {}, base = url) => oauthApi(base).POST('/oauth/token', { body: { ...exchangeBody, ...over }, headers });
  const refresh = (refreshToken: string, base = url) =>
    oauthApi(base).POST('/oauth/token', {
      body: { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: app.clientId, client_secret: app.clientSecret },
      headers,
    });
  const revoke = (token: string, hint?: 'access_token' | 'refresh_token') =>
    oauthApi(url).POST('/oauth/revoke', {
      body: { token, ...(hint ? { token_type_hint: hint } : {}), client_id: app.clientId, client_secret: app.clientSecret },
      headers,
    });
  return { owner, app, pkce, code, exchangeBody, exchange, refresh, revoke, headers };
}

describe('POST /api/oauth/token, grant_type authorization_code', () => {
  it('answers 200 with the contract fields: tlr_at_, Bearer, 3600, tlr_rt_, space-separated scope, and no-store', async () => {
    const { exchange } = await authorized(['customers:read', 'invoices:read']);
    const res = await exchange();
    expect(res.response.status).toBe(200);
    expect(res.response.headers.get('cache-control')).toBe('no-store');
    expect(res.response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.data).toEqual({
      access_token: expect.stringMatching(/^tlr_at_[0-9a-f]{64}$/),
      token_type: 'Bearer',
      expires_in: 3600,
      refresh_token: expect.stringMatching(/^tlr_rt_[0-9a-f]{64}$/),
      scope: 'customers:read invoices:read',
    });
    // Tokens are stored as digests only.
    const { rows } = await testDb().pool.query<{ n: number }>("SELECT count(*)::int AS n FROM oauth_tokens WHERE encode(token_hash, 'escape') LIKE '%tlr_%'");
    expect(rows[0]?.n).toBe(0);
  });

  it('accepts application/x-www-form-urlencoded (RFC 6749) and HTTP Basic client authentication', async () => {
    // Form bodies go through oauthPost: the typed client speaks JSON.
    const a = await authorized();
    const form = await oauthPost(url, 'token', a.exchangeBody, { form: true, headers: a.headers });
    expect(form.status).toBe(200);
    const b = await authorized();
    const basic = Buffer.from(`${encodeURIComponent(b.app.clientId)}:${encodeURIComponent(b.app.clientSecret)}`).toString('base64');
    const res = await oauthPost<Schemas['OAuthTokenResponse']>(
      url,
      'token',
      { grant_type: 'authorization_code', code: b.code, redirect_uri: b.app.redirectUri, code_verifier: b.pkce.verifier },
      { form: true, headers: { ...b.headers, Authorization: `Basic ${basic}` } },
    );
    expect(res.status).toBe(200);
    expect(res.body.access_token).toMatch(/^tlr_at_/);
  });

  it('refuses each wrong binding with invalid_grant (verifier, redirect URI, another client, expiry) in RFC 6749 form', async () => {
    // Each with a code of its own: a refusal uses the code up (decision 177, below).
    const wrongVerifier = await (await authorized()).exchange({ code_verifier: pkcePair().verifier });
    expect(wrongVerifier.response.status).toBe(400);
    expect(wrongVerifier.error).toEqual({ error: 'invalid_grant', error_description: expect.stringContaining('code_verifier') });
    expect(wrongVerifier.response.headers.get('cache-control')).toBe('no-store');
    const wrongRedirect = await (await authorized()).exchange({ redirect_uri: 'https://partner.example/other' });
    expect(wrongRedirect.error).toEqual({ error: 'invalid_grant', error_description: expect.stringContaining('redirect_uri') });
    // A code is bound to its client: another registered client cannot redeem it, nor learn that it exists.
    const stranger = await oauthClient();
    const foreign = await (await authorized()).exchange({ client_id: stranger.clientId, client_secret: stranger.clientSecret });
    expect(foreign.response.status).toBe(400);
    expect(foreign.error).toEqual({ error: 'invalid_grant', error_description: 'The authorization code is invalid, expired or already used.' });

    const b = await authorized();
    await expireCodesOf(b.app.clientId);
    const expired = await b.exchange();
    expect(expired.response.status).toBe(400);
    expect(expired.error).toEqual({ error: 'invalid_grant', error_description: expect.stringMatching(/expired/) });
  });

  it('refuses bad clients with 401 invalid_client and bad requests with the RFC 6749 codes', async () => {
    const a = await authorized();
    const wrongSecret = await a.exchange({ client_secret: `tlr_cs_${'0'.repeat(64)}` });
    expect(wrongSecret.response.status).toBe(401);
    expect(wrongSecret.error).toMatchObject({ error: 'invalid_client' });
    expect(wrongSecret.response.headers.get('www-authenticate')).toMatch(/^Basic /);
    const unknownClient = await a.exchange({ client_id: '00000000-0000-7000-8000-000000000000' });
    expect(unknownClient.response.status).toBe(401);
    expect(unknownClient.error).toMatchObject({ error: 'invalid_client' });
    // Malformed on purpose from here on (grant types and bodies the document does not allow), so untyped.
    const malformed = (body: Record<string, string>) => oauthPost(url, 'token', body, { headers: a.headers });
    expect((await malformed({ ...a.exchangeBody, grant_type: 'password' })).body.error).toBe('unsupported_grant_type');
    expect((await malformed({ ...a.exchangeBody, grant_type: 'client_credentials' })).body.error).toBe('unsupported_grant_type');
    const noGrantType = await malformed({ client_id: a.app.clientId, client_secret: a.app.clientSecret });
    expect(noGrantType.status).toBe(400);
    expect(noGrantType.body.error).toBe('invalid_request');
    const noVerifier = await malformed({
      grant_type: 'authorization_code',
      code: a.code,
      redirect_uri: a.app.redirectUri,
      client_id: a.app.clientId,
      client_secret: a.app.clientSecret,
    });
    expect(noVerifier.body).toEqual({ error: 'invalid_request', error_description: expect.stringContaining('code_verifier') });
    const plainText = await fetch(`${url}/api/oauth/token`, { method: 'POST', headers: { 'Content-Type': 'text/plain', ...a.headers }, body: 'grant_type=x' });
    expect(plainText.status).toBe(400);
    expect(((await plainText.json()) as Schemas['OAuthError']).error).toBe('invalid_request');
    const broken = await fetch(`${url}/api/oauth/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...a.headers },
      body: '{"grant_type":',
    });
    expect(broken.status).toBe(400);
    expect(((await broken.json()) as Schemas['OAuthError']).error).toBe('invalid_request');
    // None of it used the code.
    expect((await a.exchange()).response.status).toBe(200);
  });

  it('a revoked client (tlr oauth-client revoke) can no longer authenticate, and its tokens stop at once', async () => {
    const a = await authorized();
    const tokens = await ok(a.exchange());
    expect(await bearerStatus(url, tokens.access_token)).toBe(200);
    await internal().oauth.revokeClient({ clientId: a.app.clientId });
    expect(await bearerStatus(other, tokens.access_token)).toBe(401);
    const refused = await a.refresh(tokens.refresh_token);
    expect(refused.response.status).toBe(401);
    expect(refused.error).toMatchObject({ error: 'invalid_client' });
  });
});

describe('a refused code is used up, and what it issued is revoked (decision 177)', () => {
  /** The grants of the owner's company: one for every exchange of its codes that got tokens. */
  const grantsOf = (companyId: string) => countRows('SELECT count(*)::int AS n FROM oauth_grants WHERE company_id = $1', [companyId]);

  /** The right exchange after a refusal of the code: refused too, and no grant, no tokens. */
  async function burnt(a: Awaited<ReturnType<typeof authorized>>) {
    const right = await a.exchange({}, other);
    expect(right.response.status).toBe(400);
    expect(right.data).toBeUndefined();
    expect(right.error).toEqual({ error: 'invalid_grant', error_description: 'The authorization code was already used.' });
    expect(await grantsOf(a.owner.companyId)).toBe(0);
  }

  it('a wrong code_verifier: refused, and the right one after it gets invalid_grant and no tokens', async () => {
    const a = await authorized();
    const wrong = await a.exchange({ code_verifier: pkcePair().verifier });
    expect(wrong.response.status).toBe(400);
    expect(wrong.error).toEqual({ error: 'invalid_grant', error_description: expect.stringMatching(/code_verifier .*can no longer be used/) });
    await burnt(a);
  });

  it('a redirect_uri that differs: refused, and the right one after it gets invalid_grant and no tokens', async () => {
    const a = await authorized();
    const wrong = await a.exchange({ redirect_uri: 'https://partner.example/other' });
    expect(wrong.response.status).toBe(400);
    expect(wrong.error).toEqual({ error: 'invalid_grant', error_description: expect.stringMatching(/redirect_uri .*can no longer be used/) });
    await burnt(a);
  });

  it('an expired code: refused, and used up even were its time given back', async () => {
    const a = await authorized();
    await expireCodesOf(a.app.clientId);
    expect((await a.exchange()).error).toMatchObject({ error: 'invalid_grant' });
    await testDb().pool.query("UPDATE oauth_codes SET expires_at = now() + interval '1 minute' WHERE client_id = $1", [a.app.clientId]);
    await burnt(a);
  });

  it('another client presenting the code burns it; after an exchange, it revokes what the code issued', async () => {
    const stranger = await oauthClient();
    const asStranger = { client_id: stranger.clientId, client_secret: stranger.clientSecret };
    const a = await authorized();
    expect((await a.exchange(asStranger)).error).toMatchObject({ error: 'invalid_grant' });
    await burnt(a);
    const b = await authorized();
    const tokens = await ok(b.exchange());
    const foreign = await b.exchange(asStranger, other);
    expect(foreign.error).toEqual({ error: 'invalid_grant', error_description: 'The authorization code is invalid, expired or already used.' });
    expect(await bearerStatus(url, tokens.access_token)).toBe(401);
  });

  it('a code that issued tokens, presented again with a wrong code_verifier: refused, and the tokens stop', async () => {
    const a = await authorized();
    const tokens = await ok(a.exchange());
    expect(await bearerStatus(url, tokens.access_token)).toBe(200);
    const again = await a.exchange({ code_verifier: pkcePair().verifier }, other);
    expect(again.response.status).toBe(400);
    expect(again.error).toEqual({ error: 'invalid_grant', error_description: expect.stringMatching(/already used; the tokens issued for it are revoked/) });
    expect(await bearerStatus(url, tokens.access_token)).toBe(401);
    expect(await bearerStatus(other, tokens.access_token)).toBe(401);
    expect((await a.refresh(tokens.refresh_token)).error).toMatchObject({ error: 'invalid_grant' });
  });

  it('a wrong and a right exchange at the same moment on two servers: whichever comes first, no token works afterwards', async () => {
    for (let round = 0; round < 5; round++) {
      const a = await authorized();
      const results = await Promise.all([a.exchange({ code_verifier: pkcePair().verifier }, url), a.exchange({}, other)]);
      expect(results[0].response.status).toBe(400);
      expect(await grantsOf(a.owner.companyId)).toBeLessThanOrEqual(1);
      const tokens = results[1].data;
      if (tokens) expect(await bearerStatus(url, tokens.access_token)).toBe(401);
      else expect(results[1].error).toMatchObject({ error: 'invalid_grant' });
    }
  });
});

describe('single use of codes', () => {
  it('a code presented again is refused and revokes the tokens it issued', async () => {
    const a = await authorized();
    const first = await ok(a.exchange());
    expect(await bearerStatus(url, first.access_token)).toBe(200);
    const again = await a.exchange({}, other);
    expect(again.response.status).toBe(400);
    expect(again.error).toMatchObject({ error: 'invalid_grant' });
    expect(await bearerStatus(url, first.access_token)).toBe(401);
    expect((await a.refresh(first.refresh_token)).error).toMatchObject({ error: 'invalid_grant' });
  });

  it('two exchanges of one code at the same moment on two servers: exactly one succeeds', async () => {
    for (let round = 0; round < 5; round++) {
      const a = await authorized();
      const results = await Promise.all([a.exchange({}, url), a.exchange({}, other)]);
      expect(results.map((r) => r.response.status).sort()).toEqual([200, 400]);
      expect(results.map((r) => r.error).filter(Boolean)).toEqual([expect.objectContaining({ error: 'invalid_grant' })]);
      // The company got one grant, no more.
      const { rows } = await testDb().pool.query<{ n: number }>('SELECT count(*)::int AS n FROM oauth_grants WHERE company_id = $1', [a.owner.companyId]);
      expect(rows[0]?.n).toBe(1);
    }
  });
});

describe('Authorization: Bearer on the API (contract: OAuth 2.0, 6)', () => {
  it('works on every server with the granted scopes, the same envelopes and rate-limit headers, on the real company', async () => {
    const a = await authorized(['customers:read', 'customers:write']);
    const { access_token } = await ok(a.exchange());
    const created = await api(other, access_token).POST('/customers', { params: idem(), body: { name: 'Bearer Kunde ApS' } });
    expect(created.response.status).toBe(201);
    expect(created.response.headers.get('x-ratelimit-limit')).toBe('100');
    expect(Number(created.response.headers.get('x-ratelimit-remaining'))).toBe(99);
    expect(created.response.headers.get('x-request-id')).toBeTruthy();
    const list = await ok(api(url, access_token).GET('/customers'));
    expect(list.data.map((c) => c.name)).toEqual(['Bearer Kunde ApS']);
    expect(list.meta).toMatchObject({ page: 1 });
    // The real company's books: a live key of the owner sees the customer, its test key does not.
    const live = await a.owner.key(['customers:read'], 'live');
    expect((await ok(api(url, live.key).GET('/customers'))).data).toHaveLength(1);
    const test = await a.owner.key(['customers:read'], 'test');
    expect((await ok(api(url, test.key).GET('/customers'))).data).toHaveLength(0);
  });

  it('refuses what the grant does not cover with 403, the sandbox reset with 403, and junk tokens with 401', async () => {
    const a = await authorized(['customers:read']);
    const { access_token } = await ok(a.exchange());
    const bearer = api(url, access_token);
    const outside = await bearer.GET('/invoices');
    expect(outside.response.status).toBe(403);
    expect(outside.error).toMatchObject({ code: 'forbidden', status: 403 });
    expect(outside.response.headers.get('x-ratelimit-limit')).toBe('100');
    const reset = await bearer.POST('/sandbox/reset');
    expect(reset.response.status).toBe(403);
    expect(reset.error?.code).toBe('forbidden');
    for (const bad of [`tlr_at_${'0'.repeat(64)}`, 'tlr_rt_' + access_token.slice(7), a.code, 'x']) {
      const res = await api(url).GET('/customers', { headers: { Authorization: `Bearer ${bad}` } });
      expect(res.response.status).toBe(401);
      expect(res.error?.code).toBe('unauthorized');
      expect(res.response.headers.get('www-authenticate')).toBe('Bearer realm="tlr", error="invalid_token"');
      expect(res.response.headers.get('x-ratelimit-limit')).toBeNull();
    }
    const basic = await api(url).GET('/customers', { headers: { Authorization: 'Basic Zm9vOmJhcg==' } });
    expect(basic.response.status).toBe(401);
  });

  it("counts 100 requests per 60 s per access token, then 429 with Retry-After; a refreshed token continues its grant's count (decision 173)", async () => {
    const a = await authorized(['customers:read']);
    const tokens = await ok(a.exchange());
    const answers = [];
    for (let i = 0; i < 100; i++) answers.push(await bearerStatus(url, tokens.access_token));
    expect(answers.every((s) => s === 200)).toBe(true);
    const limited = await api(other, tokens.access_token).GET('/customers');
    expect(limited.response.status).toBe(429);
    expect(Number(limited.response.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.response.headers.get('x-ratelimit-remaining')).toBe('0');
    const next = await ok(a.refresh(tokens.refresh_token));
    expect(await bearerStatus(url, next.access_token)).toBe(429);
  });
});

describe('grant_type refresh_token (contract: OAuth 2.0, 7)', () => {
  it('gives a new pair; the used refresh token is refused; replaying it revokes the whole family', async () => {
    const a = await authorized();
    const first = await ok(a.exchange());
    const answer = await a.refresh(first.refresh_token);
    expect(answer.response.status).toBe(200);
    expect(answer.response.headers.get('cache-control')).toBe('no-store');
    const second = answer.data;
    assert(second, 'a new token pair');
    expect(second).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'customers:read customers:write' });
    expect(second.access_token).not.toBe(first.access_token);
    expect(second.refresh_token).not.toBe(first.refresh_token);
    // The earlier access token lives out its hour; the new pair works.
    const third = await ok(a.refresh(second.refresh_token, other));
    expect(await bearerStatus(url, third.access_token)).toBe(200);

    // Replay of an already used refresh token: refused, and every token of the family goes.
    const replay = await a.refresh(first.refresh_token);
    expect(replay.response.status).toBe(400);
    expect(replay.error).toMatchObject({ error: 'invalid_grant' });
    expect(await bearerStatus(other, third.access_token)).toBe(401);
    expect((await a.refresh(third.refresh_token)).error).toMatchObject({ error: 'invalid_grant' });
    const { rows } = await testDb().pool.query<{ revoked_at: Date | null }>('SELECT revoked_at FROM oauth_grants WHERE company_id = $1', [a.owner.companyId]);
    expect(rows[0]?.revoked_at).toBeInstanceOf(Date);
  });

  it('two refreshes with one token at the same moment: exactly one succeeds, and the replay ends the family', async () => {
    const a = await authorized();
    const first = await ok(a.exchange());
    const results = await Promise.all([a.refresh(first.refresh_token, url), a.refresh(first.refresh_token, other)]);
    expect(results.map((r) => r.response.status).sort()).toEqual([200, 400]);
    const winner = results.find((r) => r.data)?.data;
    assert(winner, 'the token pair of the refresh that won');
    expect(await bearerStatus(url, winner.access_token)).toBe(401);
  });

  it('refuses an access token, a token of another client, an expired and a garbled refresh token', async () => {
    const a = await authorized();
    const tokens = await ok(a.exchange());
    expect((await a.refresh(tokens.access_token)).error).toMatchObject({ error: 'invalid_grant' });
    expect((await a.refresh('tlr_rt_nope')).error).toMatchObject({ error: 'invalid_grant' });
    const b = await authorized();
    const theirs = await ok(b.exchange());
    expect((await a.refresh(theirs.refresh_token)).error).toMatchObject({ error: 'invalid_grant' });
    // Refused without being used: its own client can still refresh with it.
    expect((await b.refresh(theirs.refresh_token)).response.status).toBe(200);
    await testDb().pool.query(
      "UPDATE oauth_tokens SET expires_at = now() - interval '1 second' WHERE kind = 'refresh' AND used_at IS NULL AND grant_id IN (SELECT id FROM oauth_grants WHERE company_id = $1)",
      [a.owner.companyId],
    );
    const expired = await a.refresh(tokens.refresh_token);
    expect(expired.error).toEqual({ error: 'invalid_grant', error_description: expect.stringMatching(/expired/) });
  });
});

describe('POST /api/oauth/revoke (RFC 7009)', () => {
  it('revoking an access token answers 200 and the token answers 401 at once on every server', async () => {
    const a = await authorized();
    const tokens = await ok(a.exchange());
    expect(await bearerStatus(other, tokens.access_token)).toBe(200);
    const res = await a.revoke(tokens.access_token, 'access_token');
    expect(res.response.status).toBe(200);
    expect(res.response.headers.get('cache-control')).toBe('no-store');
    expect(await bearerStatus(url, tokens.access_token)).toBe(401);
    expect(await bearerStatus(other, tokens.access_token)).toBe(401);
    // An access token alone: the refresh token still gives a new pair.
    expect((await a.refresh(tokens.refresh_token)).response.status).toBe(200);
  });

  it('revoking a refresh token ends its family: the access token stops too', async () => {
    const a = await authorized();
    const tokens = await ok(a.exchange());
    expect((await a.revoke(tokens.refresh_token, 'refresh_token')).response.status).toBe(200);
    expect(await bearerStatus(other, tokens.access_token)).toBe(401);
    expect((await a.refresh(tokens.refresh_token)).error).toMatchObject({ error: 'invalid_grant' });
  });

  it('answers 200 for an authenticated client whatever the token, but revokes only its own; 401 for a bad client', async () => {
    const a = await authorized();
    const b = await authorized();
    const theirs = await ok(b.exchange());
    for (const token of [theirs.access_token, theirs.refresh_token, `tlr_at_${'1'.repeat(64)}`, 'garbage']) {
      expect((await a.revoke(token)).response.status).toBe(200);
    }
    expect(await bearerStatus(url, theirs.access_token)).toBe(200);
    // Malformed on purpose: no token.
    const noToken = await oauthPost(url, 'revoke', { client_id: a.app.clientId, client_secret: a.app.clientSecret }, { headers: a.headers });
    expect(noToken.body.error).toBe('invalid_request');
    const badClient = await oauthApi(url).POST('/oauth/revoke', {
      body: { token: theirs.access_token, client_id: a.app.clientId, client_secret: 'wrong' },
      headers: a.headers,
    });
    expect(badClient.response.status).toBe(401);
    expect(badClient.error).toMatchObject({ error: 'invalid_client' });
  });
});

describe('the token endpoint limit: 10 requests per 60 seconds per client and IP address', () => {
  it('answers the 11th with 429, Retry-After and the limit headers; another address or another client is not affected', async () => {
    const a = await authorized();
    const ip = { 'X-Forwarded-For': '203.0.113.77' };
    const wrong: TokenRequest = { grant_type: 'refresh_token', refresh_token: 'tlr_rt_x', client_id: a.app.clientId, client_secret: a.app.clientSecret };
    const token = (base: string, body: TokenRequest, headers: Record<string, string>) => oauthApi(base).POST('/oauth/token', { body, headers });
    const statuses = [];
    for (let i = 0; i < 10; i++) {
      const r = await token(i % 2 ? url : other, wrong, ip);
      statuses.push(r.response.status);
      expect(r.response.headers.get('x-ratelimit-limit')).toBe('10');
      expect(r.response.headers.get('x-ratelimit-remaining')).toBe(String(9 - i));
    }
    expect(statuses.every((s) => s === 400)).toBe(true);
    const limited = await token(url, wrong, ip);
    expect(limited.response.status).toBe(429);
    expect(limited.response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(limited.error).toMatchObject({ status: 429, code: 'rate_limited', title: expect.stringMatching(/10 requests per 60 seconds/) });
    expect(Number(limited.response.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(limited.response.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    // Even a correct exchange waits: the secret cannot be guessed faster than the limit.
    expect((await token(other, a.exchangeBody, ip)).response.status).toBe(429);
    // Another address of the same client, and another client from the same address, count apart.
    expect((await token(url, wrong, { 'X-Forwarded-For': '203.0.113.78' })).response.status).toBe(400);
    const b = await oauthClient();
    expect((await token(url, { ...wrong, client_id: b.clientId, client_secret: b.clientSecret }, ip)).response.status).toBe(400);
  });
});
