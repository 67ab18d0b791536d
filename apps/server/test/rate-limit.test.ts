// Contract, Limits: "100 per 60 seconds, enforced across all servers"; rate limit headers "on every
// authenticated response, errors and 429 included"; "A 429 carries Retry-After in seconds."
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticateApiKey, countTokenEndpointRequest } from '@tlr/domain';
import { client, newCompany, startServerProcess, startTestService, testDb } from './helpers.ts';
import type { Service } from '../src/service.ts';

let svc: Service;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc.stop());

describe('rate limits', () => {
  it('allows 100 requests per 60 s per credential, then 429 with Retry-After and the headers', async () => {
    const company = await newCompany();
    const key = (await company.key()).key;
    const c = client(svc.url, key);
    const first = await c.get('/customers');
    expect(first.headers.get('x-ratelimit-limit')).toBe('100');
    expect(first.headers.get('x-ratelimit-remaining')).toBe('99');
    const reset = Number(first.headers.get('x-ratelimit-reset'));
    expect(reset).toBeGreaterThan(0);
    expect(reset).toBeLessThanOrEqual(60);
    for (let i = 2; i <= 99; i++) await c.get('/customers');
    // an error response counts and carries the headers too
    const err = await c.get('/customers/not-a-uuid');
    expect(err.status).toBe(400);
    expect(err.headers.get('x-ratelimit-remaining')).toBe('0');
    const limited = await c.get('/customers');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(limited.body).toMatchObject({ status: 429, code: 'rate_limited' });
    expect(limited.body.title).toMatch(/100 requests per 60 seconds/);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.headers.get('x-ratelimit-limit')).toBe('100');
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(Number(limited.headers.get('x-ratelimit-reset'))).toBeGreaterThan(0);
    expect(limited.headers.get('x-request-id')).toBeTruthy();
    // a client that ignores Retry-After is refused by the server's memory, without a database write
    const { testDb } = await import('./helpers.ts');
    const counted = async () =>
      (
        await testDb().pool.query(
          'SELECT count FROM rate_limit_windows w JOIN api_keys k ON k.id = w.credential_id WHERE k.key_prefix = $1 ORDER BY k.created_at DESC LIMIT 1',
          [key.slice(0, 13)],
        )
      ).rows[0].count;
    const before = await counted();
    for (let i = 0; i < 5; i++) {
      const again = await c.get('/customers');
      expect(again.status).toBe(429);
      expect(again.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(Number(again.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    expect(await counted()).toBe(before);
    // another credential of the same company has its own budget
    expect((await client(svc.url, (await company.key()).key).get('/customers')).status).toBe(200);
  });

  it('starts a new window once 60 s have passed', async () => {
    const company = await newCompany();
    const k = await company.key();
    const c = client(svc.url, k.key);
    await c.get('/customers');
    const { testDb } = await import('./helpers.ts');
    await testDb().pool.query(`UPDATE rate_limit_windows SET count = 100, window_start = now() - interval '61 seconds' WHERE credential_id = $1`, [k.id]);
    const r = await c.get('/customers');
    expect(r.status).toBe(200);
    expect(r.headers.get('x-ratelimit-remaining')).toBe('99');
  });

  it('is enforced across all servers: two server processes share one budget', async () => {
    const [a, b] = await Promise.all([startServerProcess(), startServerProcess()]);
    try {
      const company = await newCompany();
      const key = (await company.key()).key;
      const replies = await Promise.all(Array.from({ length: 130 }, (_, i) => client(i % 2 ? a.url : b.url, key).get('/customers')));
      const ok = replies.filter((r) => r.status === 200);
      const limited = replies.filter((r) => r.status === 429);
      expect(ok).toHaveLength(100);
      expect(limited).toHaveLength(30);
      // each server saw only 65 requests, yet each now refuses: neither keeps a count of its own
      expect((await client(a.url, key).get('/customers')).status).toBe(429);
      expect((await client(b.url, key).get('/customers')).status).toBe(429);
      const remaining = ok.map((r) => Number(r.headers.get('x-ratelimit-remaining'))).sort((x, y) => x - y);
      expect(remaining).toEqual(Array.from({ length: 100 }, (_, i) => i));

      // A GET by id counts in the statement that also reads the row (decision 148): the same exact
      // budget over both servers, the row in every 200 and in no 429.
      const customer = (await client(svc.url, (await company.key()).key).post('/customers', { name: 'Tælles Ens ApS' })).body.data;
      const reader = (await company.key()).key;
      const reads = await Promise.all(Array.from({ length: 130 }, (_, i) => client(i % 2 ? a.url : b.url, reader).get(`/customers/${customer.id}`)));
      const found = reads.filter((r) => r.status === 200);
      expect(found).toHaveLength(100);
      expect(reads.filter((r) => r.status === 429)).toHaveLength(30);
      for (const r of found) expect(r.body.data).toEqual(customer);
      for (const r of reads.filter((x) => x.status === 429)) expect(r.text).not.toContain('Tælles');
      expect(found.map((r) => Number(r.headers.get('x-ratelimit-remaining'))).sort((x, y) => x - y)).toEqual(Array.from({ length: 100 }, (_, i) => i));
    } finally {
      a.proc.kill('SIGTERM');
      b.proc.kill('SIGTERM');
    }
  });

  it("commits the counting statement asynchronously, and only that statement's transaction", async () => {
    // Decision 19: nothing the counting statement writes needs a WAL flush before the answer (the count
    // is unlogged, last-used times are kept at minute precision). A posting on the same pooled
    // connection afterwards must still wait for its flush, so the setting may not outlive the statement.
    const company = await newCompany();
    const conn = await testDb().pool.connect();
    try {
      const setting = async () => (await conn.query<{ synchronous_commit: string }>('SHOW synchronous_commit')).rows[0]!.synchronous_commit;
      expect(await setting()).toBe('on');
      const key = (await company.key()).key;
      const counts: [() => Promise<number | undefined>, number][] = [
        [async () => (await authenticateApiKey(conn, key))?.rateLimit.remaining, 100],
        [async () => (await countTokenEndpointRequest(conn, 'token', company.companyId, '192.0.2.7')).remaining, 10],
      ];
      for (const [count, limit] of counts) {
        expect(await count()).toBe(limit - 1);
        expect(await setting()).toBe('on');
        await conn.query('BEGIN');
        expect(await count()).toBe(limit - 2);
        expect(await setting()).toBe('off');
        await conn.query('ROLLBACK');
        expect(await setting()).toBe('on');
      }
    } finally {
      conn.release();
    }
  });
});
