// The OpenAPI 3.1 document, generated from the procedures by trpc-to-openapi and then completed with
// what the generator does not know: 201 for creates, the Idempotency-Key header, both security
// schemes, problem+json errors, the common response headers and the endpoints served outside tRPC.
import { generateOpenApiDocument, type OpenAPIObject } from 'trpc-to-openapi';
import { API_VERSION } from '@tlr/config';
import { SCOPES } from '@tlr/domain';
import { appRouter } from './root.ts';
import { PROBLEM_TYPE_BASE } from './problem.ts';
import { rawRoutes, routes } from './routes.ts';

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
    code: { type: 'string', description: 'Stable machine-readable code (docs/errors.md)', example: 'invalid_request' },
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

const errorDescriptions: Record<number, string> = {
  400: 'invalid_request: malformed parameters, body or Idempotency-Key',
  401: 'unauthorized: missing, invalid, expired or revoked credential (no rate limit headers)',
  403: 'forbidden: the credential lacks the scope',
  404: 'not_found: no such resource in the caller\'s company',
  409: 'conflict: the resource\'s state does not allow the change (account_number_taken, account_has_postings, already_reversed, ...)',
  422: 'a business rule refuses it: unbalanced_transaction, period_locked, fiscal_year_not_open, account_inactive',
  413: 'payload_too_large: request body over the limit',
  415: 'unsupported_media_type: the body is not application/json',
  429: 'rate_limited: more than 100 requests in 60 seconds; see Retry-After',
  500: 'internal_error: unexpected; quote X-Request-ID',
};

function problemResponse(status: number, withRateHeaders: boolean) {
  return {
    description: errorDescriptions[status] ?? 'Error',
    headers: {
      ...commonHeaders,
      ...(withRateHeaders && status !== 401 ? rateHeaders : {}),
      ...(status === 429 ? { 'Retry-After': header('Seconds to wait before retrying', 'integer') } : {}),
    },
    content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
  };
}

const dateParameter = (name: string, description: string, example: string) => ({
  name,
  in: 'query',
  required: false,
  description,
  schema: { type: 'string', format: 'date', pattern: '^\\d{4}-\\d{2}-\\d{2}$' },
  example,
});

/** OpenAPI operations of the raw routes (routes.ts), by "METHOD path". */
const rawOperations: Record<string, Json> = {
  'GET /exports/saft': {
    operationId: 'exports-saft',
    parameters: [
      dateParameter('from', 'First day of the period, inclusive. Default: the first day of the fiscal year containing `to` (or today).', '2026-01-01'),
      dateParameter('to', 'Last day of the period, inclusive; not before `from`. Default: the last day of the fiscal year containing `from` (or today).', '2026-12-31'),
    ],
    responses: {
      '200': {
        description:
          'The SAF-T Financial file: Header, MasterFiles (general ledger accounts with opening and closing balances, customers, suppliers, tax table) and GeneralLedgerEntries (every transaction of the period in SystemID order). Streamed (chunked).',
        headers: { 'Content-Disposition': header('attachment; filename="saft-<CVR or company id>-<from>-<to>.xml"') },
        content: {
          'application/xml': {
            schema: { type: 'string', description: 'XML valid against the Danish SAF-T Financial schema (namespace urn:StandardAuditFile-Taxation-Financial:DK, root AuditFile)' },
          },
        },
      },
    },
  },
};

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
      OAuth2: {
        type: 'oauth2',
        description: 'Authorization code with PKCE (S256); send the access token as Authorization: Bearer tlr_at_...',
        flows: {
          authorizationCode: {
            authorizationUrl: '/oauth/authorize',
            tokenUrl: '/api/oauth/token',
            refreshUrl: '/api/oauth/token',
            scopes: Object.fromEntries(SCOPES.map((s) => [s, s])),
          },
        },
      },
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

  // The plain Express routes: declared here by hand; the loop below adds what every operation gets.
  for (const raw of rawRoutes) {
    const operation = rawOperations[`${raw.method} ${raw.path}`];
    if (!operation) throw new Error(`no OpenAPI operation for ${raw.method} ${raw.path}`);
    doc.paths[raw.path] = { ...doc.paths[raw.path], [raw.method.toLowerCase()]: { tags: raw.tags, summary: raw.summary, description: raw.description, ...operation } };
  }

  for (const route of routes) {
    const op = doc.paths[route.path.replace(/\/$/, '')]?.[route.method.toLowerCase()];
    if (!op) continue;
    const scopes = route.meta.scopes ?? [];
    op.security = [{ ApiKeyAuth: [] }, { OAuth2: scopes }];
    op['x-required-scopes'] = scopes;
    if (scopes.length) op.description = [op.description, `Requires scope ${scopes.join(' and ')}.`].filter(Boolean).join('\n\n');
    const success = op.responses['200'];
    success.headers = { ...commonHeaders, ...rateHeaders, ...success.headers };
    const responses: Json = {};
    if (route.meta.create) {
      success.description = 'Created';
      success.headers['X-Idempotency-Replayed'] = header('true when this is the stored response of an earlier request with the same Idempotency-Key');
      responses['201'] = success;
      op.parameters = [
        ...(op.parameters ?? []),
        {
          name: 'Idempotency-Key',
          in: 'header',
          required: true,
          description:
            'Free-form string of at most 255 characters, scoped to the company and kept 24 hours. A repeat on the same endpoint returns the stored response with X-Idempotency-Replayed: true; on another endpoint it is a 400.',
          schema: { type: 'string', maxLength: 255 },
          example: 'order-2026-0042',
        },
      ];
    } else {
      responses['200'] = success;
    }
    const errors = new Set([400, 401, 403, ...(route.path.includes('{') || route.path.endsWith('/lookup') ? [404] : []), 429, 500, ...(route.meta.problems ?? [])]);
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
  // The adapter's own error schemas ({ message, code: tRPC code }) are no longer referenced and would
  // contradict the Problem shape in generated clients.
  for (const name of Object.keys(doc.components.schemas)) if (name.startsWith('error.')) delete doc.components.schemas[name];
  return doc as OpenAPIObject;
}

let cached: OpenAPIObject | undefined;
/** Built once per process: the router does not change at run time. */
export function openApiDocument(): OpenAPIObject {
  cached ??= build();
  return cached;
}
