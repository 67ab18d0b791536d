// The OpenAPI 3.1 document, generated from the procedures by trpc-to-openapi and then completed with
// what the generator does not know: 201 for creates, the Idempotency-Key header, the security scheme,
// problem+json errors, the common response headers, the streamed (raw) responses, the documents
// served outside tRPC, and what people read: the tag catalogue, the contact and the license.
import { generateOpenApiDocument, type OpenAPIObject } from 'trpc-to-openapi';
import { z } from 'zod';
import { API_VERSION, REQUEST_ID_PATTERN } from '@tlr/config';
import { ERROR_CODES, errorCodes, problemExtensions, RATE_LIMIT, RATE_WINDOW_SECONDS, TOKEN_ENDPOINT_LIMIT } from '@tlr/domain';
import { discoverySchema } from './discovery.ts';
import { oauthPaths, oauthSecurityScheme } from './oauth-document.ts';
import { appRouter } from './root.ts';
import { BUSY_RETRY_AFTER, PROBLEM_TYPE_BASE } from './problem.ts';
import { RAW_DOWNLOAD_HEADERS, routes } from './routes.ts';
import { openApiTags } from './tags.ts';

// The generated document, completed in place: plain JSON whose shape the generator's types do not follow.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

/** A zod schema as the document's JSON Schema (2020-12, which OpenAPI 3.1 uses), without its $schema. */
function jsonSchema(schema: z.ZodType): Json {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io: 'output' }) as Json;
  return rest;
}

const statuses = Object.values(ERROR_CODES).map((spec: { status: number }) => spec.status);
const problemSchema = {
  type: 'object',
  description: 'RFC 9457 problem details. Every error response has this shape; the older `error` member (the Error schema) no longer exists.',
  required: ['type', 'title', 'status', 'detail', 'code'],
  properties: {
    type: { type: 'string', format: 'uri', example: `${PROBLEM_TYPE_BASE}invalid_request` },
    title: { type: 'string', example: 'Invalid request' },
    status: { type: 'integer', minimum: Math.min(...statuses), maximum: Math.max(...statuses), example: 400 },
    detail: { type: 'string', example: 'email: must be an e-mail address' },
    code: { type: 'string', enum: errorCodes, description: 'Stable machine-readable code (docs/errors.md)', example: 'invalid_request' },
    field: { type: 'string', description: 'The field, parameter or header at fault, when there is one', example: 'email' },
    errors: {
      type: 'array',
      items: { type: 'object', properties: { field: { type: 'string' }, message: { type: 'string' } }, required: ['field', 'message'] },
    },
    ...jsonSchema(problemExtensions).properties,
  },
  // Contract, Errors 2: the document declares the older { error: { code, message } } object, and
  // responses follow the problem shape. This says both: a problem is never such an object.
  not: { $ref: '#/components/schemas/Error' },
};

/** The contract's older error declaration (Errors 2); no response has this shape. */
const legacyErrorSchema = {
  type: 'object',
  deprecated: true,
  description: 'Declared for compatibility with older clients. No response has this shape: errors are Problem (application/problem+json).',
  required: ['error'],
  properties: {
    error: { type: 'object', required: ['code', 'message'], properties: { code: { type: 'string' }, message: { type: 'string' } } },
  },
};

const header = (description: string) => ({ description, schema: { type: 'string' } });
const intHeader = (description: string, minimum: number, maximum: number) => ({ description, schema: { type: 'integer', minimum, maximum } });
/**
 * The rate-limit headers of a limit of `limit` requests in any window of 60 seconds, a sliding one
 * (the API's, or the token endpoint's; decision 172).
 */
const rateHeadersOf = (limit: number) => ({
  'X-RateLimit-Limit': intHeader(`Requests allowed in any ${RATE_WINDOW_SECONDS} seconds (${limit}); the window slides`, limit, limit),
  'X-RateLimit-Remaining': intHeader(`Requests left now: ${limit} minus those counted in the last ${RATE_WINDOW_SECONDS} seconds`, 0, limit),
  'X-RateLimit-Reset': intHeader(
    `Seconds until the oldest request counted in the last ${RATE_WINDOW_SECONDS} seconds leaves the window, when Remaining next grows; on a 429 it equals Retry-After`,
    1,
    RATE_WINDOW_SECONDS,
  ),
});
// The headers of (nearly) every response, declared once in components.headers and referenced.
const sharedHeaders = {
  'X-Request-ID': header('Identifier of this request; quote it in support requests'),
  'X-API-Version': header('Contract version the response was produced against (2026-04-10)'),
  ...rateHeadersOf(RATE_LIMIT),
  // 429: until the oldest counted request leaves the window; 503: a moment (BUSY_RETRY_AFTER).
  'Retry-After': intHeader('Seconds to wait before retrying', 1, Math.max(RATE_WINDOW_SECONDS, BUSY_RETRY_AFTER)),
};
const ref = (name: keyof typeof sharedHeaders) => ({ $ref: `#/components/headers/${name}` });

/** Decision 5: a client's own request id is kept (and answered) when it is sane; otherwise the server mints one. */
const requestIdParameter = {
  name: 'X-Request-ID',
  in: 'header',
  required: false,
  description:
    'Your own identifier for this request, to correlate logs: kept and answered in X-Request-ID when it has 1 to 128 of A-Z a-z 0-9 . _ : -; otherwise the server mints a UUID.',
  schema: { type: 'string', pattern: REQUEST_ID_PATTERN.source },
};
const requestIdRef = { $ref: '#/components/parameters/X-Request-ID' };
const commonHeaders = { 'X-Request-ID': ref('X-Request-ID'), 'X-API-Version': ref('X-API-Version') };
const rateHeaders = {
  'X-RateLimit-Limit': ref('X-RateLimit-Limit'),
  'X-RateLimit-Remaining': ref('X-RateLimit-Remaining'),
  'X-RateLimit-Reset': ref('X-RateLimit-Reset'),
};

// Per status, the codes of the table that answer with it.
const errorDescription = (status: number) =>
  (Object.entries(ERROR_CODES) as [string, { status: number; title: string }][])
    .filter(([, spec]) => spec.status === status)
    .map(([code]) => code)
    .join(', ') || 'Error';

// 401: no credential was identified; 431: answered before the request reaches the API.
const WITHOUT_RATE_HEADERS = new Set([401, 431]);

function problemResponse(status: number, limits: Record<string, unknown> | undefined, description = errorDescription(status)) {
  return {
    description,
    headers: {
      ...commonHeaders,
      ...(limits && !WITHOUT_RATE_HEADERS.has(status) ? limits : {}),
      ...(status === 429 || status === 503 ? { 'Retry-After': ref('Retry-After') } : {}),
    },
    content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
  };
}

// Whom integrators write to (support with an X-Request-ID, partner application registration), and the
// terms: the service is proprietary, with no open-source license (decision 163).
const SERVICE_CONTACT = { name: 'tlr API support', email: 'api@tlr.dk' };
const SERVICE_LICENSE = { name: 'Proprietary: all rights reserved', identifier: 'LicenseRef-tlr-proprietary' };

// Contract, Conventions 2, said once for every operation that takes an Idempotency-Key.
const IDEMPOTENCY_REQUIRED =
  'Requires an Idempotency-Key (at most 255 characters, kept 24 hours): the same key again on this endpoint answers the stored response (same status and body, X-Idempotency-Replayed: true) and creates nothing; on another endpoint it is 400 invalid_request.';
const IDEMPOTENCY_OPTIONAL =
  'Takes an optional Idempotency-Key: with one, the same key again on this endpoint answers the stored response (X-Idempotency-Replayed: true) and changes nothing.';

/** The input fields of a streamed-body route that arrive as query parameters, each with its schema and description. */
function queryParameters(query: z.ZodObject): Json[] {
  const schema = z.toJSONSchema(query, { io: 'input' }) as Json;
  const required = new Set<string>(schema.required ?? []);
  return Object.entries(schema.properties as Record<string, Json>).map(([name, { description, ...rest }]) => ({
    name,
    in: 'query',
    required: required.has(name),
    ...(description ? { description } : {}),
    schema: rest,
  }));
}

function build(): OpenAPIObject {
  const doc = generateOpenApiDocument(appRouter, {
    title: 'tlr bookkeeping API',
    description:
      'REST API for bookkeeping in Denmark. Amounts are decimal numbers in DKK, dates YYYY-MM-DD, timestamps ISO 8601 UTC, identifiers UUIDs. ' +
      'Every success response wraps the resource in `data`; lists add `meta`. Errors are RFC 9457 application/problem+json.',
    version: API_VERSION,
    contact: SERVICE_CONTACT,
    license: SERVICE_LICENSE,
    openApiVersion: '3.1.0',
    baseUrl: '/api/v1',
    securitySchemes: {
      ApiKeyAuth: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'tlr_live_ or tlr_test_ followed by 48 hex characters' },
      OAuth2: oauthSecurityScheme,
    },
  }) as Json;

  doc.tags = openApiTags();
  doc.components.headers = sharedHeaders;
  doc.components.parameters = { 'X-Request-ID': requestIdParameter };
  doc.components.schemas = { ...doc.components.schemas, Problem: problemSchema, Error: legacyErrorSchema };

  for (const route of routes) {
    const op = doc.paths[route.path.replace(/\/$/, '')]?.[route.method.toLowerCase()];
    if (!op) continue;
    const scopes = route.meta.scopes ?? [];
    // An API key, or an OAuth access token granted the same scopes (not for test-key-only endpoints).
    op.security = route.meta.testKeysOnly ? [{ ApiKeyAuth: [] }] : [{ ApiKeyAuth: [] }, { OAuth2: scopes }];
    op['x-required-scopes'] = scopes;
    const idempotent = route.meta.idempotent;
    op.description = [
      op.description,
      idempotent && (idempotent.optional ? IDEMPOTENCY_OPTIONAL : IDEMPOTENCY_REQUIRED),
      scopes.length && `Requires scope ${scopes.join(' and ')}.`,
    ]
      .filter(Boolean)
      .join('\n\n');
    const success = op.responses['200'];
    success.headers = { ...commonHeaders, ...rateHeaders, ...success.headers };
    op.parameters = [...(op.parameters ?? []), requestIdRef];
    // dimension[Projekt]=A: an object parameter written as deepObject (the REST adapter reads it so; decision 582).
    for (const p of op.parameters as Json[]) if (p.in === 'query' && p.name === 'dimension') Object.assign(p, { style: 'deepObject', explode: true });
    const raw = route.meta.raw;
    if (raw) {
      // Streamed by the HTTP shell: the procedure's JSON output never reaches the client.
      success.description = raw.description;
      success.content = { [raw.contentType]: { schema: raw.schema } };
      for (const [name, description] of Object.entries(raw.headers ?? {})) success.headers[name] = header(description);
      for (const [name, { description }] of Object.entries(RAW_DOWNLOAD_HEADERS)) success.headers[name] = header(description);
    }
    if (route.meta.csv) {
      // The same report as CSV for a client whose Accept prefers text/csv (decision 545).
      success.content = {
        ...success.content,
        'text/csv': {
          schema: {
            type: 'string',
            description:
              'With `Accept: text/csv`: RFC 4180 CSV (comma, CRLF, UTF-8, a header row) of every row of the report, not one page; the columns are the JSON fields, nested ones joined with a dot.',
          },
        },
      };
      success.headers.Vary = header('Accept: the report is JSON or CSV by the Accept header');
    }
    const body = route.meta.requestBody;
    if (body) {
      const types = [body.contentType, ...(body.contentTypes ?? [])];
      op.requestBody = { required: true, description: body.description, content: Object.fromEntries(types.map((t) => [t, { schema: body.schema }])) };
      if (body.query) op.parameters = [...queryParameters(body.query), ...(op.parameters ?? [])];
    }
    const responses: Json = {};
    if (idempotent) {
      if (idempotent.status === 201) success.description = 'Created';
      if (idempotent.status === 202) success.description = 'Accepted: queued';
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
      431,
      500,
      503,
      ...(route.meta.problems ?? []),
    ]);
    if (route.method !== 'GET') [413, 415].forEach((s) => errors.add(s));
    const accepted = route.meta.accepted;
    if (accepted)
      responses['202'] = {
        description: accepted.description,
        headers: { ...success.headers, Location: header('The resource to watch: /api/v1/imports/{id}') },
        content: {
          'application/json': {
            schema: { type: 'object', required: ['data'], properties: { data: { $ref: `#/components/schemas/${accepted.schema}` } } },
          },
        },
      };
    for (const status of [...errors].sort()) responses[String(status)] = problemResponse(status, rateHeaders);
    op.responses = responses;
  }

  // The public documents: no credentials, so no rate limit. What can refuse them is what refuses any
  // request before Express (client-error.ts): a request that is not valid HTTP, or oversized headers.
  const publicDocument = (operationId: string, summary: string, description: string, answer: string, schema: Json) => ({
    get: {
      operationId,
      summary,
      description,
      tags: ['Meta'],
      security: [],
      parameters: [requestIdRef],
      responses: {
        '200': { description: answer, headers: commonHeaders, content: { 'application/json': { schema } } },
        '400': problemResponse(400, undefined, 'invalid_request: the request is not valid HTTP (a forbidden character in a header, a malformed request line)'),
        '431': problemResponse(431, undefined),
      },
    },
  });
  doc.paths['/openapi.json'] = publicDocument(
    'openapi',
    'This OpenAPI description',
    'The OpenAPI 3.1 description of the API (contract version 2026-04-10), public: no credentials, no rate limit. `servers` names PUBLIC_BASE_URL, or the origin the request reached. People read it rendered at /api/v1/docs.',
    'OpenAPI 3.1 document',
    {
      type: 'object',
      description: 'An OpenAPI 3.1 document (https://spec.openapis.org/oas/v3.1.0)',
      required: ['openapi', 'info', 'paths', 'components'],
      properties: {
        openapi: { type: 'string', enum: ['3.1.0'] },
        info: { type: 'object', required: ['title', 'version'], properties: { title: { type: 'string' }, version: { type: 'string', example: API_VERSION } } },
        servers: { type: 'array', items: { type: 'object', required: ['url'], properties: { url: { type: 'string' } } } },
        tags: { type: 'array', items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, description: { type: 'string' } } } },
        paths: { type: 'object', additionalProperties: { type: 'object' } },
        components: { type: 'object', additionalProperties: { type: 'object' } },
      },
    },
  );
  doc.paths['/'] = publicDocument(
    'discovery',
    'Service discovery: name, status, version, authentication, endpoints and features',
    'Public, in the `data` envelope: the service name, status and version; how to authenticate (the API key header and formats, the OAuth 2.0 URLs and token lifetimes, the scopes); every endpoint with the scopes it needs; the features.',
    'Discovery document',
    { type: 'object', required: ['data'], properties: { data: { $ref: '#/components/schemas/Discovery' } } },
  );
  doc.components.schemas.Discovery = jsonSchema(discoverySchema);
  const tokenLimits = rateHeadersOf(TOKEN_ENDPOINT_LIMIT);
  // Every answer of the OAuth endpoints is counted against their limit and carries its headers.
  const oauth = oauthPaths(problemResponse(429, tokenLimits), { ...commonHeaders, ...tokenLimits }, requestIdRef);
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
