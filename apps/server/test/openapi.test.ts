// The OpenAPI 3.1 document: served without authentication, valid for a real OpenAPI 3.1 validator,
// carrying the contract's rules, and usable by a generated client: the HTTP tests' own types are
// openapi-typescript's of the served document (test/generated/api.ts), driven through openapi-fetch.
import { readFile } from 'node:fs/promises';
import { Validator } from '@seriousme/openapi-schema-validator';
import createClient from 'openapi-fetch';
import { beforeAll, describe, expect, it } from 'vitest';
import { routes } from '@tlr/api';
import { SCOPES } from '@tlr/domain';
import { apiTypesSource, API_TYPES_FILE } from '../../../test/api-types.ts';
import type { paths } from '../../../test/generated/api.ts';
import { api, bodyOf, idem, ok, startTestService, useCompany, type Api } from './helpers.ts';
import { operationOf, operationsOf, parametersOf, servedDocument, type OpenApiDocument, type OpenApiOperation } from './openapi-document.ts';

const META_PATHS = new Set(['/', '/openapi.json']);
/** The contract's collections: each has a list (GET) and a create (POST, Idempotency-Key). */
const CONTRACT_COLLECTIONS = ['/invoices', '/customers', '/products', '/expenses', '/suppliers', '/accounts', '/transactions', '/vouchers'];
/**
 * Every list: the collections, the webhook subscriptions, the exchange rates and the bank accounts ("List responses add
 * `meta`"; the list parameters apply to "all list endpoints").
 */
const LISTS = [
  ...CONTRACT_COLLECTIONS,
  '/webhooks',
  '/exchange-rates',
  '/vat-codes',
  '/vat-returns/{period}/lines',
  '/einvoices',
  '/bank-accounts',
  '/invoices/{id}/reminders',
  '/recurring-invoices',
  '/bank-accounts/{id}/statements',
  '/bank-accounts/{id}/lines',
  '/imports',
  '/audit-trail',
  '/reports/trial-balance',
  '/reports/general-ledger',
  '/reports/aged-receivables',
  '/reports/aged-payables',
  '/quotes',
  '/dimensions',
  '/budgets',
  '/assets',
  '/reports/assets',
];
/** The allowed sort fields per list: the contract's, and ours for webhooks, where it names none. */
const LIST_SORT: Record<string, string[]> = {
  // The contract's, and currency (documents in foreign currency).
  '/invoices': ['created_at', 'issue_date', 'due_date', 'total', 'invoice_number', 'currency'],
  '/customers': ['name', 'created_at', 'email'],
  '/products': ['name', 'created_at', 'unit_price'],
  '/expenses': ['created_at', 'date', 'amount', 'currency'],
  '/suppliers': ['name', 'created_at'],
  '/accounts': ['account_number', 'name', 'created_at'],
  '/transactions': ['date', 'created_at'],
  '/vouchers': ['upload_date', 'original_filename', 'file_size'],
  '/webhooks': ['created_at', 'url'],
  '/exchange-rates': ['date', 'currency', 'created_at'],
  '/vat-codes': ['code', 'name', 'created_at'],
  '/vat-returns/{period}/lines': ['date', 'amount'],
  '/einvoices': ['created_at', 'issue_date', 'document_number'],
  '/bank-accounts': ['name', 'created_at'],
  '/invoices/{id}/reminders': ['number', 'date', 'created_at'],
  '/recurring-invoices': ['created_at', 'start_date', 'next_date'],
  '/bank-accounts/{id}/statements': ['created_at', 'from_date', 'to_date'],
  '/bank-accounts/{id}/lines': ['booking_date', 'amount', 'created_at'],
  '/imports': ['created_at'],
  '/audit-trail': ['registered_at'],
  '/reports/trial-balance': ['account_number', 'name'],
  '/reports/general-ledger': ['date'],
  '/reports/aged-receivables': ['name', 'total'],
  '/reports/aged-payables': ['name', 'total'],
  '/quotes': ['created_at', 'issue_date', 'valid_until', 'total', 'quote_number'],
  '/dimensions': ['name', 'created_at'],
  '/budgets': ['name', 'created_at'],
  '/assets': ['created_at', 'acquisition_date', 'cost', 'name'],
  '/reports/assets': ['name', 'acquisition_date', 'cost', 'book_value'],
};
/** The lists with a status filter: the contract's three, bank lines (matched or unmatched), quotes, recurring invoices (active, paused, ended) and assets (active, fully_depreciated, disposed). */
const STATUS_LISTS = ['/invoices', '/expenses', '/vouchers', '/bank-accounts/{id}/lines', '/quotes', '/recurring-invoices', '/assets'];

const t = useCompany({ name: 'OpenAPI Klient ApS' });
let doc: OpenApiDocument;

beforeAll(async () => {
  doc = await servedDocument(t.svc.url);
});

// The token and revocation endpoints: in the document with a server of their own ({app_url}/api).
const OAUTH_DOC_PATHS = ['/oauth/token', '/oauth/revoke'];
/** Every API operation of the document (not the public documents, not OAuth's) as [path, method, operation]. */
const apiOperations = (): [string, string, OpenApiOperation][] =>
  operationsOf(doc)
    .filter(({ path }) => !META_PATHS.has(path) && !OAUTH_DOC_PATHS.includes(path))
    .map(({ path, method, op }) => [path, method, op]);
const routeFor = (path: string, method: string) => routes.find((r) => r.path.replace(/\/$/, '') === path && r.method.toLowerCase() === method);

describe('the served document', () => {
  it('is served without authentication as OpenAPI 3.1.0 of contract version 2026-04-10', async () => {
    const res = await fetch(`${t.svc.url}/api/v1/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('x-api-version')).toBe('2026-04-10');
    expect(res.headers.get('x-ratelimit-limit')).toBeNull();
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('2026-04-10');
    expect(operationOf(doc, '/openapi.json', 'get').security).toEqual([]);
  });

  it('is valid for an OpenAPI 3.1 validator', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc));
    if (!result.valid) console.error('OpenAPI validation errors:\n' + JSON.stringify(result.errors, null, 2));
    expect(validator.version).toBe('3.1');
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    // The validator is not vacuous: the same document with an OpenAPI 2 style parameter is refused.
    const broken = structuredClone(doc);
    const list = operationOf(broken, '/customers', 'get');
    list.parameters = [...(list.parameters ?? []), { name: 'x', in: 'body', schema: { type: 'string' } }];
    expect((await new Validator().validate(broken)).valid).toBe(false);
  });

  it('documents every public route and nothing else', () => {
    const documented = apiOperations()
      .map(([path, method]) => `${method.toUpperCase()} ${path}`)
      .sort();
    const served = routes.map((r) => `${r.method} ${r.path.replace(/\/$/, '')}`).sort();
    expect(documented).toEqual(served);
    const lookup = operationOf(doc, '/customers/lookup', 'get');
    expect(
      parametersOf(doc, lookup)
        .map((p) => p.name)
        .sort(),
    ).toEqual(['X-Request-ID', 'cvr', 'email', 'peppol_id', 'phone', 'q', 'telephone']);
  });
});

describe('contract rules in the document', () => {
  it('create POSTs answer 201 (never 200) and require an Idempotency-Key of at most 255 characters', () => {
    // "Create POSTs for invoices, customers, products, expenses, suppliers, accounts, transactions and
    // vouchers require the header Idempotency-Key" — each of those the document has must be a create.
    const contractCreates = CONTRACT_COLLECTIONS.filter((path) => doc.paths[path]?.post);
    expect(contractCreates).toEqual(expect.arrayContaining(['/customers', '/products', '/suppliers']));
    for (const path of contractCreates) expect(routeFor(path, 'post')?.meta.idempotent?.status, `POST ${path}`).toBe(201);
    for (const [path, method, op] of apiOperations()) {
      const where = `${method.toUpperCase()} ${path}`;
      const idem = parametersOf(doc, op).filter((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key');
      if (routeFor(path, method)?.meta.idempotent?.status === 201) {
        expect(method, where).toBe('post');
        expect(Object.keys(op.responses), where).toContain('201');
        expect(Object.keys(op.responses), where).not.toContain('200');
        expect(op.responses['201']?.content?.['application/json']?.schema?.properties?.data, where).toBeTruthy();
        expect(op.responses['201']?.headers?.['X-Idempotency-Replayed'], where).toBeTruthy();
        expect(idem, where).toHaveLength(1);
        expect(idem[0], where).toMatchObject({ required: true, schema: { type: 'string', maxLength: 255 } });
      } else if (routeFor(path, method)?.meta.idempotent?.status === 202) {
        // Work queued (POST /invoices/{id}/send, POST /einvoices/{id}/replay) answers 202 Accepted, never 200 or 201.
        expect([method, Object.keys(op.responses)], where).toEqual(['post', expect.arrayContaining(['202'])]);
        expect(Object.keys(op.responses), where).not.toContain('200');
        expect(idem, where).toHaveLength(1);
      } else if (routeFor(path, method)?.meta.idempotent) {
        // State transitions (PUT /invoices/{id}/status) and actions on a bank line (POST /bank-lines/{id}/match,
        // /unmatch, /post: the line's own state refuses a repeat, decision 257) and on a quote (POST /quotes/{id}/send,
        // /accept, /decline: a repeat is a no-op, decision 591) and on a recurring invoice (/pause, /resume,
        // decision 617) answer 200 and accept an optional key.
        const post = path.startsWith('/bank-lines/') || path.startsWith('/quotes/') || path.startsWith('/recurring-invoices/');
        expect([method, Object.keys(op.responses)], where).toEqual([post ? 'post' : 'put', expect.arrayContaining(['200'])]);
        expect(idem, where).toHaveLength(1);
        expect(idem[0], where).toMatchObject({ required: false, schema: { type: 'string', maxLength: 255 } });
      } else if (where === 'POST /webhooks') {
        // "POST /webhooks | body url, events; 201 with id, url, events, secret, message" and "Webhook
        // endpoints and the sandbox reset take no idempotency key".
        expect(Object.keys(op.responses), where).toContain('201');
        expect(Object.keys(op.responses), where).not.toContain('200');
        expect(idem, where).toHaveLength(0);
      } else {
        // Everything else (sandbox reset and the other webhook endpoints included) answers 200 and takes no key.
        expect(Object.keys(op.responses), where).toContain('200');
        expect(Object.keys(op.responses), where).not.toContain('201');
        expect(idem, where).toHaveLength(0);
      }
    }
  });

  it('declares the API key and OAuth 2.0 schemes on every API operation, with the scopes it needs, and advertises only what is served', async () => {
    const schemes = doc.components.securitySchemes;
    expect(schemes.ApiKeyAuth).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-API-Key' });
    // Contract, OAuth 2.0: authorization code with PKCE; the endpoints live under {app_url}.
    expect(Object.keys(schemes)).toEqual(['ApiKeyAuth', 'OAuth2']);
    expect(Object.keys(schemes.OAuth2?.flows ?? {})).toEqual(['authorizationCode']);
    const flow = schemes.OAuth2?.flows?.authorizationCode;
    if (!flow) throw new Error('no authorization code flow');
    expect(flow).toMatchObject({
      authorizationUrl: `${t.svc.url}/oauth/authorize`,
      tokenUrl: `${t.svc.url}/api/oauth/token`,
      refreshUrl: `${t.svc.url}/api/oauth/token`,
    });
    expect(Object.keys(flow.scopes).sort()).toEqual([...SCOPES].sort());
    // Each advertised URL answers: the token endpoint with an RFC 6749 error, the page with HTML.
    const token = await fetch(flow.tokenUrl, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
    expect(token.status).toBe(401);
    expect(((await token.json()) as { error: string }).error).toBe('invalid_client');
    const page = await fetch(`${flow.authorizationUrl}?client_id=x`);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    for (const path of OAUTH_DOC_PATHS) {
      const servers = doc.paths[path]?.servers ?? [];
      expect(servers.map((s) => s.url)).toEqual([`${t.svc.url}/api`]);
      for (const server of servers) {
        const res = await fetch(`${server.url}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
        expect(res.status, path).toBe(401);
      }
    }
    const served = (await ok(api(t.svc.url).GET('/'))).data;
    expect(served.authentication.oauth2).toMatchObject({
      token_url: '/api/oauth/token',
      authorization_url: '/oauth/authorize',
      revocation_url: '/api/oauth/revoke',
    });
    const metadata: unknown = await (await fetch(`${t.svc.url}/.well-known/oauth-authorization-server`)).json();
    expect(metadata).toMatchObject({ issuer: t.svc.url, token_endpoint: flow.tokenUrl, code_challenge_methods_supported: ['S256'] });
    for (const [path, method, op] of apiOperations()) {
      const where = `${method.toUpperCase()} ${path}`;
      const scopes = routeFor(path, method)?.meta.scopes ?? [];
      // "live keys and OAuth tokens get 403" on the sandbox reset: no OAuth scheme there.
      expect(op.security, where).toEqual(path === '/sandbox/reset' ? [{ ApiKeyAuth: [] }] : [{ ApiKeyAuth: [] }, { OAuth2: scopes }]);
      expect(op['x-required-scopes'], where).toEqual(scopes);
    }
  });

  it('POST /sandbox/reset declares no request body ("no body"), so generated clients send none', () => {
    const reset = operationOf(doc, '/sandbox/reset', 'post');
    expect(reset.requestBody).toBeUndefined();
    expect(Object.keys(reset.responses)).toContain('200');
  });

  it('errors are application/problem+json with the Problem schema; the legacy Error schema is declared', () => {
    const problem = doc.components.schemas.Problem;
    expect(problem?.type).toBe('object');
    expect([...(problem?.required ?? [])].sort()).toEqual(['code', 'detail', 'status', 'title', 'type']);
    expect(problem?.properties?.type).toMatchObject({ type: 'string', format: 'uri' });
    expect(problem?.properties?.status?.type).toBe('integer');
    // "The OpenAPI description also declares an error object of { error: { code, message } }".
    const legacy = doc.components.schemas.Error;
    expect(legacy?.properties?.error?.properties).toHaveProperty('code');
    expect(legacy?.properties?.error?.properties).toHaveProperty('message');
    // the adapter's own { message, code } error schemas are gone: nothing contradicts Problem
    expect(Object.keys(doc.components.schemas).filter((n) => n.startsWith('error.'))).toEqual([]);
    for (const [path, method, op] of apiOperations()) {
      const where = `${method.toUpperCase()} ${path}`;
      const statuses = Object.keys(op.responses);
      expect(statuses, where).toEqual(expect.arrayContaining(['400', '401', '403', '429', '500', '503']));
      if (method !== 'get') expect(statuses, where).toEqual(expect.arrayContaining(['413', '415']));
      if (path.includes('{') || path.endsWith('/lookup')) expect(statuses, where).toContain('404');
      for (const status of statuses.filter((s) => Number(s) >= 400)) {
        const r = op.responses[status];
        expect(Object.keys(r?.content ?? {}), `${where} ${status}`).toEqual(['application/problem+json']);
        expect(r?.content?.['application/problem+json']?.schema, `${where} ${status}`).toEqual({ $ref: '#/components/schemas/Problem' });
        // 401: no credential identified, 431: refused before the API is reached, so no rate limit
        // headers; 429 carries Retry-After.
        expect(Boolean(r?.headers?.['X-RateLimit-Limit']), `${where} ${status}`).toBe(status !== '401' && status !== '431');
        if (status === '429' || status === '503') expect(r?.headers?.['Retry-After'], where).toBeTruthy();
      }
      // business-rule refusals are documented where they can happen
      if (where === 'POST /transactions') expect(statuses, where).toContain('422');
      if (where === 'POST /accounts') expect(statuses, where).toContain('409');
      const success = op.responses['200'] ?? op.responses['201'] ?? op.responses['202'];
      for (const h of ['X-Request-ID', 'X-API-Version', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'])
        expect(success?.headers?.[h], `${where} ${h}`).toBeTruthy();
    }
  });

  it('declares on every operation, OAuth and public ones included, the X-Request-ID a client may send and the headers every answer carries', () => {
    // Contract, General rules 6: "Every response carries X-Request-ID ... and X-API-Version"; Limits: the
    // token endpoint's answers are counted and carry its rate limit headers (10 per 60 seconds).
    expect(doc.components.parameters?.['X-Request-ID']).toMatchObject({ in: 'header', required: false });
    for (const { path, method, op } of operationsOf(doc)) {
      const where = `${method.toUpperCase()} ${path}`;
      expect(op.parameters, where).toContainEqual({ $ref: '#/components/parameters/X-Request-ID' });
      for (const [status, r] of Object.entries(op.responses)) expect(Object.keys(r.headers ?? {}), `${where} ${status}`).toContain('X-Request-ID');
    }
    for (const path of OAUTH_DOC_PATHS)
      for (const [status, r] of Object.entries(operationOf(doc, path, 'post').responses)) {
        expect(r.headers?.['X-RateLimit-Limit'], `${path} ${status}`).toBeTruthy();
        expect(r.headers?.['X-API-Version'], `${path} ${status}`).toBeTruthy();
      }
    // The problem's extension members, and the public documents' bodies, are declared, not bare objects.
    expect(Object.keys(doc.components.schemas.Problem?.properties ?? {})).toEqual(
      expect.arrayContaining(['current_status', 'allowed_statuses', 'balance_due', 'paid_amount']),
    );
    expect(doc.components.schemas.Discovery?.required).toEqual(expect.arrayContaining(['authentication', 'endpoints', 'features']));
    expect(operationOf(doc, '/openapi.json', 'get').responses['200']?.content?.['application/json']?.schema?.required).toEqual(
      expect.arrayContaining(['openapi', 'paths']),
    );
  });

  it("list endpoints, /webhooks included, document page, per_page (1 to 200), sort (the contract's fields), order, since, until and search", () => {
    const listSchema = (op: OpenApiOperation) => op.responses['200']?.content?.['application/json']?.schema;
    const isListResponse = (op: OpenApiOperation) => Boolean(listSchema(op)?.properties?.meta?.properties?.per_page);
    // Lists are the contract's collections and the webhook subscriptions; no other endpoint may answer with the list envelope.
    const lists = apiOperations().filter(([path, method]) => method === 'get' && LISTS.includes(path));
    expect(lists.map(([path]) => path)).toEqual(expect.arrayContaining(['/customers', '/products', '/suppliers', '/webhooks']));
    for (const [path, method, op] of apiOperations()) {
      if (method === 'get' && isListResponse(op)) expect(LISTS, `GET ${path} answers a list`).toContain(path);
    }
    for (const [path, , op] of lists) {
      expect(isListResponse(op), path).toBe(true);
      const params = Object.fromEntries(
        parametersOf(doc, op)
          .filter((p) => p.in === 'query')
          .map((p) => [p.name, p.schema]),
      );
      expect(Object.keys(params), path).toEqual(expect.arrayContaining(['page', 'per_page', 'sort', 'order', 'since', 'until', 'search']));
      expect(params.page, path).toMatchObject({ type: 'integer', minimum: 1, default: 1 });
      expect(params.per_page, path).toMatchObject({ type: 'integer', minimum: 1, maximum: 200, default: 50 });
      expect(params.order, path).toMatchObject({ enum: ['asc', 'desc'], default: 'desc' });
      expect([...(params.sort?.enum ?? [])].sort(), `${path} sort`).toEqual([...(LIST_SORT[path] ?? [])].sort());
      // "status: only on invoices, expenses and vouchers"
      if (STATUS_LISTS.includes(path)) expect(params.status?.enum?.length, path).toBeGreaterThan(0);
      else expect(params, path).not.toHaveProperty('status');
      const ok = listSchema(op);
      expect(ok?.required, path).toEqual(['data', 'meta']);
      // A report's meta also says what the report is and its totals (decision 542): additive fields.
      const metaFields = ['page', 'per_page', 'total', 'total_pages'];
      if (path.startsWith('/reports/')) expect(ok?.properties?.meta?.required, path).toEqual(expect.arrayContaining(metaFields));
      else expect(ok?.properties?.meta?.required, path).toEqual(metaFields);
    }
  });
  it('tells how to get the credit note of a cancelled invoice: GET /invoices/{id}/pdf?document=credit_note', () => {
    const op = operationOf(doc, '/invoices/{id}/pdf', 'get');
    expect(op.description).toContain('GET /invoices/{id}/pdf?document=credit_note');
    expect(op.description).toMatch(/cancelled invoice is watermarked ANNULLERET, names the credit note that credited it and asks for no payment/);
    const document = parametersOf(doc, op).find((p) => p.name === 'document');
    expect(document).toMatchObject({ in: 'query', schema: { enum: ['invoice', 'credit_note'], default: 'invoice' } });
    expect(document?.schema?.description ?? document?.description).toMatch(/credit_note: the credit note \(kreditnota\)/);
  });
});

describe('a client generated from the document', () => {
  it('the HTTP tests are typed by the served document: test/generated/api.ts is what openapi-typescript makes of it', async () => {
    // Written from the router's document by `npm test` before the type check; the served one must give the same.
    const checked = await readFile(API_TYPES_FILE, 'utf8');
    expect(await apiTypesSource(doc), 'test/generated/api.ts is stale: run `npm run test:types`').toBe(checked);
    for (const p of ['"/customers"', '"/customers/{id}"', '"/customers/lookup"']) expect(checked).toContain(`${p}: {`);
  });

  it('refuses, at compile time, a create without Idempotency-Key, an unknown path and a mistyped field', () => {
    // Checked by `npm run typecheck` (this file is type-checked with the suite); never run.
    const never = (typed: Api) => {
      // @ts-expect-error the Idempotency-Key header is required on a create
      void typed.POST('/customers', { body: { name: 'No key' } });
      // @ts-expect-error no such path
      void typed.GET('/customerz');
      // @ts-expect-error a customer's name is a string
      void typed.POST('/customers', { params: idem(), body: { name: 42 } });
    };
    expect(typeof never).toBe('function');
  });

  it('creates, gets, lists and deletes a customer through openapi-fetch', async () => {
    const typed = t.api;
    const idempotencyKey = `openapi-fetch-${Date.now()}`;
    const body = { name: 'Generer Klient ApS', email: 'klient@example.dk', cvr: '87654338', city: 'Odense C', payment_terms_days: 30 };

    const created = await typed.POST('/customers', { params: idem(idempotencyKey), body });
    expect(created.error).toBeUndefined();
    expect(created.response.status).toBe(201);
    const customer = bodyOf(201, created).data;
    expect(customer).toMatchObject({ ...body, country: 'DK', phone: '', notes: '' });
    expect(customer.id).toMatch(/^[0-9a-f-]{36}$/);
    // The body has exactly the fields the document declares for Customer.
    expect(Object.keys(customer).sort()).toEqual(Object.keys(doc.components.schemas.Customer?.properties ?? {}).sort());

    const replay = await typed.POST('/customers', { params: idem(idempotencyKey), body });
    expect(replay.response.status).toBe(201);
    expect(replay.response.headers.get('x-idempotency-replayed')).toBe('true');
    expect(replay.data).toEqual(created.data);

    const got = await typed.GET('/customers/{id}', { params: { path: { id: customer.id } } });
    expect(got.response.status).toBe(200);
    expect(got.data).toEqual({ data: customer });

    const listed = await typed.GET('/customers', { params: { query: { search: 'Generer Klient', per_page: 200 } } });
    expect(listed.response.status).toBe(200);
    expect(listed.data?.data).toEqual([customer]);
    expect(listed.data?.meta).toEqual({ page: 1, per_page: 200, total: 1, total_pages: 1 });

    const removed = await typed.DELETE('/customers/{id}', { params: { path: { id: customer.id } } });
    expect(removed.response.status).toBe(200);
    expect(removed.data).toEqual({ data: { id: customer.id, deleted: true } });

    const gone = await typed.GET('/customers/{id}', { params: { path: { id: customer.id } } });
    expect(gone.response.status).toBe(404);
    expect(gone.response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(gone.error).toMatchObject({ status: 404, code: 'not_found' });
    for (const f of doc.components.schemas.Problem?.required ?? []) expect(gone.error, f).toHaveProperty(f);

    // A create without the header is refused as the document says (400 problem naming the header).
    const missing = await t.raw.post('/customers', { name: 'Uden nøgle' }, {});
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ status: 400, code: 'invalid_request' });
    expect(missing.text).toMatch(/Idempotency-Key/i);
  });

  it("names an absolute server URL: the request's own origin, or PUBLIC_BASE_URL when it is set", async () => {
    // A generated client (orval, openapi-fetch) resolves a relative servers URL against nothing.
    expect(doc.servers).toEqual([{ url: `${t.svc.url}/api/v1` }]);
    const fromServers = createClient<paths>({ baseUrl: doc.servers[0]?.url, headers: { 'X-API-Key': t.key } });
    expect((await fromServers.GET('/customers')).response.status).toBe(200);
    const behindProxy = await startTestService({ PUBLIC_BASE_URL: 'https://api.tlr.example' });
    try {
      const served = await servedDocument(`http://127.0.0.1:${behindProxy.port}`);
      expect(served.servers).toEqual([{ url: 'https://api.tlr.example/api/v1' }]);
    } finally {
      await behindProxy.stop();
    }
  });
});
