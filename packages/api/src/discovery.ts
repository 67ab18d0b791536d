// The service discovery document (GET {base_url}/): its shape, once, as a zod schema that the OpenAPI
// document declares (component Discovery) and its content, built from the procedures and the rules.
import { z } from 'zod';
import { API_VERSION } from '@tlr/config';
import { ACCESS_TOKEN_SECONDS, REFRESH_TOKEN_SECONDS, SCOPES } from '@tlr/domain';
import { OAUTH_PATHS } from './oauth-document.ts';
import { routes } from './routes.ts';

const seconds = (description: string) => z.int().min(1).max(31_536_000).meta({ description });

export const discoverySchema = z
  .object({
    name: z.string(),
    status: z.enum(['ok']),
    version: z.string().meta({ description: 'The contract version (also X-API-Version)', example: API_VERSION }),
    api_version: z.string().meta({ description: 'The same as version', example: API_VERSION }),
    base_path: z.string().meta({ example: '/api/v1' }),
    openapi_url: z.string(),
    docs_url: z.string(),
    authentication: z.object({
      api_key: z.object({ header: z.string(), formats: z.array(z.string()) }),
      oauth2: z.object({
        header: z.string(),
        flow: z.string(),
        authorization_url: z.string(),
        token_url: z.string(),
        revocation_url: z.string(),
        metadata_url: z.string(),
        access_token_format: z.string(),
        access_token_lifetime_seconds: seconds('Seconds an access token lives'),
        refresh_token_format: z.string(),
        refresh_token_lifetime_seconds: seconds('Seconds a refresh token lives'),
      }),
      scopes: z.array(z.enum(SCOPES)),
    }),
    endpoints: z.array(
      z.object({
        method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']),
        path: z.string().meta({ description: 'Relative to base_path', example: '/customers/{id}' }),
        summary: z.string(),
        scopes: z.array(z.enum(SCOPES)).meta({ description: 'The scopes a credential needs' }),
      }),
    ),
    features: z.array(z.string()),
  })
  .meta({ description: 'The service discovery document (the OpenAPI component Discovery)' });
export type DiscoveryDocument = z.output<typeof discoverySchema>;

export function discoveryDocument(): DiscoveryDocument {
  return {
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
      scopes: [...SCOPES],
    },
    endpoints: routes.map((r) => ({ method: r.method, path: r.path, summary: r.meta.openapi.summary ?? '', scopes: [...(r.meta.scopes ?? [])] })),
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
  };
}
