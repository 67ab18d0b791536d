// Contract, Limits: "100 per 60 seconds, enforced across all servers"; rate limit headers "on every
// authenticated response, errors and 429 included"; "A 429 carries Retry-After in seconds."
import { describe, expect, it } from 'vitest';
import { authenticateApiKey, countTokenEndpointRequest } from '@tlr/domain';
import { api, client, idem, ok, startServerProcess, testDb, useCompany } from './helpers.ts';

// Budgets are per credential: each test takes keys of its own (t.company.key()).
const t = useCompany();

describe('rate limits', () => {
  it('allows 100 requests per 60 s per credential, then 429 with Retry-After and the headers', async () => {
    const key = (await t.company.key()).key;
    const c = api(t.svc.url, key);
    const first = await c.GET('/customers');
    expect(first.response.headers.get('x-ratelimit-limit')).toBe('100');
    expect(first.response.headers.get('x-ratelimit-remaining')).toBe('99');
    const reset = Number(first.response.headers.get('x-ratelimit-reset'));
    expect(reset).toBeGreaterThan(0);
    expect(reset).toBeLessThanOrEqual(60);
    for (let i = 2; i <= 99; i++) await c.GET('/customers');
    // an error response counts and carries the headers too (a malformed id on purpose, so untyped)
    const err = await client(t.svc.url, key).get('/customers/not-a-uuid');
    expect(err.status).toBe(400);
    expect(err.headers.get('x-ratelimit-remaining')).toBe('0');
    const limited = await c.GET('/customers');
    expect(limited.response.status).toBe(429);
    expect(limited.response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(limited.error).toMatchObject({ status: 429, code: 'rate_limited' });
    expect(limited.error?.title).toMatch(/100 requests per 60 seconds/);
    expect(Number(limited.response.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.response.headers.get('x-ratelimit-limit')).toBe('100');
    expect(limited.response.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(Number(limited.response.headers.get('x-ratelimit-reset'))).toBeGreaterThan(0);
    expect(limited.response.headers.get('x-request-id')).toBeTruthy();
    // a client that ignores Retry-After is refused by the server's memory, without a database write
    const counted = async () =>
      (
        await testDb().pool.query<{ count: number }>(
          'SELECT count FROM rate_limit_windows w JOIN api_keys k ON k.id = w.credential_id WHERE k.key_prefix = $1 ORDER BY k.created_at DESC LIMIT 1',
          [key.slice(0, 13)],
        )
      ).rows[0]?.count;
    const before = await counted();
    expect(before).toBeGreaterThanOrEqual(100); // the window was found: the comparison below is not undefined with undefined
    for (let i = 0; i < 5; i++) {
      const again = await c.GET('/customers');
      expect(again.response.status).toBe(429);
      expect(again.response.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(Number(again.response.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    expect(await counted()).toBe(before);
    // another credential of the same company has its own budget
    expect((await api(t.svc.url, (await t.company.key()).key).GET('/customers')).response.status).toBe(200);
  });

  it('starts a new window once 60 s have passed', async () => {
    const k = await t.company.key();
    const c = api(t.svc.url, k.key);
    await c.GET('/customers');
    await testDb().pool.query(`UPDATE rate_limit_windows SET count = 100, window_start = now() - interval '61 seconds' WHERE credential_id = $1`, [k.id]);
    const r = await c.GET('/customers');
    expect(r.response.status).toBe(200);
    expect(r.response.headers.get('x-ratelimit-remaining')).toBe('99');
  });

  it('is enforced across all servers: two server processes share one budget', async () => {
    const [a, b] = await Promise.all([startServerProcess(), startServerProcess()]);
    try {
      const key = (await t.company.key()).key;
      const spread = (k: string) => [api(a.url, k), api(b.url, k)] as const;
      const [onA, onB] = spread(key);
      const replies = await Promise.all(Array.from({ length: 130 }, (_, i) => (i % 2 ? onA : onB).GET('/customers')));
      const served = replies.filter((r) => r.response.status === 200);
      const limited = replies.filter((r) => r.response.status === 429);
      expect(served).toHaveLength(100);
      expect(limited).toHaveLength(30);
      // each server saw only 65 requests, yet each now refuses: neither keeps a count of its own
      expect((await onA.GET('/customers')).response.status).toBe(429);
      expect((await onB.GET('/customers')).response.status).toBe(429);
      const remaining = served.map((r) => Number(r.response.headers.get('x-ratelimit-remaining'))).sort((x, y) => x - y);
      expect(remaining).toEqual(Array.from({ length: 100 }, (_, i) => i));

      // A GET by id counts in the statement that also reads the row (decision 148): the same exact
      // budget over both servers, the row in every 200 and in no 429.
      const customer = (await ok(t.api.POST('/customers', { params: idem(), body: { name: 'Tælles Ens ApS' } }))).data;
      const [readA, readB] = spread((await t.company.key()).key);
      const reads = await Promise.all(
        Array.from({ length: 130 }, (_, i) => (i % 2 ? readA : readB).GET('/customers/{id}', { params: { path: { id: customer.id } } })),
      );
      const found = reads.filter((r) => r.response.status === 200);
      const refused = reads.filter((r) => r.response.status === 429);
      expect(found).toHaveLength(100);
      expect(refused).toHaveLength(30);
      for (const r of found) expect(r.data?.data).toEqual(customer);
      for (const r of refused) {
        expect(r.data).toBeUndefined();
        expect(JSON.stringify(r.error)).not.toContain('Tælles');
      }
      expect(found.map((r) => Number(r.response.headers.get('x-ratelimit-remaining'))).sort((x, y) => x - y)).toEqual(Array.from({ length: 100 }, (_, i) => i));
    } finally {
      a.proc.kill('SIGTERM');
      b.proc.kill('SIGTERM');
    }
  });

  it("commits the counting statement asynchronously, and only that statement's transaction", async () => {
    // Decision 19: nothing the counting statement writes needs a WAL flush before the answer (the count
    // is unlogged, last-used times are kept at minute precision). A posting on the same pooled
    // connection afterwards must still wait for its flush, so the setting may not outlive the statement.
    const company = t.company;
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
