// Token families over HTTP (contract: OAuth 2.0, 4 and 7; RFC 6749 10.5 and 10.4): every authorization
// code starts a family, and the refresh tokens rotated from it stay in it. A code presented again
// revokes the family however far it has been refreshed, and a replayed refresh token revokes its own
// family; either way another family of the same partner and company (a second authorization) works on.
// (The single-use rules themselves, and their races: oauth.test.ts.)
import { randomInt } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { api, approveCode, codeExchange, oauthApi, oauthClient, ok, pkcePair, useCompany, type RequestBody, type Schemas } from './helpers.ts';

const t = useCompany({ name: 'Familie ApS' });

/** The status of a customer list read with an access token: 200 while the token works, 401 once it does not. */
const bearerStatus = async (accessToken: string) => (await api(t.svc.url, accessToken).GET('/customers')).response.status;

/** A partner app of the company, from an address of its own (the token endpoint's limit is per client and address). */
async function partner() {
  const app = await oauthClient(['customers:read']);
  const headers = { 'X-Forwarded-For': `198.18.${randomInt(256)}.${randomInt(1, 255)}` };
  const token = (body: RequestBody<'/oauth/token', 'post'>) => oauthApi(t.svc.url).POST('/oauth/token', { body, headers });
  /** A new authorization: the consent's code, and the exchange that can be sent again. */
  const authorize = async () => {
    const pkce = pkcePair();
    const code = await approveCode(t.company, app, pkce.challenge);
    const exchange = () => token(codeExchange(app, code, pkce.verifier));
    return { exchange, tokens: await ok(exchange()) };
  };
  const refresh = (refreshToken: string) =>
    token({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: app.clientId, client_secret: app.clientSecret });
  return { authorize, refresh };
}

/** Whether a family's latest pair still works: its access token on the API, and its refresh token at the token endpoint (last: it rotates). */
async function works(p: Awaited<ReturnType<typeof partner>>, pair: Schemas['OAuthTokenResponse']) {
  return { access: await bearerStatus(pair.access_token), refresh: (await p.refresh(pair.refresh_token)).response.status };
}

describe('token families', () => {
  it('a code presented again revokes the pairs refreshed from it, and no other family', async () => {
    const p = await partner();
    const first = await p.authorize();
    const refreshed = await ok(p.refresh(first.tokens.refresh_token));
    const latest = await ok(p.refresh(refreshed.refresh_token));
    const sibling = await p.authorize();
    expect(await bearerStatus(latest.access_token)).toBe(200);

    const again = await first.exchange();
    expect(again.response.status).toBe(400);
    expect(again.error).toMatchObject({ error: 'invalid_grant' });
    // Every token of the family: the refreshed pairs too.
    expect(await bearerStatus(refreshed.access_token)).toBe(401);
    expect(await works(p, latest)).toEqual({ access: 401, refresh: 400 });
    expect(await works(p, sibling.tokens)).toEqual({ access: 200, refresh: 200 });
  });

  it('a replayed refresh token revokes its own family only', async () => {
    const p = await partner();
    const victim = await p.authorize();
    const sibling = await p.authorize();
    const rotated = await ok(p.refresh(victim.tokens.refresh_token));
    const replay = await p.refresh(victim.tokens.refresh_token);
    expect(replay.response.status).toBe(400);
    expect(replay.error).toMatchObject({ error: 'invalid_grant' });
    expect(await works(p, rotated)).toEqual({ access: 401, refresh: 400 });
    expect(await works(p, sibling.tokens)).toEqual({ access: 200, refresh: 200 });
  });
});
