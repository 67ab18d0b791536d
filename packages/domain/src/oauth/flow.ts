// The authorization code grant with PKCE and rotating refresh tokens (contract: OAuth 2.0, 4 to 8).
// Single use is a conditional UPDATE (... WHERE used_at IS NULL): of two exchanges of one code, or two
// refreshes with one token, at the same moment on any servers, exactly one row update wins. A code or
// refresh token presented after its use revokes the grant it belongs to (the token family), and a code
// refused for any reason is used up, in a transaction of its own that commits although the request is
// refused.
import { createHash } from 'node:crypto';
import type { Db, InTransaction, Queryable } from '@tlr/db';
import { forbidden, notFound } from '../errors.ts';
import { isUuid, newId } from '../ids.ts';
import { rateLimitHitCte, rateLimitState, type RateLimitState } from '../ratelimit/rate-limit.ts';
import type { Authenticated } from '../credentials/authenticate.ts';
import { carrier, type ReadAlong } from '../read-by-id.ts';
import { scopeSet } from '../credentials/scopes.ts';
import {
  ACCESS_TOKEN_SECONDS,
  CODE_SECONDS,
  generateToken,
  isToken,
  OAuthError,
  parseScopeParameter,
  REFRESH_TOKEN_SECONDS,
  TOKEN_ENDPOINT_LIMIT,
  tokenDigest,
  verifyPkce,
  type RegisteredClient,
} from './rules.ts';

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

export interface ApproveInput {
  userId: string;
  companyId: string;
  clientId: string;
  redirectUri: string;
  scopes: string[];
  codeChallenge: string;
}

/**
 * The owner approved: a code bound to the client, redirect URI, challenge, user, company and scopes.
 * Everything is checked again here (the consent form carries it back from the browser): the company is
 * a live company the user owns (never a sandbox: contract, Test mode 5), the client is active and the
 * scopes and redirect URI are registered for it.
 */
export async function issueAuthorizationCode(db: Db, input: ApproveInput): Promise<string> {
  const company = isUuid(input.companyId)
    ? await db.company.findFirst({ where: { id: input.companyId, owner_user_id: input.userId, sandbox_of_id: null } })
    : null;
  if (!company) throw notFound('company of yours', input.companyId);
  const client = isUuid(input.clientId) ? await db.oAuthClient.findFirst({ where: { id: input.clientId, revoked_at: null } }) : null;
  if (!client) throw notFound('OAuth client', input.clientId);
  if (!client.redirect_uris.includes(input.redirectUri)) throw forbidden('The redirect URI is not registered for this client.');
  const scopes = parseScopeParameter(input.scopes.join(' '), client.scopes);
  if ('error' in scopes) throw forbidden(scopes.error);
  const code = generateToken('code');
  await db.oAuthCode.create({
    data: {
      code_hash: tokenDigest(code),
      client_id: client.id,
      user_id: input.userId,
      company_id: company.id,
      redirect_uri: input.redirectUri,
      code_challenge: input.codeChallenge,
      scopes: scopes.scopes,
      expires_at: new Date(Date.now() + CODE_SECONDS * 1000),
    },
  });
  return code;
}

async function issueTokens(tx: Db, grantId: string, scopes: string[]): Promise<TokenResponse> {
  const access = generateToken('access');
  const refresh = generateToken('refresh');
  const now = Date.now();
  await tx.oAuthToken.createMany({
    data: [
      { id: newId(), grant_id: grantId, kind: 'access', token_hash: tokenDigest(access), expires_at: new Date(now + ACCESS_TOKEN_SECONDS * 1000) },
      { id: newId(), grant_id: grantId, kind: 'refresh', token_hash: tokenDigest(refresh), expires_at: new Date(now + REFRESH_TOKEN_SECONDS * 1000) },
    ],
  });
  return { access_token: access, token_type: 'Bearer', expires_in: ACCESS_TOKEN_SECONDS, refresh_token: refresh, scope: scopes.join(' ') };
}

const revokeGrantRow = (tx: Db, grantId: string) => tx.oAuthGrant.updateMany({ where: { id: grantId, revoked_at: null }, data: { revoked_at: new Date() } });

export interface CodeExchange {
  code: unknown;
  redirectUri: unknown;
  codeVerifier: unknown;
}

/** Why the code's own client cannot have tokens for it (the code is burnt all the same); undefined when it can. */
function refusalOf(row: { expires_at: Date; redirect_uri: string; code_challenge: string }, redirectUri: string, codeVerifier: string) {
  let why: string | undefined;
  if (row.expires_at.getTime() <= Date.now()) why = 'The authorization code has expired';
  else if (row.redirect_uri !== redirectUri) why = 'redirect_uri differs from the one of the authorization request';
  else if (!verifyPkce(codeVerifier, row.code_challenge)) why = 'code_verifier does not match the code_challenge (S256)';
  return why === undefined ? undefined : new OAuthError('invalid_grant', `${why}; the code can no longer be used: authorize again.`);
}

/**
 * grant_type=authorization_code for an authenticated client. Every presentation of a code that exists
 * uses it up (decision 177): a refusal (another client's, expired, a redirect_uri that differs, a wrong
 * code_verifier) burns it in the same conditional UPDATE that claims it for a success, and commits although
 * the request fails, so no second try can follow a wrong guess. A code that was used already is a replay
 * however it is presented: what it issued is revoked (RFC 6749 10.5).
 */
export async function exchangeAuthorizationCode(inTx: InTransaction, client: RegisteredClient, input: CodeExchange): Promise<TokenResponse> {
  const { code, redirectUri, codeVerifier } = input;
  if (typeof code !== 'string' || !code) throw new OAuthError('invalid_request', 'code is required');
  if (typeof redirectUri !== 'string' || !redirectUri) throw new OAuthError('invalid_request', 'redirect_uri is required');
  if (typeof codeVerifier !== 'string' || !codeVerifier) throw new OAuthError('invalid_request', 'code_verifier is required (PKCE)');
  const invalid = new OAuthError('invalid_grant', 'The authorization code is invalid, expired or already used.');
  if (!isToken('code', code)) throw invalid;
  const result = await inTx(async (tx) => {
    const row = await tx.oAuthCode.findUnique({ where: { code_hash: tokenDigest(code) } });
    if (!row) return invalid;
    const ownCode = row.client_id === client.id;
    const refusal = ownCode ? refusalOf(row, redirectUri, codeVerifier) : invalid;
    const grantId = newId();
    const claimed = await tx.oAuthCode.updateMany({
      where: { code_hash: row.code_hash, used_at: null },
      data: { used_at: new Date(), ...(refusal ? {} : { grant_id: grantId }) },
    });
    if (claimed.count !== 1) {
      // Used before, or by an exchange that committed first on any server: this one is the replay, and
      // whatever the code issued goes (read again: the winner may have committed after the first read).
      const winner = await tx.oAuthCode.findUnique({ where: { code_hash: row.code_hash } });
      if (winner?.grant_id) await revokeGrantRow(tx, winner.grant_id);
      // Another client learns nothing about the code: the answer of an unknown one.
      if (!ownCode) return invalid;
      return new OAuthError(
        'invalid_grant',
        winner?.grant_id ? 'The authorization code was already used; the tokens issued for it are revoked.' : 'The authorization code was already used.',
      );
    }
    if (refusal) return refusal;
    await tx.oAuthGrant.create({ data: { id: grantId, client_id: client.id, user_id: row.user_id, company_id: row.company_id, scopes: row.scopes } });
    return issueTokens(tx, grantId, row.scopes);
  });
  if (result instanceof OAuthError) throw result;
  return result;
}

/** grant_type=refresh_token: a new pair; the presented token is used up. */
export async function refreshTokens(inTx: InTransaction, client: RegisteredClient, refreshToken: unknown): Promise<TokenResponse> {
  if (typeof refreshToken !== 'string' || !refreshToken) throw new OAuthError('invalid_request', 'refresh_token is required');
  const invalid = new OAuthError('invalid_grant', 'The refresh token is invalid, expired or revoked.');
  if (!isToken('refresh', refreshToken)) throw invalid;
  const result = await inTx(async (tx) => {
    const token = await tx.oAuthToken.findUnique({ where: { token_hash: tokenDigest(refreshToken) } });
    if (!token || token.kind !== 'refresh') return invalid;
    const grant = await tx.oAuthGrant.findUnique({ where: { id: token.grant_id } });
    if (!grant || grant.client_id !== client.id) return invalid;
    if (grant.revoked_at || token.revoked_at) return invalid;
    const replay = new OAuthError('invalid_grant', 'The refresh token was already used; every token of this authorization is revoked. Authorize again.');
    if (token.used_at) {
      await revokeGrantRow(tx, grant.id);
      return replay;
    }
    if (token.expires_at.getTime() <= Date.now()) return new OAuthError('invalid_grant', 'The refresh token has expired; authorize again.');
    const used = await tx.oAuthToken.updateMany({ where: { id: token.id, used_at: null, revoked_at: null }, data: { used_at: new Date() } });
    if (used.count !== 1) {
      await revokeGrantRow(tx, grant.id);
      return replay;
    }
    return issueTokens(tx, grant.id, grant.scopes);
  });
  if (result instanceof OAuthError) throw result;
  return result;
}

/**
 * RFC 7009: revokes a token of this client (an access token alone; a refresh token with its whole
 * family). Anything else (unknown, malformed, another client's) changes nothing, and the endpoint
 * answers 200 all the same (RFC 7009 2.2).
 */
export async function revokeToken(db: Db, client: RegisteredClient, token: unknown): Promise<void> {
  if (typeof token !== 'string' || !token) throw new OAuthError('invalid_request', 'token is required');
  if (!isToken('access', token) && !isToken('refresh', token)) return;
  const row = await db.oAuthToken.findUnique({ where: { token_hash: tokenDigest(token) }, select: { id: true, kind: true, grant_id: true } });
  if (!row) return;
  const grant = await db.oAuthGrant.findUnique({ where: { id: row.grant_id }, select: { client_id: true } });
  if (grant?.client_id !== client.id) return;
  if (row.kind === 'refresh') await revokeGrantRow(db, row.grant_id);
  else await db.oAuthToken.updateMany({ where: { id: row.id, revoked_at: null }, data: { revoked_at: new Date() } });
}

const BEARER = carrier({
  name: 'tlr_authenticate_bearer',
  head: `
WITH t AS (
  SELECT t.id, g.id AS grant_id, g.company_id, array_to_string(g.scopes, ' ') AS scopes
  FROM oauth_tokens t
  JOIN oauth_grants g ON g.id = t.grant_id
  JOIN oauth_clients c ON c.id = g.client_id
  WHERE t.token_hash = $1 AND t.kind = 'access' AND t.revoked_at IS NULL AND t.expires_at > now()
    AND g.revoked_at IS NULL AND c.revoked_at IS NULL
), ${rateLimitHitCte('SELECT grant_id AS id FROM t')},
touch AS (
  -- the connected-apps page shows when an app last used its grant, at minute precision
  UPDATE oauth_grants SET last_used_at = now()
  WHERE id = (SELECT grant_id FROM t) AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')
)`,
  columns: 't.id, t.company_id, t.scopes, hit.allowed, hit.remaining, hit.reset_seconds',
  columnCount: 6,
  companyColumn: 1,
  from: 't CROSS JOIN hit',
  company: 't.company_id',
});

/**
 * `Authorization: Bearer tlr_at_...`: the credential (the grant's live company and scopes) and one
 * request counted against the limit of its grant, the token family (contract: the same 100 per 60 s),
 * so that refreshing does not buy a fresh budget (decision 173). Null when
 * the token is malformed, unknown, expired or revoked, or its grant or client is. With `along`, a GET
 * by id's read runs in the same statement (read-by-id.ts).
 */
export async function authenticateBearer(db: Queryable, token: string, along?: ReadAlong): Promise<Authenticated | null> {
  if (!isToken('access', token)) return null;
  const found = await BEARER.run(db, tokenDigest(token), along);
  if (!found) return null;
  const [id, companyId, scopes, allowed, remaining, reset] = found.columns as [string, string, string, boolean, number, number];
  return {
    credential: { type: 'oauth_token', id, companyId, livemode: true, mode: 'live', scopes: scopeSet(scopes) },
    rateLimit: rateLimitState(allowed, remaining, reset),
    ...(found.prefetched ? { prefetched: found.prefetched } : {}),
  };
}

/** Without counting a request: is a rate-limited access token still valid (revocation answers 401 at once)? */
export async function bearerStillValid(db: Queryable, token: string): Promise<boolean> {
  const { rowCount } = await db.query({
    name: 'tlr_bearer_valid',
    text: `SELECT 1 FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id JOIN oauth_clients c ON c.id = g.client_id
           WHERE t.token_hash = $1 AND t.kind = 'access' AND t.revoked_at IS NULL AND t.expires_at > now() AND g.revoked_at IS NULL AND c.revoked_at IS NULL`,
    values: [tokenDigest(token)],
  });
  return rowCount === 1;
}

const TOKEN_ENDPOINT_SQL = `WITH ${rateLimitHitCte('SELECT $1::uuid AS id', TOKEN_ENDPOINT_LIMIT)} SELECT allowed, remaining, reset_seconds FROM hit`;

/**
 * Counts a request to the token (or revocation) endpoint against the contract's 10 per 60 s per client
 * and IP address, before the client is authenticated: guessing a client secret is limited too. The
 * log lives in the same table as the API's, under an id derived from endpoint, client id and address.
 */
export async function countTokenEndpointRequest(db: Queryable, endpoint: 'token' | 'revoke', clientId: string, ip: string): Promise<RateLimitState> {
  const h = createHash('sha256').update(`oauth:${endpoint}\0${clientId}\0${ip}`).digest('hex');
  const id = `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
  const { rows } = await db.query({ name: 'tlr_oauth_endpoint_limit', text: TOKEN_ENDPOINT_SQL, values: [id] });
  return rateLimitState(rows[0].allowed, rows[0].remaining, rows[0].reset_seconds, TOKEN_ENDPOINT_LIMIT);
}

export interface OAuthGrantView {
  id: string;
  company_id: string;
  client_id: string;
  client_name: string;
  scopes: string[];
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

type GrantRow = Awaited<ReturnType<Db['oAuthGrant']['findFirstOrThrow']>>;

async function grantViews(db: Db, grants: GrantRow[]): Promise<OAuthGrantView[]> {
  const clients = await db.oAuthClient.findMany({ where: { id: { in: [...new Set(grants.map((g) => g.client_id))] } }, select: { id: true, name: true } });
  const names = new Map(clients.map((c) => [c.id, c.name]));
  return grants.map((g) => ({
    id: g.id,
    company_id: g.company_id,
    client_id: g.client_id,
    client_name: names.get(g.client_id) ?? '',
    scopes: g.scopes,
    created_at: g.created_at.toISOString(),
    last_used_at: g.last_used_at?.toISOString() ?? null,
    revoked_at: g.revoked_at?.toISOString() ?? null,
  }));
}

/** The connected apps of a company: its active grants, newest first. */
export async function listOAuthGrants(db: Db, companyId: string): Promise<OAuthGrantView[]> {
  const grants = await db.oAuthGrant.findMany({
    where: { company_id: companyId, revoked_at: null },
    orderBy: [{ created_at: 'desc' }, { id: 'desc' }],
  });
  return grantViews(db, grants);
}

/** Ends a connected app's access: the grant and every token of it, at once on every server. */
export async function revokeOAuthGrant(db: Db, companyId: string, grantId: string): Promise<OAuthGrantView> {
  const grant = isUuid(grantId) ? await db.oAuthGrant.findFirst({ where: { id: grantId, company_id: companyId } }) : null;
  if (!grant) throw notFound('connected app', grantId);
  await revokeGrantRow(db, grant.id);
  const [v] = await grantViews(db, [await db.oAuthGrant.findUniqueOrThrow({ where: { id: grant.id } })]);
  return v!;
}

/** Deletes codes and tokens long past their expiry (a daily job): nothing that could still be presented. */
export async function purgeExpiredOAuth(db: Db, now = new Date()): Promise<number> {
  const before = new Date(now.getTime() - 24 * 3600 * 1000);
  const codes = await db.oAuthCode.deleteMany({ where: { expires_at: { lt: before } } });
  const tokens = await db.oAuthToken.deleteMany({ where: { expires_at: { lt: before } } });
  return codes.count + tokens.count;
}
