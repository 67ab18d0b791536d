// The OpenAPI 3.1 document, generated from the procedures by trpc-to-openapi and then completed with
// what the generator does not know: 201 for creates, the Idempotency-Key header, the security scheme,
// problem+json errors, the common response headers, the streamed (raw) responses and the documents
// served outside tRPC.
import { generateOpenApiDocument, type OpenAPIObject } from 'trpc-to-openapi';
import { API_VERSION } from '@tlr/config';
import { ERROR_CODES, errorCodes } from '@tlr/domain';
import { oauthPaths, oauthSecurityScheme } from './oauth-document.ts';
import { appRouter } from './root.ts';
import { PROBLEM_TYPE_BASE } from './problem.ts';
import { routes } from './routes.ts';

// The generated document, completed in place: plain JSON whose shape the generator's types do not follow.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

const problemSchema = {
  type: 'object',
  description: 'RFC 9457 problem details. Every error response has this shape.',
  required: ['type', 'title', 'status', 'detail', 'code'],
  properties: {
    type: { type: 'string', format: 'uri', example: `${PROBLEM_TYPE_BASE}invalid_request` },
    title: { type: 'string', example: 'Invalid request' },
    status: { type: 'integer', example: 400 },
    detail: { type: 'string', example: 'email: must be an e-mail address' },
    code: { type: 'string', enum: errorCodes, description: 'Stable machine-readable code (docs/errors.md)', example: 'invalid_request' },
    field: { type: 'string', description: 'The field, parameter or header at fault, when there is one', example: 'email' },
    errors: {
      type: 'array',
      items: { type: 'object', properties: { field: { type: 'string' }, message: { type: 'string' } }, required: ['field', 'message'] },
    },
  },
};

const header = (description: string, type = 'string') => ({ description, schema: { type } });
const commonHeaders = {
  'X-Request-ID': header('Identifier of this request; quote it in support requests'),
  'X-API-Version': header('Contract version the response was produced against (2026-04-10)'),
};
const rateHeaders = {
  'X-RateLimit-Limit': header('Requests allowed per 60-second window (100)', 'integer'),
  'X-RateLimit-Remaining': header('Requests left in the current window', 'integer'),
  'X-RateLimit-Reset': header('Seconds until the current window resets', 'integer'),
};

// Per status, the codes of the table that answer with it.
const errorDescription = (status: number) =>
  (Object.entries(ERROR_CODES) as [string, { status: number; title: string }][])
    .filter(([, spec]) => spec.status === status)
    .map(([code]) => code)
    .join(', ') || 'Error';

function problemResponse(status: number, withRateHeaders: boolean) {
  return {
    description: errorDescription(status),
    headers: {
      ...commonHeaders,
      ...(withRateHeaders && status !== 401 ? rateHeaders : {}),
      ...(status === 429 || status === 503 ? { 'Retry-After': header('Seconds to wait before retrying', 'integer') } : {}),
    },
    content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
  };
}

function build(): OpenAPIObject {
  const doc = generateOpenApiDocument(appRouter, {
    title: 'tlr bookkeeping API',
    description:
      'REST API for bookkeeping in Denmark. Amounts are decimal numbers in DKK, dates YYYY-MM-DD, timestamps ISO 8601 UTC, identifiers UUIDs. ' +
      'Every success response wraps the resource in `data`; lists add `meta`. Errors are RFC 9457 application/problem+json.',
    version: API_VERSION,
    openApiVersion: '3.1.0',
    baseUrl: '/api/v1',
    securitySchemes: {
      ApiKeyAuth: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'tlr_live_ or tlr_test_ followed by 48 hex characters' },
      OAuth2: oauthSecurityScheme,
    },
  }) as Json;

  doc.components.schemas = {
    ...doc.components.schemas,
    Problem: problemSchema,
    // The contract's older error declaration; responses follow Problem, never this shape.
    Error: {
      type: 'object',
      deprecated: true,
      description: 'Declared for compatibility with older clients. Responses use Problem (application/problem+json).',
      properties: { error: { type: 'object', properties: { code: { type: 'string' }, message: { type: 'string' } } } },
    },
  };

  for (const route of routes) {
    const op = doc.paths[route.path.replace(/\/$/, '')]?.[route.method.toLowerCase()];
    if (!op) continue;
    const scopes = route.meta.scopes ?? [];
    // An API key, or an OAuth access token granted the same scopes (not for test-key-only endpoints).
    op.security = route.meta.testKeysOnly ? [{ ApiKeyAuth: [] }] : [{ ApiKeyAuth: [] }, { OAuth2: scopes }];
    op['x-required-scopes'] = scopes;
    if (scopes.length) op.description = [op.description, `Requires scope ${scopes.join(' and ')}.`].filter(Boolean).join('\n\n');
    const success = op.responses['200'];
    success.headers = { ...commonHeaders, ...rateHeaders, ...success.headers };
    const raw = route.meta.raw;
    if (raw) {
      // Streamed by the HTTP shell: the procedure's JSON output never reaches the client.
      success.description = raw.description;
      success.content = { [raw.contentType]: { schema: raw.schema } };
      for (const [name, description] of Object.entries(raw.headers ?? {})) success.headers[name] = header(description);
    }
    const responses: Json = {};
    const idempotent = route.meta.idempotent;
    if (idempotent) {
      if (idempotent.status === 201) success.description = 'Created';
      success.headers['X-Idempotency-Replayed'] = header('true when this is the stored response of an earlier request with the same Idempotency-Key');
      responses[String(idempotent.status)] = success;
      op.parameters = [
        ...(op.parameters ?? []),
        {
          name: 'Idempotency-Key',
          in: 'header',
          required: !idempotent.optional,
          description:
            'Free-form string of at most 255 characters, scoped to the company and kept 24 hours. A repeat on the same endpoint returns the stored response with X-Idempotency-Replayed: true; on another endpoint it is a 400.',
          schema: { type: 'string', maxLength: 255 },
          example: 'order-2026-0042',
        },
      ];
    } else if (route.meta.created) {
      success.description = 'Created';
      responses['201'] = success;
    } else {
      responses['200'] = success;
    }
    const errors = new Set([
      400,
      401,
      403,
      ...(route.path.includes('{') || route.path.endsWith('/lookup') ? [404] : []),
      429,
      500,
      503,
      ...(route.meta.problems ?? []),
    ]);
    if (route.method !== 'GET') [413, 415].forEach((s) => errors.add(s));
    for (const status of [...errors].sort()) responses[String(status)] = problemResponse(status, true);
    op.responses = responses;
  }

  doc.paths['/openapi.json'] = {
    get: {
      operationId: 'openapi',
      summary: 'This OpenAPI description',
      tags: ['Meta'],
      security: [],
      responses: { '200': { description: 'OpenAPI 3.1 document', headers: commonHeaders, content: { 'application/json': { schema: { type: 'object' } } } } },
    },
  };
  doc.paths['/'] = {
    get: {
      operationId: 'discovery',
      summary: 'Service discovery: name, status, version, authentication, endpoints and features',
      tags: ['Meta'],
      security: [],
      responses: { '200': { description: 'Discovery document', headers: commonHeaders, content: { 'application/json': { schema: { type: 'object' } } } } },
    },
  };
  const oauth = oauthPaths(problemResponse(429, true));
  Object.assign(doc.components.schemas, oauth.schemas);
  Object.assign(doc.paths, oauth.paths);
  // The adapter's own error schemas ({ message, code: tRPC code }) are no longer referenced and would
  // contradict the Problem shape in generated clients.
  for (const name of Object.keys(doc.components.schemas)) if (name.startsWith('error.')) delete doc.components.schemas[name];
  return doc as OpenAPIObject;
}

let cached: OpenAPIObject | undefined;
/**
 * Built once per process (the router does not change at run time); `serverUrl` is the absolute base
 * URL clients should call (PUBLIC_BASE_URL, or the request's own origin), since generated clients
 * resolve a relative one against nothing.
 */
/**
 * `serverUrl`: the service's address ({app_url}); the API's server is {app_url}/api/v1, the OAuth
 * endpoints' is {app_url}/api, and the OAuth flow's URLs become absolute. Without it they stay relative.
 */
export function openApiDocument(serverUrl?: string): OpenAPIObject {
  cached ??= build();
  if (!serverUrl) return cached;
  const app = serverUrl.replace(/\/$/, '');
  const doc = cached as Json;
  const flow = doc.components.securitySchemes.OAuth2.flows.authorizationCode;
  const absolute = { ...flow, authorizationUrl: app + flow.authorizationUrl, tokenUrl: app + flow.tokenUrl, refreshUrl: app + flow.refreshUrl };
  const oauthServers = [{ url: `${app}/api`, description: 'OAuth endpoints live under {app_url}, not {base_url}' }];
  return {
    ...doc,
    servers: [{ url: `${app}/api/v1` }],
    components: {
      ...doc.components,
      securitySchemes: { ...doc.components.securitySchemes, OAuth2: { ...doc.components.securitySchemes.OAuth2, flows: { authorizationCode: absolute } } },
    },
    paths: {
      ...doc.paths,
      '/oauth/token': { ...doc.paths['/oauth/token'], servers: oauthServers },
      '/oauth/revoke': { ...doc.paths['/oauth/revoke'], servers: oauthServers },
    },
  } as OpenAPIObject;
}
