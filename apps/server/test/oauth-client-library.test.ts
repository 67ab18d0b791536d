// The whole OAuth 2.0 flow as a partner application runs it, with a real client library (oauth4webapi)
// and the owner in a real Chromium: RFC 8414 discovery, PKCE S256, sign-in and consent on
// {app_url}/oauth/authorize, the code exchange, an API call with the bearer token, refresh rotation,
// RFC 7009 revocation, and reuse detection revoking the family. The partner's https callback is
// answered by the browser's request interception, so no http redirect URI is needed.
import * as oauth from 'oauth4webapi';
import { afterAll, assert, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, type BrowserSession } from '../../../test/browser.ts';
import { internal, newCompany, oauthClient, ok, useCompany } from './helpers.ts';

const insecure = { [oauth.allowInsecureRequests]: true }; // the test service speaks plain http on loopback

// The owner whose company the partner app is connected to, with a key of its own for checking the books.
const t = useCompany({ name: 'Partnerkunde ApS' });
let browser: BrowserSession;

beforeAll(async () => {
  browser = await launchBrowser();
}, 60_000);
afterAll(() => browser?.close());

/** The owner signs in and answers the consent page; returns the URL the browser was sent back to. */
async function ownerAnswers(authorizationUrl: URL, redirectUri: string, owner: { email: string }, decision: 'Approve' | 'Deny', company: string) {
  const page = await browser.browser.newPage();
  try {
    let callback: string | undefined;
    await page.route(`${redirectUri}**`, (route) => {
      callback = route.request().url();
      return route.fulfill({ status: 200, contentType: 'text/plain', body: 'partner app received the callback' });
    });
    await page.goto(authorizationUrl.href);
    await page.getByLabel('Email').fill(owner.email);
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByLabel('Company').selectOption({ label: company });
    await page.getByRole('button', { name: decision }).click();
    await page.waitForURL(`${redirectUri}**`);
    assert(callback, 'the partner app got its callback');
    return new URL(callback);
  } finally {
    await page.close();
  }
}

/** What a partner app does first: discover the server (RFC 8414) and build an authorization URL with a fresh PKCE pair and state. */
async function startAuthorization(registered: { clientId: string; redirectUri: string }, scope: string) {
  const issuer = new URL(t.svc.url);
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
  const client: oauth.Client = { client_id: registered.clientId };
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  assert(as.authorization_endpoint, 'the discovery document names the authorization endpoint');
  const url = new URL(as.authorization_endpoint);
  url.search = new URLSearchParams({
    client_id: client.client_id,
    redirect_uri: registered.redirectUri,
    response_type: 'code',
    scope,
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  }).toString();
  return { as, client, verifier, state, url };
}

describe('a partner application with oauth4webapi', () => {
  it('discovers, authorizes with PKCE, calls the API, refreshes, revokes, and a replayed refresh token ends the family', async () => {
    const owner = t.company;
    await newCompany('Anden Virksomhed ApS'); // another owner's company never shows in the select
    const registered = await oauthClient(['customers:read', 'customers:write', 'invoices:read']);
    const { as, client, verifier, state, url } = await startAuthorization(registered, 'customers:read customers:write');
    expect(as.code_challenge_methods_supported).toEqual(['S256']);
    const auth = oauth.ClientSecretPost(registered.clientSecret);

    const callback = await ownerAnswers(url, registered.redirectUri, owner, 'Approve', 'Partnerkunde ApS');
    const params = oauth.validateAuthResponse(as, client, callback, state);
    expect(params.get('code')).toMatch(/^tlr_code_/);

    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(as, client, auth, params, registered.redirectUri, verifier, insecure),
    );
    expect(tokens).toMatchObject({ token_type: 'bearer', expires_in: 3600, scope: 'customers:read customers:write' });
    expect(tokens.access_token).toMatch(/^tlr_at_/);
    expect(tokens.refresh_token).toMatch(/^tlr_rt_/);
    assert(tokens.refresh_token);

    // The partner's calls go through the library (it speaks RFC 6750), not through the test's client.
    const resource = (token: string, method = 'GET', body?: unknown) =>
      oauth.protectedResourceRequest(
        token,
        method,
        new URL(`${t.svc.url}/api/v1/customers`),
        new Headers(body ? { 'Content-Type': 'application/json', 'Idempotency-Key': `lib-${Date.now()}` } : {}),
        body ? JSON.stringify(body) : null,
        insecure,
      );
    // A refused token: the library surfaces the RFC 6750 challenge as an error with the response.
    const refused = async (token: string) => {
      const e = await resource(token).then(
        () => null,
        (err: unknown) => err,
      );
      assert.instanceOf(e, oauth.WWWAuthenticateChallengeError);
      expect(e.status).toBe(401);
      expect(e.cause[0]).toMatchObject({ scheme: 'bearer', parameters: { realm: 'tlr', error: 'invalid_token' } });
    };
    const created = await resource(tokens.access_token, 'POST', { name: 'Via partner app' });
    expect(created.status).toBe(201);
    // It landed in the approved company's real books (an API key of that company sees it).
    const seen = await ok(t.api.GET('/customers'));
    expect(seen.data.map((c) => c.name)).toEqual(['Via partner app']);

    // Refresh (HTTP Basic client authentication this time): a new pair, and both work.
    const basic = oauth.ClientSecretBasic(registered.clientSecret);
    const rotated = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, basic, tokens.refresh_token, insecure),
    );
    assert(rotated.refresh_token);
    expect(rotated.refresh_token).not.toBe(tokens.refresh_token);
    expect((await resource(rotated.access_token)).status).toBe(200);

    // RFC 7009: the revoked access token answers 401 at once.
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, auth, tokens.access_token, insecure));
    await refused(tokens.access_token);
    expect((await resource(rotated.access_token)).status).toBe(200);

    // The first refresh token again: refused as invalid_grant, and the whole family goes with it.
    const replay = oauth.processRefreshTokenResponse(as, client, await oauth.refreshTokenGrantRequest(as, client, auth, tokens.refresh_token, insecure));
    await expect(replay).rejects.toMatchObject({ error: 'invalid_grant' });
    await refused(rotated.access_token);
    const after = oauth.processRefreshTokenResponse(as, client, await oauth.refreshTokenGrantRequest(as, client, auth, rotated.refresh_token, insecure));
    await expect(after).rejects.toMatchObject({ error: 'invalid_grant' });
    // The owner's connected apps no longer list it.
    expect(await internal().oauth.listGrants({ companyId: owner.companyId })).toEqual([]);
  });

  it('Deny comes back as access_denied with the state, and no code', async () => {
    const owner = await newCompany('Afviser ApS');
    const registered = await oauthClient(['invoices:read']);
    const { as, client, state, url } = await startAuthorization(registered, 'invoices:read');
    const callback = await ownerAnswers(url, registered.redirectUri, owner, 'Deny', 'Afviser ApS');
    expect(callback.searchParams.get('code')).toBeNull();
    expect(() => oauth.validateAuthResponse(as, client, callback, state)).toThrow(expect.objectContaining({ error: 'access_denied' }));
    expect(callback.searchParams.get('state')).toBe(state);
  });
});
