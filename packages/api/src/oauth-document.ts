// What the public documents say about OAuth 2.0, from one place: the OpenAPI security scheme and the
// paths of the token and revocation endpoints (served under {app_url}/api, not {base_url}), and the
// RFC 8414 authorization server metadata. The absolute URLs come from the service's address.
import { ACCESS_TOKEN_SECONDS, SCOPE_WORDS, SCOPES, TOKEN_ENDPOINT_LIMIT } from '@tlr/domain';

export const OAUTH_PATHS = { authorize: '/oauth/authorize', token: '/api/oauth/token', revoke: '/api/oauth/revoke' } as const;

const join = (appUrl: string, path: string) => `${appUrl.replace(/\/$/, '')}${path}`;

/** RFC 8414, served at {app_url}/.well-known/oauth-authorization-server. */
export function authorizationServerMetadata(appUrl: string) {
  return {
    issuer: appUrl.replace(/\/$/, ''),
    authorization_endpoint: join(appUrl, OAUTH_PATHS.authorize),
    token_endpoint: join(appUrl, OAUTH_PATHS.token),
    revocation_endpoint: join(appUrl, OAUTH_PATHS.revoke),
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic'],
    revocation_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic'],
    scopes_supported: [...SCOPES],
    service_documentation: join(appUrl, '/api/v1/docs'),
  };
}

/** The OpenAPI security scheme; flows hold relative URLs until `withAppUrl` makes them absolute. */
export const oauthSecurityScheme = {
  type: 'oauth2' as const,
  description:
    `Partner applications (contract: Authentication > OAuth 2.0): authorization code with PKCE (S256 only), confidential clients registered by the operator. ` +
    `Send the access token as Authorization: Bearer tlr_at_...; it lives ${ACCESS_TOKEN_SECONDS} seconds and has its own limit of 100 requests per 60 seconds. ` +
    `Refresh tokens (tlr_rt_...) live 30 days and are single-use; replaying a used one revokes the whole token family. OAuth grants address the real company, never a sandbox.`,
  flows: {
    authorizationCode: {
      authorizationUrl: OAUTH_PATHS.authorize,
      tokenUrl: OAUTH_PATHS.token,
      refreshUrl: OAUTH_PATHS.token,
      scopes: { ...SCOPE_WORDS },
    },
  },
};

const oauthError = {
  type: 'object',
  description: 'RFC 6749 5.2 error response',
  required: ['error'],
  properties: {
    error: {
      type: 'string',
      enum: ['invalid_request', 'invalid_client', 'invalid_grant', 'unauthorized_client', 'unsupported_grant_type', 'invalid_scope'],
    },
    error_description: { type: 'string' },
  },
};
const noStore = { 'Cache-Control': { description: 'no-store: token responses are never cached', schema: { type: 'string' } } };
const clientAuth = {
  client_id: { type: 'string', format: 'uuid' },
  client_secret: { type: 'string', description: 'tlr_cs_ + 64 hex; or send both as HTTP Basic credentials instead' },
};

function body(schema: Record<string, unknown>) {
  // The contract's JSON, and the form encoding RFC 6749 requires.
  return { required: true, content: { 'application/json': { schema }, 'application/x-www-form-urlencoded': { schema } } };
}

type Headers = Record<string, unknown>;

/** The answers of an OAuth endpoint: each carries `headers` (request id, version, the endpoint's limit). */
function responses(success: { description: string; content: Record<string, unknown> }, refusals: string, limited: Record<string, unknown>, headers: Headers) {
  const answer = (description: string, content: Record<string, unknown>) => ({ description, headers: { ...headers, ...noStore }, content });
  const err = (description: string) => answer(description, { 'application/json': { schema: { $ref: '#/components/schemas/OAuthError' } } });
  return {
    '200': answer(success.description, success.content),
    '400': err(refusals),
    '401': err('invalid_client: unknown or revoked client, or wrong secret (WWW-Authenticate: Basic)'),
    '429': limited,
  };
}

/**
 * Paths to merge into the OpenAPI document (relative to a server at {app_url}/api), and the schemas they
 * use; `headers` are those of every answer, `parameter` the request id a client may send.
 */
export function oauthPaths(limited: Record<string, unknown>, headers: Headers, parameter: Record<string, unknown>) {
  const tokenResponse = {
    type: 'object',
    required: ['access_token', 'token_type', 'expires_in', 'refresh_token', 'scope'],
    properties: {
      access_token: { type: 'string', pattern: '^tlr_at_', example: `tlr_at_${'0'.repeat(64)}` },
      token_type: { type: 'string', enum: ['Bearer'] },
      expires_in: { type: 'integer', minimum: ACCESS_TOKEN_SECONDS, maximum: ACCESS_TOKEN_SECONDS, description: 'Seconds the access token lives' },
      refresh_token: { type: 'string', pattern: '^tlr_rt_', example: `tlr_rt_${'0'.repeat(64)}` },
      scope: { type: 'string', description: 'space-separated', example: 'invoices:read customers:read' },
    },
  };
  const limit = `At most ${TOKEN_ENDPOINT_LIMIT} requests per 60 seconds per client and IP address (then 429 with Retry-After).`;
  return {
    schemas: { OAuthError: oauthError, OAuthTokenResponse: tokenResponse },
    paths: {
      '/oauth/token': {
        post: {
          operationId: 'oauth.token',
          tags: ['OAuth'],
          summary: 'Exchange an authorization code, or refresh',
          description: `Served under {app_url}, not {base_url}. grant_type authorization_code (code, redirect_uri, code_verifier) or refresh_token (refresh_token). Codes are single-use and live 60 seconds; presenting a used code revokes what it issued. ${limit}`,
          security: [],
          parameters: [parameter],
          requestBody: body({
            type: 'object',
            required: ['grant_type'],
            properties: {
              grant_type: { type: 'string', enum: ['authorization_code', 'refresh_token'] },
              code: { type: 'string', pattern: '^tlr_code_' },
              redirect_uri: { type: 'string', format: 'uri' },
              code_verifier: { type: 'string', minLength: 43, maxLength: 128 },
              refresh_token: { type: 'string', pattern: '^tlr_rt_' },
              ...clientAuth,
            },
          }),
          responses: responses(
            { description: 'A new token pair', content: { 'application/json': { schema: { $ref: '#/components/schemas/OAuthTokenResponse' } } } },
            'invalid_request, invalid_grant, unsupported_grant_type',
            limited,
            headers,
          ),
        },
      },
      '/oauth/revoke': {
        post: {
          operationId: 'oauth.revoke',
          tags: ['OAuth'],
          summary: 'Revoke a token (RFC 7009)',
          description: `Served under {app_url}, not {base_url}. 200 with an empty object for an authenticated client whatever the token (RFC 7009 2.2); only the client's own tokens are revoked. An access token is revoked alone; a refresh token ends its whole family. ${limit}`,
          security: [],
          parameters: [parameter],
          requestBody: body({
            type: 'object',
            required: ['token'],
            properties: { token: { type: 'string' }, token_type_hint: { type: 'string', enum: ['access_token', 'refresh_token'] }, ...clientAuth },
          }),
          responses: responses(
            { description: 'Revoked, or nothing to revoke', content: { 'application/json': { schema: { type: 'object' } } } },
            'invalid_request: no token, or a body that is neither JSON nor form parameters',
            limited,
            headers,
          ),
        },
      },
    },
  };
}
