// The rules of OAuth 2.0 for partner applications (contract: Authentication > OAuth 2.0), pure: token
// formats and lifetimes, PKCE S256, redirect URI registration, and the checks of an authorization
// request, in the order RFC 6749 4.1.2.1 asks for (client and redirect URI first: those are shown on a
// page and never redirected to; everything else goes back to the client with `error` and `state`).
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { isUuid } from '../ids.ts';
import { isScope, type Scope } from '../credentials/scopes.ts';

export const ACCESS_TOKEN_SECONDS = 3600;
export const REFRESH_TOKEN_SECONDS = 30 * 24 * 3600;
/** Contract: "short-lived", not shown. One minute: the exchange is a server-to-server call right after the redirect. */
export const CODE_SECONDS = 60;
/** Contract, Limits: the token endpoint, per client and IP address. */
export const TOKEN_ENDPOINT_LIMIT = 10;

const TOKEN_PREFIX = { code: 'tlr_code_', access: 'tlr_at_', refresh: 'tlr_rt_', clientSecret: 'tlr_cs_' } as const;
export type TokenKind = keyof typeof TOKEN_PREFIX;
const TOKEN_PATTERN: Record<TokenKind, RegExp> = {
  code: /^tlr_code_[0-9a-f]{64}$/,
  access: /^tlr_at_[0-9a-f]{64}$/,
  refresh: /^tlr_rt_[0-9a-f]{64}$/,
  clientSecret: /^tlr_cs_[0-9a-f]{64}$/,
};

/** 256 random bits behind the kind's prefix. */
export const generateToken = (kind: TokenKind) => `${TOKEN_PREFIX[kind]}${randomBytes(32).toString('hex')}`;
export const isToken = (kind: TokenKind, text: string) => TOKEN_PATTERN[kind].test(text);
/** What is stored of a token, a code or a client secret: high-entropy, so SHA-256 is enough. */
export const tokenDigest = (token: string): Uint8Array<ArrayBuffer> => new Uint8Array(createHash('sha256').update(token).digest());

/** RFC 6749 5.2 and 4.1.2.1 error codes. */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'unsupported_response_type'
  | 'invalid_scope'
  | 'access_denied';

/** An OAuth refusal, answered in RFC 6749 form ({ error, error_description }), not as a problem document. */
export class OAuthError extends Error {
  readonly status: number;
  readonly error: OAuthErrorCode;
  constructor(error: OAuthErrorCode, description: string) {
    super(description);
    this.error = error;
    this.name = 'OAuthError';
    // RFC 6749 5.2: a failed client authentication is 401; everything else 400.
    this.status = error === 'invalid_client' ? 401 : 400;
  }
  body() {
    return { error: this.error, error_description: this.message };
  }
}

/** RFC 7636 4.1: 43 to 128 unreserved characters. */
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
/** The unpadded base64url SHA-256 of a verifier is always 43 characters. */
const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

export const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

/** Does the verifier hash to the challenge (RFC 7636 4.6, S256)? Constant-time over the digests. */
export function verifyPkce(verifier: unknown, challenge: string): boolean {
  if (typeof verifier !== 'string' || !VERIFIER.test(verifier)) return false;
  const a = Buffer.from(s256(verifier));
  const b = Buffer.from(challenge);
  return a.length === b.length && timingSafeEqual(a, b);
}

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * A redirect URI as it may be registered: an absolute https URL compared exactly (no wildcard, no
 * fragment, no user info). Plain http is allowed for a loopback host only when `allowLocalhost`
 * (OAUTH_ALLOW_HTTP_LOCALHOST, for developing a partner app). Returns why not, or null.
 */
export function redirectUriProblem(uri: string, allowLocalhost: boolean): string | null {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return `"${uri}" is not an absolute URL`;
  }
  if (url.href !== uri && `${url.href}` !== `${uri}/`) {
    // new URL normalises (case of the host, default port, dot segments): exact matching needs the normal form.
    return `"${uri}" is not in normal form; register it as "${url.href}"`;
  }
  if (url.hash || uri.includes('#')) return `"${uri}" has a fragment, which a redirect URI must not have (RFC 6749 3.1.2)`;
  if (url.username || url.password) return `"${uri}" carries user information`;
  if (uri.includes('*')) return `"${uri}" has a wildcard; redirect URIs are matched exactly`;
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && LOCAL_HOSTS.has(url.hostname)) {
    return allowLocalhost ? null : `"${uri}" is plain http; only https redirect URIs are accepted (http on localhost needs OAUTH_ALLOW_HTTP_LOCALHOST=true)`;
  }
  return `"${uri}" is not an https URL`;
}

/** A space-separated scope parameter within the client's registration (RFC 6749 3.3). */
export function parseScopeParameter(scope: string, registered: readonly string[]): { scopes: Scope[] } | { error: string } {
  const names = scope.split(' ').filter(Boolean);
  if (names.length === 0) return { error: 'scope is empty; ask for a space-separated subset of the scopes registered for the client' };
  const unknown = names.filter((n) => !isScope(n));
  if (unknown.length) return { error: `unknown scope ${unknown.join(', ')}` };
  const outside = names.filter((n) => !registered.includes(n));
  if (outside.length) return { error: `scope ${outside.join(', ')} is not registered for this client` };
  return { scopes: [...new Set(names)] as Scope[] };
}

/** What the consent page says each scope allows, in plain words. */
export const SCOPE_WORDS: Record<Scope, string> = {
  'invoices:read': 'See your invoices',
  'invoices:write': 'Create, approve, send and cancel invoices',
  'customers:read': 'See your customers',
  'customers:write': 'Create, change and delete customers',
  'products:read': 'See your products',
  'products:write': 'Create, change and delete products',
  'expenses:read': 'See your expenses',
  'expenses:write': 'Record and change expenses',
  'accounts:read': 'See your chart of accounts',
  'accounts:write': 'Change your chart of accounts',
  'transactions:read': 'See your ledger transactions',
  'transactions:write': 'Post ledger transactions',
  'suppliers:read': 'See your suppliers',
  'suppliers:write': 'Create, change and delete suppliers',
  'vouchers:read': 'See and download your vouchers (bilag)',
  'vouchers:write': 'Upload and delete vouchers (bilag)',
  'reports:read': 'See your balance and profit and loss reports',
  'exports:read': 'Export your books as SAF-T',
  'webhooks:manage': 'Manage webhook subscriptions and deliveries',
};

export interface RegisteredClient {
  id: string;
  name: string;
  redirect_uris: string[];
  scopes: string[];
}

export interface AuthorizationRequest {
  client: RegisteredClient;
  redirectUri: string;
  state: string;
  scopes: Scope[];
  codeChallenge: string;
}

export type AuthorizeCheck =
  /** Shown to the user on a page; never redirected (the redirect URI cannot be trusted). */
  | { kind: 'page'; message: string }
  /** Sent back to the client's redirect URI with `error`, `error_description` and `state`. */
  | { kind: 'redirect'; redirectUri: string; state: string | undefined; error: OAuthErrorCode; description: string }
  | { kind: 'ok'; request: AuthorizationRequest };

export type Query = Record<string, string | string[] | undefined>;

/** The parameters of GET /oauth/authorize (or of the consent form that repeats them). */
export function checkAuthorizationRequest(query: Query, findClient: (id: string) => RegisteredClient | null): AuthorizeCheck {
  const one = (name: string) => {
    const v = query[name];
    return Array.isArray(v) ? null : v;
  };
  const clientId = one('client_id');
  if (!clientId) return { kind: 'page', message: 'The request names no client (client_id is missing or repeated).' };
  const client = isUuid(clientId) ? findClient(clientId.toLowerCase()) : null;
  if (!client) return { kind: 'page', message: 'The application that sent you here is not registered with tlr, or its registration was withdrawn.' };
  const redirectUri = one('redirect_uri');
  if (!redirectUri || !client.redirect_uris.includes(redirectUri)) {
    return { kind: 'page', message: `The return address is not one registered for ${client.name}, so tlr will not send you back there.` };
  }
  const stateValue = one('state');
  const state = stateValue === null ? undefined : stateValue;
  const back = (error: OAuthErrorCode, description: string): AuthorizeCheck => ({ kind: 'redirect', redirectUri, state, error, description });
  // RFC 6749 3.1: a parameter sent twice is an invalid request.
  const repeated = Object.entries(query).find(([, v]) => Array.isArray(v));
  if (repeated) return back('invalid_request', `${repeated[0]} is repeated`);
  const q = query as Record<string, string | undefined>;
  if (q.response_type !== 'code') return back('unsupported_response_type', 'response_type must be code');
  if (!state) return back('invalid_request', 'state is required (an opaque value the client verifies on the callback)');
  if (!q.code_challenge) return back('invalid_request', 'code_challenge is required (PKCE S256)');
  if (q.code_challenge_method !== 'S256')
    return back(
      'invalid_request',
      q.code_challenge_method
        ? `code_challenge_method ${q.code_challenge_method} is unsupported; use S256`
        : 'code_challenge_method is required and must be S256',
    );
  if (!CHALLENGE.test(q.code_challenge))
    return back('invalid_request', 'code_challenge must be the unpadded base64url SHA-256 of the verifier (43 characters)');
  if (q.scope === undefined) return back('invalid_scope', 'scope is required: a space-separated subset of the scopes registered for the client');
  const scopes = parseScopeParameter(q.scope, client.scopes);
  if ('error' in scopes) return back('invalid_scope', scopes.error);
  return { kind: 'ok', request: { client, redirectUri, state, scopes: scopes.scopes, codeChallenge: q.code_challenge } };
}

/** The redirect back to the client: its URI with the response parameters added to any it has. */
export function redirectWith(redirectUri: string, params: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
  return url.href;
}
