// The cross-cutting HTTP rules of the contract: envelopes, headers, errors, authentication, scopes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, internal, newCompany, startTestService, testDb } from './helpers.ts';
import type { Service } from '../src/service.ts';

let svc: Service;
let company: Awaited<ReturnType<typeof newCompany>>;
let key: string;

beforeAll(async () => {
  svc = await startTestService();
  company = await newCompany();
  key = (await company.key()).key;
});
afterAll(() => svc.stop());

function expectProblem(r: { status: number; headers: Headers; body: any }, status: number, code: string) {
  expect(r.status).toBe(status);
  expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(r.body).toMatchObject({ status, code });
  expect(typeof r.body.type).toBe('string');
  expect(() => new URL(r.body.type)).not.toThrow();
  expect(typeof r.body.title).toBe('string');
  expect(typeof r.body.detail).toBe('string');
  // "The older duplicate field `error` no longer exists."
  expect(r.body).not.toHaveProperty('error');
  expect(r.body).not.toHaveProperty('message');
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
    const r = await client(svc.url).get('/customers');
    expectProblem(r, 401, 'unauthorized');
    expectCommonHeaders(r.headers);
    // "such a response carries no rate limit headers because no credential was identified"
    noRateHeaders(r.headers);
  });

  it('refuses a malformed, an unknown, an expired and a revoked key alike', async () => {
    const expired = await company.key(['customers:read'], 'live', new Date(Date.now() + 1500));
    const revoked = await company.key(['customers:read']);
    expect((await client(svc.url, revoked.key).get('/customers')).status).toBe(200);
    await internal().internal.revokeApiKey({ id: revoked.id });
    await new Promise((r) => setTimeout(r, 1600));
    for (const k of ['nonsense', `tlr_live_${'0'.repeat(48)}`, expired.key, revoked.key]) {
      const r = await client(svc.url, k).get('/customers');
      expectProblem(r, 401, 'unauthorized');
      noRateHeaders(r.headers);
    }
  });

  it('stores only a digest of the key, never the key itself', async () => {
    const k = await company.key(['customers:read']);
    const row = await testDb().prisma.apiKey.findUniqueOrThrow({ where: { id: k.id } });
    expect(JSON.stringify(row)).not.toContain(k.key);
    expect(k.key).toMatch(/^tlr_live_[0-9a-f]{48}$/);
    expect(row.last_used_at).toBeNull();
    await client(svc.url, k.key).get('/customers');
    const used = await testDb().prisma.apiKey.findUniqueOrThrow({ where: { id: k.id } });
    expect(used.last_used_at).not.toBeNull();
  });

  it("answers 403 forbidden outside the key's scopes, with rate limit headers", async () => {
    const readOnly = (await company.key(['customers:read'])).key;
    const c = client(svc.url, readOnly);
    expect((await c.get('/customers')).status).toBe(200);
    const r = await c.post('/customers', { name: 'X' });
    expectProblem(r, 403, 'forbidden');
    expect(r.body.detail).toContain('customers:write');
    expect(r.headers.get('x-ratelimit-limit')).toBe('100');
    expectProblem(await c.get('/products'), 403, 'forbidden');
  });
});

describe('envelopes and headers', () => {
  it('wraps a resource in data and carries the common and rate limit headers', async () => {
    const c = client(svc.url, key);
    const created = await c.post('/customers', { name: 'Envelope A/S', email: 'a@example.dk' });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ name: 'Envelope A/S', email: 'a@example.dk' });
    expectCommonHeaders(created.headers);
    expect(created.headers.get('x-content-type-options')).toBe('nosniff');
    expect(created.headers.get('cache-control')).toBe('no-store');
    expect(created.headers.get('strict-transport-security')).toMatch(/max-age=/);
    const got = await c.get(`/customers/${created.body.data.id}`);
    expect(got.body).toEqual({ data: created.body.data });
    expect(got.headers.get('x-ratelimit-limit')).toBe('100');
    expect(Number(got.headers.get('x-ratelimit-remaining'))).toBeLessThan(100);
    expect(Number(got.headers.get('x-ratelimit-reset'))).toBeGreaterThan(0);
    const del = await c.del(`/customers/${created.body.data.id}`);
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ data: { id: created.body.data.id, deleted: true } });
    expectProblem(await c.get(`/customers/${created.body.data.id}`), 404, 'not_found');
  });

  it('echoes a client X-Request-ID and mints one otherwise', async () => {
    const mine = await client(svc.url, key).get('/customers', { 'X-Request-ID': 'support-ticket-42' });
    expect(mine.headers.get('x-request-id')).toBe('support-ticket-42');
    const a = await client(svc.url, key).get('/customers');
    const b = await client(svc.url, key).get('/customers');
    expect(a.headers.get('x-request-id')).not.toBe(b.headers.get('x-request-id'));
  });

  it('answers CORS preflights with 204 and the common headers', async () => {
    const res = await fetch(`${svc.url}/api/v1/customers`, {
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

describe('client mistakes are problems, never 500', () => {
  const c = () => client(svc.url, key);

  it('unknown path: 404 not_found, with the common headers', async () => {
    for (const path of ['/nope', '/customers/a/b']) {
      const r = await c().get(path);
      expectProblem(r, 404, 'not_found');
      expectCommonHeaders(r.headers);
    }
    const outside = await fetch(`${svc.url}/elsewhere`);
    expect(outside.status).toBe(404);
    expectCommonHeaders(outside.headers);
  });

  it('wrong method: 405 with Allow', async () => {
    const r = await c().call('PATCH', '/customers');
    expectProblem(r, 405, 'method_not_allowed');
    expect(r.headers.get('allow')).toContain('GET');
    expect(r.headers.get('allow')).toContain('POST');
  });

  it('404 and 405 carry the rate limit headers when a credential was identified, and none without one', async () => {
    // "every authenticated response, errors and 429 included, carries X-RateLimit-*"
    for (const r of [await c().get('/nope'), await c().call('PATCH', '/customers')]) {
      expect(r.headers.get('x-ratelimit-limit')).toBe('100');
      expect(r.headers.get('x-ratelimit-remaining')).not.toBeNull();
      expect(r.headers.get('x-ratelimit-reset')).not.toBeNull();
    }
    const anonymous = await client(svc.url).get('/nope');
    expectProblem(anonymous, 404, 'not_found');
    noRateHeaders(anonymous.headers);
    // an invalid key on an unknown path: no credential identified, so 401 without rate limit headers
    const invalid = await client(svc.url, 'tlr_live_nope').get('/nope');
    expectProblem(invalid, 401, 'unauthorized');
    noRateHeaders(invalid.headers);
  });

  it('malformed JSON: 400 invalid_request', async () => {
    const r = await c().call('POST', '/customers', { raw: '{"name": ', headers: { 'Content-Type': 'application/json', 'Idempotency-Key': 'malformed-1' } });
    expectProblem(r, 400, 'invalid_request');
  });

  it('oversized body: 413', async () => {
    const r = await c().post('/customers', { name: 'x', notes: 'y'.repeat(1_100_000) });
    expectProblem(r, 413, 'payload_too_large');
  });

  it('a body that is not JSON: 415', async () => {
    const r = await c().call('POST', '/customers', { raw: 'name=x', headers: { 'Content-Type': 'text/plain', 'Idempotency-Key': 'ct-1' } });
    expectProblem(r, 415, 'unsupported_media_type');
  });

  it('wrong types and unknown fields name the field', async () => {
    const wrongType = await c().post('/customers', { name: 42 });
    expectProblem(wrongType, 400, 'invalid_request');
    expect(wrongType.body.field).toBe('name');
    const unknown = await c().post('/customers', { name: 'Ok', nmae: 'typo' });
    expectProblem(unknown, 400, 'invalid_request');
    expect(unknown.body.field).toBe('nmae');
    const badCvr = await c().post('/customers', { name: 'Ok', cvr: '1234567' });
    expect(badCvr.body.field).toBe('cvr');
    // the adapter must not coerce body values: a string is not a number, null is not 0
    const terms = await c().post('/customers', { name: 'Ok', payment_terms_days: '30' });
    expectProblem(terms, 400, 'invalid_request');
    expect(terms.body.field).toBe('payment_terms_days');
    expectProblem(await c().post('/customers', { name: 'Ok', payment_terms_days: null }), 400, 'invalid_request');
  });

  it('malformed UUIDs: 400 invalid_request; well-formed unknown ids: 404', async () => {
    const bad = await c().get('/customers/not-a-uuid');
    expectProblem(bad, 400, 'invalid_request');
    expect(bad.body.field).toBe('id');
    expectProblem(await c().get('/customers/00000000-0000-4000-8000-000000000000'), 404, 'not_found');
  });

  // The REST adapter (http/rest.ts) builds a procedure's input: the query or the body, then the path.
  it('a path parameter is not replaced by a query parameter of the same name', async () => {
    const made = await c().post('/customers', { name: 'Path Wins ApS' });
    expect(made.status).toBe(201);
    const r = await c().get(`/customers/${made.body.data.id}?id=00000000-0000-4000-8000-000000000000`);
    expect(r.status).toBe(200);
    expect(r.body.data.id).toBe(made.body.data.id);
    expect(r.body.data.name).toBe('Path Wins ApS');
  });

  it('an empty query value counts as not given, and query numbers are converted', async () => {
    const blank = await c().get('/customers?search=&per_page=2');
    expect(blank.status).toBe(200);
    expect(blank.body.data.length).toBeLessThanOrEqual(2);
    expect(blank.body.meta.per_page).toBe(2);
    expectProblem(await c().get('/customers?per_page=two'), 400, 'invalid_request');
    // decision 11: an unknown query parameter is named, whatever its name
    for (const q of ['__proto__=x', '__proto__=x&__proto__=y', 'constructor=x']) {
      const r = await c().get(`/customers?${q}`);
      expectProblem(r, 400, 'invalid_request');
      expect(r.body.field, q).toBe(q.split('=')[0]);
    }
  });

  it('a JSON body sent as application/<x>+json is read as JSON', async () => {
    const r = await c().call('POST', '/customers', {
      raw: JSON.stringify({ name: 'Plus Json ApS' }),
      headers: { 'Content-Type': 'application/vnd.tlr+json', 'Idempotency-Key': 'plus-json-1' },
    });
    expect(r.status).toBe(201);
    expect(r.body.data.name).toBe('Plus Json ApS');
  });
});

describe('public documents', () => {
  it('serves the discovery document without authentication', async () => {
    const r = await client(svc.url).get('/');
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ status: 'ok', version: '2026-04-10' });
    expect(r.body.data.authentication.scopes).toHaveLength(19);
    expect(r.body.data.endpoints).toContainEqual(expect.objectContaining({ method: 'GET', path: '/customers/lookup' }));
    expect(Array.isArray(r.body.data.features)).toBe(true);
    expectCommonHeaders(r.headers);
  });

  it('answers health and readiness', async () => {
    expect((await fetch(`${svc.url}/healthz`)).status).toBe(200);
    const ready = await fetch(`${svc.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ready', database: 'ok' });
  });
});
