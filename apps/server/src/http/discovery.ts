// GET /api/v1/ : the service discovery document (name, status, version, authentication, endpoints,
// features), public like the OpenAPI document.
import type { Request, Response } from 'express';
import { API_VERSION } from '@tlr/config';
import { OAUTH_PATHS, routes } from '@tlr/api';
import { ACCESS_TOKEN_SECONDS, REFRESH_TOKEN_SECONDS, SCOPES } from '@tlr/domain';

export function discovery(_req: Request, res: Response) {
  res.json({
    data: {
      name: 'tlr bookkeeping API',
      status: 'ok',
      version: API_VERSION,
      api_version: API_VERSION,
      base_path: '/api/v1',
      openapi_url: '/api/v1/openapi.json',
      docs_url: '/api/v1/docs',
      authentication: {
        api_key: { header: 'X-API-Key', formats: ['tlr_live_ + 48 hex', 'tlr_test_ + 48 hex'] },
        oauth2: {
          header: 'Authorization: Bearer <access token>',
          flow: 'authorization_code with PKCE (S256)',
          authorization_url: OAUTH_PATHS.authorize,
          token_url: OAUTH_PATHS.token,
          revocation_url: OAUTH_PATHS.revoke,
          metadata_url: '/.well-known/oauth-authorization-server',
          access_token_format: 'tlr_at_...',
          access_token_lifetime_seconds: ACCESS_TOKEN_SECONDS,
          refresh_token_format: 'tlr_rt_...',
          refresh_token_lifetime_seconds: REFRESH_TOKEN_SECONDS,
        },
        scopes: SCOPES,
      },
      endpoints: routes.map((r) => ({ method: r.method, path: r.path, summary: r.meta.openapi.summary ?? '', scopes: r.meta.scopes ?? [] })),
      features: [
        'rfc9457_problem_details',
        'idempotency_keys',
        'rate_limits',
        'pagination',
        'sandbox_test_mode',
        'cors',
        'openapi_3_1',
        'events_outbox',
        'webhooks',
        'oauth2_pkce',
        'refresh_token_rotation',
        'token_revocation',
      ],
    },
  });
}
