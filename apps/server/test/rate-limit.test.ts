// Contract, Limits: "100 per 60 seconds, enforced across all servers"; rate limit headers "on every
// authenticated response, errors and 429 included"; "A 429 carries Retry-After in seconds."
// The limit holds over any 60 seconds, not per fixed window (decision 172), and an OAuth grant's
// tokens share one budget (decision 173).
import { describe, expect, it } from 'vitest';
import { authenticateApiKey, countTokenEndpointRequest } from '@tlr/domain';
import { api, client, connectedApp, idem, oauthApi, ok, startServerProcess, startTestService, testDb, useCompany, type Api } from './helpers.ts';

// Budgets are per credential: each test takes keys of its own (t.company.key()).
const t = useCompany();

const header = (r: { response: Response }, name: string) => r.response.headers.get(name);
const numberHeader = (r: { response: Response }, name: string) => Number(header(r, name));

/** Moves a key's logged requests back in time by `seconds` (as if that much time had passed). */
const age = (keyId: string, seconds: number) =>
  testDb().pool.query(
    `UPDATE rate_limit_logs SET accepted = (SELECT array_agg(a - make_interval(secs => $2) ORDER BY a) FROM unnest(accepted) a) WHERE key_id = $1`,
    [keyId, seconds],
  );

/** The row version of a key's log: it changes with every write. */
const logVersion = async (keyId: string) =>
  (await testDb().pool.query<{ xmin: string }>('SELECT xmin::text FROM rate_limit_logs WHERE key_id = $1', [keyId])).rows[0]?.xmin;

describe('rate limits', () => {
  it('allows 100 requests per 60 s per credential, then 429 with Retry-After and the headers', async () => {
    const k = await t.company.key();
    const c = api(t.svc.url, k.key);
    const first = await c.GET('/customers');
    expect(header(first, 'x-ratelimit-limit')).toBe('100');
    expect(header(first, 'x-ratelimit-remaining')).toBe('99');
    // the first request leaves the window in 60 s: that is when the next request frees up
    expect(numberHeader(first, 'x-ratelimit-reset')).toBeGreaterThanOrEqual(59);
    expect(numberHeader(first, 'x-ratelimit-reset')).toBeLessThanOrEqual(60);
    for (let i = 2; i <= 99; i++) expect(header(await c.GET('/customers'), 'x-ratelimit-remaining')).toBe(String(100 - i));
    // an error response counts and carries the headers too (a malformed id on purpose, so untyped)
    const err = await client(t.svc.url, k.key).get('/customers/not-a-uuid');
    expect(err.status).toBe(400);
    expect(err.headers.get('x-ratelimit-remaining')).toBe('0');
    const limited = await c.GET('/customers');
    expect(limited.response.status).toBe(429);
    expect(header(limited, 'content-type')).toMatch(/^application\/problem\+json/);
    expect(limited.error).toMatchObject({ status: 429, code: 'rate_limited' });
    expect(limited.error?.title).toMatch(/100 requests per 60 seconds/);
    const retryAfter = numberHeader(limited, 'retry-after');
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(header(limited, 'x-ratelimit-limit')).toBe('100');
    expect(header(limited, 'x-ratelimit-remaining')).toBe('0');
    // the reset is the moment a request frees up: on a 429, exactly the Retry-After
    expect(numberHeader(limited, 'x-ratelimit-reset')).toBe(retryAfter);
    expect(header(limited, 'x-request-id')).toBeTruthy();
    // a client that ignores Retry-After is refused by the server's memory, without a database write
    const before = await logVersion(k.id);
    expect(before).toBeDefined(); // the log was found: the comparison below is not undefined with undefined
    for (let i = 0; i < 5; i++) {
      const again = await c.GET('/customers');
      expect(again.response.status).toBe(429);
      expect(header(again, 'x-ratelimit-remaining')).toBe('0');
      expect(numberHeader(again, 'retry-after')).toBeGreaterThan(0);
    }
    expect(await logVersion(k.id)).toBe(before);
    // another credential of the same company has its own budget
    expect((await api(t.svc.url, (await t.company.key()).key).GET('/customers')).response.status).toBe(200);
  });

  it('slides: a request frees up when the oldest counted one is 60 s old, and the headers say when', async () => {
    // Time is simulated by moving the logged requests back. A server that answered 429 remembers the
    // key as spent until the Retry-After it gave (in real time), so each step after one asks another server.
    const [second, third] = await Promise.all([startTestService(), startTestService()]);
    try {
      const k = await t.company.key();
      const [c, onSecond, onThird] = [t.svc, second, third].map((s) => api(s.url, k.key)) as [Api, Api, Api];
      await c.GET('/customers');
      await age(k.id, 30); // one request 30 s ago ...
      for (let i = 0; i < 99; i++) await c.GET('/customers'); // ... and 99 now
      const full = await c.GET('/customers');
      expect(full.response.status).toBe(429);
      // the one of 30 s ago leaves the window in 30 s: the wait is that, not a whole window
      expect(numberHeader(full, 'retry-after')).toBeGreaterThanOrEqual(25);
      expect(numberHeader(full, 'retry-after')).toBeLessThanOrEqual(30);
      await age(k.id, 31); // now it is 61 s old; the 99 are 31 s old
      const freed = await onSecond.GET('/customers');
      expect(freed.response.status).toBe(200);
      expect(header(freed, 'x-ratelimit-remaining')).toBe('0');
      // the next one to leave is one of the 99, under 29 s from now
      expect(numberHeader(freed, 'x-ratelimit-reset')).toBeGreaterThanOrEqual(20);
      expect(numberHeader(freed, 'x-ratelimit-reset')).toBeLessThanOrEqual(29);
      const refused = await onSecond.GET('/customers');
      expect(refused.response.status).toBe(429);
      // the same moment (a second boundary may pass between the two answers)
      expect(Math.abs(numberHeader(refused, 'retry-after') - numberHeader(freed, 'x-ratelimit-reset'))).toBeLessThanOrEqual(1);
      // the refusals were not counted: once the 99 are old enough, 99 requests fit again
      await age(k.id, 30);
      const after = await onThird.GET('/customers');
      expect(after.response.status).toBe(200);
      expect(header(after, 'x-ratelimit-remaining')).toBe('98');
    } finally {
      await Promise.all([second.stop(), third.stop()]);
    }
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
      const remaining = served.map((r) => numberHeader(r, 'x-ratelimit-remaining')).sort((x, y) => x - y);
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
      expect(found.map((r) => numberHeader(r, 'x-ratelimit-remaining')).sort((x, y) => x - y)).toEqual(Array.from({ length: 100 }, (_, i) => i));
    } finally {
      a.proc.kill('SIGTERM');
      b.proc.kill('SIGTERM');
    }
  });

  it('holds over any 60 s at a window edge: 99 requests while the first one is in the window and 100 once it has left, over two servers', async () => {
    // The attack a fixed window let through: its window starts with the first request; 99 more just
    // before it ends and 100 just after it were all accepted, 199 within about 2 s.
    const [a, b] = await Promise.all([startServerProcess(), startServerProcess()]);
    try {
      const k = await t.company.key();
      const servers = [api(a.url, k.key), api(b.url, k.key)];
      const burst = async (n: number) => {
        const replies = await Promise.all(Array.from({ length: n }, (_, i) => servers[i % 2]!.GET('/customers')));
        return { ok: replies.filter((r) => r.response.status === 200).length, limited: replies.filter((r) => r.response.status === 429) };
      };
      // Time is simulated, as in the test above: the logged requests are moved back, never slept on.
      // The steps leave room for the bursts' own time on a busy machine (each has 9 s to spare).
      expect((await servers[0]!.GET('/customers')).response.status).toBe(200);
      await age(k.id, 50); // the first request is 50 s old

      const before = await burst(99);
      expect(before.ok).toBe(99); // 100 within the window: the limit, not past it

      await age(k.id, 11); // 11 s later: the first request has left the window (61 s old); the 99 have not
      const after = await burst(100);
      // a fixed window would have started afresh here and accepted all 100
      expect(after.ok).toBe(1);
      expect(after.limited).toHaveLength(99);
      // the wait is until the 99 of the first burst leave, about 49 s from now, never a fresh 60
      for (const r of after.limited) {
        const wait = numberHeader(r, 'retry-after');
        expect(wait).toBeGreaterThanOrEqual(40);
        expect(wait).toBeLessThanOrEqual(49);
        expect(numberHeader(r, 'x-ratelimit-reset')).toBe(wait);
        expect(header(r, 'x-ratelimit-remaining')).toBe('0');
      }
    } finally {
      a.proc.kill('SIGTERM');
      b.proc.kill('SIGTERM');
    }
  }, 90_000);

  it("counts an OAuth grant's requests together, whichever of its tokens they carry: refreshing buys no fresh budget", async () => {
    const { app, tokens } = await connectedApp(t.svc.url, t.company, ['customers:read']);
    const refresh = async (refreshToken: string) =>
      ok(
        oauthApi(t.svc.url).POST('/oauth/token', {
          body: { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: app.clientId, client_secret: app.clientSecret },
        }),
      );
    const second = await refresh(tokens.refresh_token);
    const third = await refresh(second.refresh_token);
    const clients: Api[] = [tokens, second, third].map((pair) => api(t.svc.url, pair.access_token));
    // 300 calls at once over the grant's three tokens (the attack measured 300 in 0.7 s)
    const replies = await Promise.all(Array.from({ length: 300 }, (_, i) => clients[i % 3]!.GET('/customers')));
    expect(replies.filter((r) => r.response.status === 200)).toHaveLength(100);
    expect(replies.filter((r) => r.response.status === 429)).toHaveLength(200);
    const remaining = replies.filter((r) => r.response.status === 200).map((r) => numberHeader(r, 'x-ratelimit-remaining'));
    expect(remaining.sort((x, y) => x - y)).toEqual(Array.from({ length: 100 }, (_, i) => i));
    // a fourth token, refreshed now, starts where the grant is: spent
    const fourth = await refresh(third.refresh_token);
    const late = await api(t.svc.url, fourth.access_token).GET('/customers');
    expect(late.response.status).toBe(429);
    expect(numberHeader(late, 'retry-after')).toBeGreaterThan(0);
    // another grant of the same app and company is another budget
    const other = await connectedApp(t.svc.url, t.company, ['customers:read']);
    expect((await api(t.svc.url, other.tokens.access_token).GET('/customers')).response.status).toBe(200);
  });

  it("commits the counting statement asynchronously, and only that statement's transaction", async () => {
    // Decision 19: nothing the counting statement writes needs a WAL flush before the answer (the log
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
