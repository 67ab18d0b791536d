// The cross-cutting HTTP rules of the contract: envelopes, headers, errors, authentication, scopes.
import type { MethodResponse } from 'openapi-fetch';
import { describe, expect, it } from 'vitest';
import { api, bodyOf, client, idem, internal, ok, testDb, useCompany, type Api, type Problem, type Reply } from './helpers.ts';

const t = useCompany();

/** A refusal as the typed client (`error`, `response`) or the raw one (`body`, `status`) gives it. */
type Refusal = { error?: Problem; response: Response } | Reply<Problem>;

function expectProblem(r: Refusal, status: number, code: string) {
  const [got, headers, body] = 'response' in r ? [r.response.status, r.response.headers, r.error] : [r.status, r.headers, r.body];
  expect(got).toBe(status);
  expect(headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(body).toMatchObject({ status, code });
  expect(typeof body?.type).toBe('string');
  expect(() => new URL(String(body?.type))).not.toThrow();
  expect(typeof body?.title).toBe('string');
  expect(typeof body?.detail).toBe('string');
  // "The older duplicate field `error` no longer exists."
  expect(body).not.toHaveProperty('error');
  expect(body).not.toHaveProperty('message');
}

function expectCommonHeaders(h: Headers) {
  // "Every response carries X-Request-ID ... and X-API-Version."
  expect(h.get('x-request-id')).toBeTruthy();
  expect(h.get('x-api-version')).toBe('2026-04-10');
}

const noRateHeaders = (h: Headers) => {
  expect(h.get('x-ratelimit-limit')).toBeNull();
  expect(h.get('x-ratelimit-remaining')).toBeNull();
  expect(h.get('x-ratelimit-reset')).toBeNull();
};

describe('authentication', () => {
  it('answers 401 unauthorized without a key, with common headers and no rate limit headers', async () => {
    const r = await api(t.svc.url).GET('/customers');
    expectProblem(r, 401, 'unauthorized');
    expectCommonHeaders(r.response.headers);
    // "such a response carries no rate limit headers because no credential was identified"
    noRateHeaders(r.response.headers);
  });

  it('refuses a malformed, an unknown, an expired and a revoked key alike', async () => {
    const expired = await t.company.key(['customers:read'], 'live', new Date(Date.now() + 1500));
    const revoked = await t.company.key(['customers:read']);
    expect((await api(t.svc.url, revoked.key).GET('/customers')).response.status).toBe(200);
    await internal().internal.revokeApiKey({ id: revoked.id });
    await new Promise((r) => setTimeout(r, 1600));
    for (const k of ['nonsense', `tlr_live_${'0'.repeat(48)}`, expired.key, revoked.key]) {
      const r = await api(t.svc.url, k).GET('/customers');
      expectProblem(r, 401, 'unauthorized');
      noRateHeaders(r.response.headers);
    }
  });

  it('stores only a digest of the key, never the key itself', async () => {
    const k = await t.company.key(['customers:read']);
    const row = await testDb().prisma.apiKey.findUniqueOrThrow({ where: { id: k.id } });
    expect(JSON.stringify(row)).not.toContain(k.key);
    expect(k.key).toMatch(/^tlr_live_[0-9a-f]{48}$/);
    expect(row.last_used_at).toBeNull();
    await api(t.svc.url, k.key).GET('/customers');
    const used = await testDb().prisma.apiKey.findUniqueOrThrow({ where: { id: k.id } });
    expect(used.last_used_at).not.toBeNull();
  });

  it("answers 403 forbidden outside the key's scopes, with rate limit headers", async () => {
    const readOnly = api(t.svc.url, (await t.company.key(['customers:read'])).key);
    expect((await readOnly.GET('/customers')).response.status).toBe(200);
    const r = await readOnly.POST('/customers', { params: idem(), body: { name: 'X' } });
    expectProblem(r, 403, 'forbidden');
    expect(r.error?.detail).toContain('customers:write');
    expect(r.response.headers.get('x-ratelimit-limit')).toBe('100');
    expectProblem(await readOnly.GET('/products'), 403, 'forbidden');
  });
});

describe('envelopes and headers', () => {
  it('wraps a resource in data and carries the common and rate limit headers', async () => {
    const created = await t.api.POST('/customers', { params: idem(), body: { name: 'Envelope A/S', email: 'a@example.dk' } });
    expect(created.response.status).toBe(201);
    const customer = bodyOf(201, created).data;
    expect(customer).toMatchObject({ name: 'Envelope A/S', email: 'a@example.dk' });
    expectCommonHeaders(created.response.headers);
    expect(created.response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(created.response.headers.get('cache-control')).toBe('no-store');
    expect(created.response.headers.get('strict-transport-security')).toMatch(/max-age=/);
    const byId = { params: { path: { id: customer.id } } };
    const got = await t.api.GET('/customers/{id}', byId);
    expect(got.data).toEqual({ data: customer });
    expect(got.response.headers.get('x-ratelimit-limit')).toBe('100');
    expect(Number(got.response.headers.get('x-ratelimit-remaining'))).toBeLessThan(100);
    expect(Number(got.response.headers.get('x-ratelimit-reset'))).toBeGreaterThan(0);
    const del = await t.api.DELETE('/customers/{id}', byId);
    expect(del.response.status).toBe(200);
    expect(del.data).toEqual({ data: { id: customer.id, deleted: true } });
    expectProblem(await t.api.GET('/customers/{id}', byId), 404, 'not_found');
  });

  it('echoes a client X-Request-ID and mints one otherwise', async () => {
    // A header the document declares on every operation, so the typed client sends it as a parameter.
    const mine = await t.api.GET('/customers', { params: { header: { 'X-Request-ID': 'support-ticket-42' } } });
    expect(mine.response.headers.get('x-request-id')).toBe('support-ticket-42');
    const a = await t.api.GET('/customers');
    const b = await t.api.GET('/customers');
    expect(a.response.headers.get('x-request-id')).not.toBe(b.response.headers.get('x-request-id'));
  });

  it('answers CORS preflights with 204 and the common headers', async () => {
    const res = await fetch(`${t.svc.url}/api/v1/customers`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://app.example.dk', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'x-api-key,idempotency-key' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-headers')).toMatch(/Idempotency-Key/);
    expect(res.headers.get('access-control-expose-headers')).toMatch(/X-Request-ID/);
    expectCommonHeaders(res.headers);
  });
});

// Unknown paths, wrong methods, broken bodies and mistyped values are malformed on purpose, so they go
// through the raw client (`t.raw`); what the document allows goes through the typed one.
describe('client mistakes are problems, never 500', () => {
  it('unknown path: 404 not_found, with the common headers', async () => {
    for (const path of ['/nope', '/customers/a/b']) {
      const r = await t.raw.get(path);
      expectProblem(r, 404, 'not_found');
      expectCommonHeaders(r.headers);
    }
    const outside = await fetch(`${t.svc.url}/elsewhere`);
    expect(outside.status).toBe(404);
    expectCommonHeaders(outside.headers);
  });

  it('wrong method: 405 with Allow', async () => {
    const r = await t.raw.call('PATCH', '/customers');
    expectProblem(r, 405, 'method_not_allowed');
    expect(r.headers.get('allow')).toContain('GET');
    expect(r.headers.get('allow')).toContain('POST');
  });

  it('404 and 405 carry the rate limit headers when a credential was identified, and none without one', async () => {
    // "every authenticated response, errors and 429 included, carries X-RateLimit-*"
    for (const r of [await t.raw.get('/nope'), await t.raw.call('PATCH', '/customers')]) {
      expect(r.headers.get('x-ratelimit-limit')).toBe('100');
      expect(r.headers.get('x-ratelimit-remaining')).not.toBeNull();
      expect(r.headers.get('x-ratelimit-reset')).not.toBeNull();
    }
    const anonymous = await client(t.svc.url).get('/nope');
    expectProblem(anonymous, 404, 'not_found');
    noRateHeaders(anonymous.headers);
    // an invalid key on an unknown path: no credential identified, so 401 without rate limit headers
    const invalid = await client(t.svc.url, 'tlr_live_nope').get('/nope');
    expectProblem(invalid, 401, 'unauthorized');
    noRateHeaders(invalid.headers);
  });

  it('malformed JSON: 400 invalid_request', async () => {
    const r = await t.raw.call('POST', '/customers', { raw: '{"name": ', headers: { 'Content-Type': 'application/json', 'Idempotency-Key': 'malformed-1' } });
    expectProblem(r, 400, 'invalid_request');
  });

  it('oversized body: 413', async () => {
    const r = await t.api.POST('/customers', { params: idem(), body: { name: 'x', notes: 'y'.repeat(1_100_000) } });
    expectProblem(r, 413, 'payload_too_large');
  });

  it('a body that is not JSON: 415', async () => {
    const r = await t.raw.call('POST', '/customers', { raw: 'name=x', headers: { 'Content-Type': 'text/plain', 'Idempotency-Key': 'ct-1' } });
    expectProblem(r, 415, 'unsupported_media_type');
  });

  it('wrong types and unknown fields name the field', async () => {
    const wrongType = await t.raw.post('/customers', { name: 42 });
    expectProblem(wrongType, 400, 'invalid_request');
    expect(wrongType.body.field).toBe('name');
    const unknown = await t.raw.post('/customers', { name: 'Ok', nmae: 'typo' });
    expectProblem(unknown, 400, 'invalid_request');
    expect(unknown.body.field).toBe('nmae');
    const badCvr = await t.api.POST('/customers', { params: idem(), body: { name: 'Ok', cvr: '1234567' } });
    expect(badCvr.error?.field).toBe('cvr');
    // the adapter must not coerce body values: a string is not a number, null is not 0
    const terms = await t.raw.post('/customers', { name: 'Ok', payment_terms_days: '30' });
    expectProblem(terms, 400, 'invalid_request');
    expect(terms.body.field).toBe('payment_terms_days');
    expectProblem(await t.raw.post('/customers', { name: 'Ok', payment_terms_days: null }), 400, 'invalid_request');
  });

  it('malformed UUIDs: 400 invalid_request; well-formed unknown ids: 404', async () => {
    const bad = await t.api.GET('/customers/{id}', { params: { path: { id: 'not-a-uuid' } } });
    expectProblem(bad, 400, 'invalid_request');
    expect(bad.error?.field).toBe('id');
    expectProblem(await t.api.GET('/customers/{id}', { params: { path: { id: '00000000-0000-4000-8000-000000000000' } } }), 404, 'not_found');
  });

  // The REST adapter (http/rest.ts) builds a procedure's input: the query or the body, then the path.
  it('a path parameter is not replaced by a query parameter of the same name', async () => {
    const made = (await ok(t.api.POST('/customers', { params: idem(), body: { name: 'Path Wins ApS' } }))).data;
    // GET /customers/{id} takes no query: `id` there is not in the document.
    const r = await t.raw.get<MethodResponse<Api, 'get', '/customers/{id}'>>(`/customers/${made.id}?id=00000000-0000-4000-8000-000000000000`);
    expect(r.status).toBe(200);
    expect(r.body.data.id).toBe(made.id);
    expect(r.body.data.name).toBe('Path Wins ApS');
  });

  it('an empty query value counts as not given, and query numbers are converted', async () => {
    // The query string as written, `search=` included: the typed client decides for itself what to send.
    const blank = await t.raw.get<MethodResponse<Api, 'get', '/customers'>>('/customers?search=&per_page=2');
    expect(blank.status).toBe(200);
    expect(blank.body.data.length).toBeLessThanOrEqual(2);
    expect(blank.body.meta.per_page).toBe(2);
    expectProblem(await t.raw.get('/customers?per_page=two'), 400, 'invalid_request');
    // decision 11: an unknown query parameter is named, whatever its name
    for (const q of ['__proto__=x', '__proto__=x&__proto__=y', 'constructor=x']) {
      const r = await t.raw.get(`/customers?${q}`);
      expectProblem(r, 400, 'invalid_request');
      expect(r.body.field, q).toBe(q.split('=')[0]);
    }
  });

  it('a JSON body sent as application/<x>+json is read as JSON', async () => {
    const r = await t.raw.call<MethodResponse<Api, 'post', '/customers'>>('POST', '/customers', {
      raw: JSON.stringify({ name: 'Plus Json ApS' }),
      headers: { 'Content-Type': 'application/vnd.tlr+json', 'Idempotency-Key': 'plus-json-1' },
    });
    expect(r.status).toBe(201);
    expect(r.body.data.name).toBe('Plus Json ApS');
  });
});

describe('public documents', () => {
  it('serves the discovery document without authentication', async () => {
    const r = await api(t.svc.url).GET('/');
    expect(r.response.status).toBe(200);
    const served = bodyOf(200, r).data;
    expect(served).toMatchObject({ status: 'ok', version: '2026-04-10' });
    expect(served.authentication.scopes).toHaveLength(19);
    expect(served.endpoints).toContainEqual(expect.objectContaining({ method: 'GET', path: '/customers/lookup' }));
    expect(Array.isArray(served.features)).toBe(true);
    expectCommonHeaders(r.response.headers);
  });

  it('answers health and readiness', async () => {
    expect((await fetch(`${t.svc.url}/healthz`)).status).toBe(200);
    const ready = await fetch(`${t.svc.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ready', database: 'ok' });
  });
});
