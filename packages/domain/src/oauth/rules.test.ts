import { describe, expect, it } from 'vitest';
import {
  checkAuthorizationRequest,
  generateToken,
  isToken,
  parseScopeParameter,
  redirectUriProblem,
  redirectWith,
  s256,
  verifyPkce,
  type RegisteredClient,
} from './rules.ts';

const client: RegisteredClient = {
  id: '01a20ec6-43d3-7ff1-bb6b-553089a2adf1',
  name: 'Acme Sync',
  redirect_uris: ['https://acme.example/cb', 'https://acme.example/cb?tenant=7'],
  scopes: ['invoices:read', 'customers:read'],
};
const find = (id: string) => (id === client.id ? client : null);
const good = {
  client_id: client.id,
  redirect_uri: 'https://acme.example/cb',
  state: 'xyz',
  scope: 'invoices:read',
  code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
  code_challenge_method: 'S256',
  response_type: 'code',
};

describe('PKCE S256 (RFC 7636)', () => {
  it('matches the RFC 7636 appendix B vector', () => {
    expect(s256('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
    expect(verifyPkce('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk', 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM')).toBe(true);
  });
  it('refuses another verifier, the challenge itself (plain), and verifiers outside 43..128 unreserved characters', () => {
    const challenge = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';
    expect(verifyPkce('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXj', challenge)).toBe(false);
    expect(verifyPkce(challenge, challenge)).toBe(false);
    expect(verifyPkce('a'.repeat(42), s256('a'.repeat(42)))).toBe(false);
    expect(verifyPkce('a'.repeat(129), s256('a'.repeat(129)))).toBe(false);
    expect(verifyPkce('a'.repeat(128), s256('a'.repeat(128)))).toBe(true);
    expect(verifyPkce(`${'a'.repeat(42)} `, s256(`${'a'.repeat(42)} `))).toBe(false);
    expect(verifyPkce(undefined, challenge)).toBe(false);
  });
});

describe('tokens', () => {
  it('carry the contract prefixes and 256 random bits', () => {
    expect(generateToken('code')).toMatch(/^tlr_code_[0-9a-f]{64}$/);
    expect(generateToken('access')).toMatch(/^tlr_at_[0-9a-f]{64}$/);
    expect(generateToken('refresh')).toMatch(/^tlr_rt_[0-9a-f]{64}$/);
    expect(generateToken('access')).not.toBe(generateToken('access'));
    expect(isToken('access', generateToken('refresh'))).toBe(false);
  });
});

describe('redirect URI registration', () => {
  it('accepts exact https URLs', () => {
    expect(redirectUriProblem('https://acme.example/cb', false)).toBeNull();
    expect(redirectUriProblem('https://acme.example/cb?tenant=7', false)).toBeNull();
  });
  it('refuses http, fragments, wildcards, user info, relative and non-normal URLs', () => {
    expect(redirectUriProblem('http://acme.example/cb', true)).toMatch(/not an https URL/);
    expect(redirectUriProblem('https://acme.example/cb#x', false)).toMatch(/fragment/);
    expect(redirectUriProblem('https://*.acme.example/cb', false)).toMatch(/wildcard|normal form/);
    expect(redirectUriProblem('https://u:p@acme.example/cb', false)).toMatch(/user information/);
    expect(redirectUriProblem('/cb', false)).toMatch(/absolute/);
    expect(redirectUriProblem('https://ACME.example/cb', false)).toMatch(/normal form/);
  });
  it('allows plain http on a loopback host only in development', () => {
    expect(redirectUriProblem('http://localhost:3000/cb', false)).toMatch(/OAUTH_ALLOW_HTTP_LOCALHOST/);
    expect(redirectUriProblem('http://localhost:3000/cb', true)).toBeNull();
    expect(redirectUriProblem('http://127.0.0.1:3000/cb', true)).toBeNull();
  });
});

describe('scope parameter', () => {
  it('is a space-separated subset of the registration', () => {
    expect(parseScopeParameter('invoices:read customers:read', client.scopes)).toEqual({ scopes: ['invoices:read', 'customers:read'] });
    expect(parseScopeParameter('invoices:write', client.scopes)).toEqual({ error: expect.stringContaining('not registered') });
    expect(parseScopeParameter('invoices:delete', client.scopes)).toEqual({ error: expect.stringContaining('unknown scope') });
    expect(parseScopeParameter('', client.scopes)).toEqual({ error: expect.stringContaining('empty') });
  });
});

describe('checkAuthorizationRequest (RFC 6749 4.1.2.1)', () => {
  it('accepts a complete request', () => {
    const r = checkAuthorizationRequest(good, find);
    expect(r).toMatchObject({ kind: 'ok', request: { redirectUri: good.redirect_uri, state: 'xyz', scopes: ['invoices:read'] } });
  });
  it('shows a page, never a redirect, for an unknown client or a redirect URI not registered exactly', () => {
    expect(checkAuthorizationRequest({ ...good, client_id: '01a20ec6-43d3-7ff1-bb6b-553089a2adf2' }, find).kind).toBe('page');
    expect(checkAuthorizationRequest({ ...good, client_id: undefined }, find).kind).toBe('page');
    expect(checkAuthorizationRequest({ ...good, client_id: 'not-a-uuid' }, find).kind).toBe('page');
    for (const uri of ['https://acme.example/cb/', 'https://acme.example/cb?tenant=8', 'https://evil.example/cb', undefined]) {
      expect(checkAuthorizationRequest({ ...good, redirect_uri: uri }, find).kind).toBe('page');
    }
    expect(checkAuthorizationRequest({ ...good, redirect_uri: [good.redirect_uri, 'https://evil.example/'] }, find).kind).toBe('page');
  });
  it('redirects with the RFC 6749 error and the state for everything else', () => {
    const back = (q: Record<string, string | string[] | undefined>) => checkAuthorizationRequest({ ...good, ...q }, find);
    expect(back({ code_challenge_method: 'plain' })).toMatchObject({
      kind: 'redirect',
      error: 'invalid_request',
      state: 'xyz',
      description: expect.stringContaining('plain'),
    });
    expect(back({ code_challenge_method: undefined })).toMatchObject({ kind: 'redirect', error: 'invalid_request' });
    expect(back({ code_challenge: undefined })).toMatchObject({ kind: 'redirect', error: 'invalid_request' });
    expect(back({ code_challenge: 'short' })).toMatchObject({ kind: 'redirect', error: 'invalid_request' });
    expect(back({ scope: 'invoices:write' })).toMatchObject({ kind: 'redirect', error: 'invalid_scope', state: 'xyz' });
    expect(back({ scope: undefined })).toMatchObject({ kind: 'redirect', error: 'invalid_scope' });
    expect(back({ response_type: 'token' })).toMatchObject({ kind: 'redirect', error: 'unsupported_response_type' });
    expect(back({ state: undefined })).toMatchObject({ kind: 'redirect', error: 'invalid_request', state: undefined });
    expect(back({ scope: ['invoices:read', 'customers:read'] })).toMatchObject({
      kind: 'redirect',
      error: 'invalid_request',
      description: 'scope is repeated',
    });
  });
});

describe('redirectWith', () => {
  it('adds the parameters to those the registered URI already has', () => {
    expect(redirectWith('https://acme.example/cb?tenant=7', { code: 'tlr_code_1', state: 'a b&c' })).toBe(
      'https://acme.example/cb?tenant=7&code=tlr_code_1&state=a+b%26c',
    );
    expect(redirectWith('https://acme.example/cb', { error: 'access_denied', state: undefined })).toBe('https://acme.example/cb?error=access_denied');
  });
});
