// A database that stops, restarts or freezes under load: the server process survives, every answer is
// 2xx, 4xx or 503 with Retry-After (never 500), nothing acknowledged is lost, and the service recovers
// by itself. A server process killed (SIGKILL) in the middle of writes: nothing it acknowledged is lost,
// and a write it cut off is created exactly once when retried with its key. The test runs its own
// PostgreSQL (the run's shared one must not be stopped) and real server processes on it.
import { chmodSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCaller } from '@tlr/api';
import { applyMigrations, createDatabase, ensureDatabase, freePort, type Database } from '@tlr/db';
import { startEmbeddedPostgres } from '@tlr/db/embedded';
import { SCOPES, addDays, today } from '@tlr/domain';
import { api, created, forgetRateLimits, idem, startServerProcess, twoLinePosting, waitFor, type Api } from './helpers.ts';

let dir: string;
let port: number;
let stopPg: () => Promise<void>;
let url: string;
let db: Database;
let server: Awaited<ReturnType<typeof startServerProcess>>;
let key: string;

const startPg = async () => {
  const pg = await startEmbeddedPostgres(join(dir, 'pg'), port);
  stopPg = pg.stop;
  return pg.url;
};

/** The postmaster and its backends, from postmaster.pid and /proc. */
function postgresPids(): number[] {
  const postmaster = Number(readFileSync(join(dir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
  const children = readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        return Number(readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]) === postmaster;
      } catch {
        return false;
      }
    })
    .map(Number);
  return [postmaster, ...children];
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tlr-faults-'));
  chmodSync(dir, 0o755); // PostgreSQL runs as its own user when we are root
  port = await freePort();
  const serverUrl = await startPg();
  url = await ensureDatabase(serverUrl, 'tlr');
  await applyMigrations(url);
  db = createDatabase(url, 2);
  const operator = createCaller(db, { type: 'operator' });
  const { company_id } = await operator.internal.createCompany({ name: 'Fejl ApS', ownerEmail: 'fejl@example.dk', ownerPassword: 'long enough' });
  key = (await operator.internal.createApiKey({ companyId: company_id, name: 'k', scopes: ['customers:read', 'customers:write'], mode: 'live' })).key;
  server = await startServerProcess({
    DATABASE_URL: url,
    RUN_WORKER: 'true',
    DB_POOL_SIZE: '8',
    DB_STATEMENT_TIMEOUT_MS: '2000',
    DB_CONNECT_TIMEOUT_MS: '1000',
    REQUEST_TIMEOUT_MS: '4000',
  });
}, 120_000);

afterAll(async () => {
  server?.proc.kill('SIGKILL');
  try {
    for (const pid of postgresPids()) process.kill(pid, 'SIGCONT');
  } catch {
    // not running
  }
  await db?.close();
  await stopPg?.().catch(() => {});
  rmSync(dir, { recursive: true, force: true });
});

const alive = () => server.proc.exitCode === null && server.proc.signalCode === null;

describe('PostgreSQL stops and restarts under 16 concurrent writers', () => {
  it('the process survives, answers 201 or 503 with Retry-After, and loses nothing it acknowledged', async () => {
    // Many credentials' worth of requests: the key's limit is 100 a minute, so its log is emptied now and then.
    await forgetRateLimits(db.pool);
    const c = api(server.url, key);
    const acknowledged = new Map<string, string>();
    const refused: string[] = [];
    let running = true;
    let n = 0;
    const writer = async () => {
      while (running) {
        const idemKey = `w-${++n}`;
        // A cut connection rejects the fetch: the client knows nothing was acknowledged. (A 2xx that is
        // not JSON is no such thing: it fails the test.)
        const r = await c
          .POST('/customers', { params: idem(idemKey), body: { name: `Kunde ${idemKey}` } })
          .catch((e: unknown) => (e instanceof SyntaxError ? Promise.reject(e) : null));
        if (!r) continue;
        if (r.response.status === 201 && r.data) acknowledged.set(idemKey, r.data.data.id);
        else {
          expect(r.response.status, JSON.stringify(r.error)).toBe(503);
          expect(r.response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
          expect(Number(r.response.headers.get('retry-after'))).toBeGreaterThan(0);
          refused.push(idemKey);
        }
        if (n % 50 === 0) await forgetRateLimits(db.pool).catch(() => {});
      }
    };
    const writers = Array.from({ length: 16 }, writer);
    for (let cycle = 0; cycle < 3; cycle++) {
      await new Promise((r) => setTimeout(r, 700));
      await stopPg(); // a fast shutdown: every connection is terminated (57P01)
      await new Promise((r) => setTimeout(r, 800));
      expect(alive(), `server alive after stop ${cycle + 1}`).toBe(true);
      await startPg();
      await forgetRateLimits(db.pool).catch(() => {});
    }
    await new Promise((r) => setTimeout(r, 1500));
    running = false;
    await Promise.all(writers);
    expect(alive()).toBe(true);
    expect(refused.length).toBeGreaterThan(0);
    // recovered by itself
    const after = await c.POST('/customers', { params: idem('after'), body: { name: 'Efter' } });
    expect(after.response.status).toBe(201);
    // every acknowledged create is there, with the id it was acknowledged with
    const { rows } = await db.pool.query<{ id: string }>('SELECT id::text FROM customers WHERE id = ANY($1::uuid[])', [[...acknowledged.values()]]);
    expect(rows.length).toBe(acknowledged.size);
    // a refused one is safe to retry with its key: created once
    for (const idemKey of refused.slice(0, 5)) {
      const retry = await c.POST('/customers', { params: idem(idemKey), body: { name: `Kunde ${idemKey}` } });
      expect(retry.response.status).toBe(201);
      const again = await c.POST('/customers', { params: idem(idemKey), body: { name: `Kunde ${idemKey}` } });
      expect(again.data?.data.id).toBe(retry.data?.data.id);
    }
  }, 120_000);
});

describe('PostgreSQL freezes (SIGSTOP)', () => {
  it('requests and /readyz answer 503 within their bounds instead of hanging, and the service recovers when it thaws', async () => {
    const c = api(server.url, key);
    const onePage = { params: { query: { per_page: 1 } } };
    expect((await c.GET('/customers', onePage)).response.status).toBe(200);
    const pids = postgresPids();
    for (const pid of pids) process.kill(pid, 'SIGSTOP');
    try {
      let t = Date.now();
      const ready = await fetch(`${server.url}/readyz`);
      expect(ready.status).toBe(503);
      expect(Date.now() - t).toBeLessThan(2500);
      t = Date.now();
      const r = await c.GET('/customers', onePage);
      const took = Date.now() - t;
      expect(r.response.status).toBe(503);
      expect(r.error?.code).toBe('service_unavailable');
      expect(Number(r.response.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(took).toBeLessThan(6000);
      expect(alive()).toBe(true);
    } finally {
      for (const pid of pids) process.kill(pid, 'SIGCONT');
    }
    // thawed: back by itself within a few seconds
    let status = 0;
    for (let i = 0; i < 40 && status !== 200; i++) {
      status = (await c.GET('/customers', onePage)).response.status;
      if (status !== 200) await new Promise((r) => setTimeout(r, 250));
    }
    expect(status).toBe(200);
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
  }, 60_000);

  it('a statement that hears nothing for its bound fails as a read timeout and frees its connection; an idle connection is left alone', async () => {
    // "the client gives up one second later" (client.ts): statement_timeout 1 s, so 2 s of silence.
    const small = createDatabase(url, 1, { statementMs: 1_000 });
    try {
      const first = await small.pool.connect();
      const backend = (first as unknown as { processID: number }).processID;
      first.release();
      // Idle in the pool for longer than the bound: nothing was awaited, so the connection stays.
      await new Promise((r) => setTimeout(r, 2_500));
      const again = await small.pool.connect();
      expect((again as unknown as { processID: number }).processID).toBe(backend);
      again.release();

      const pids = postgresPids();
      for (const pid of pids) process.kill(pid, 'SIGSTOP');
      let failed: Error | undefined;
      const t = Date.now();
      try {
        await small.pool.query('SELECT 1');
      } catch (e) {
        failed = e as Error;
      } finally {
        for (const pid of pids) process.kill(pid, 'SIGCONT');
      }
      const took = Date.now() - t;
      expect(failed?.message).toMatch(/Query read timeout/);
      expect(took).toBeGreaterThanOrEqual(1_900);
      expect(took).toBeLessThan(4_000);
      // The silent connection was destroyed, not handed back: the next statement gets a new backend.
      const fresh = await small.pool.connect();
      expect((fresh as unknown as { processID: number }).processID).not.toBe(backend);
      expect((await fresh.query<{ one: number }>('SELECT 1 AS one')).rows[0]?.one).toBe(1);
      fresh.release();
    } finally {
      await small.close();
    }
  }, 60_000);
});

describe('the server never answers without its headers', () => {
  it('a 20 KB URL gets 431 as problem+json with the usual headers', async () => {
    const r = await fetch(`${server.url}/api/v1/customers?search=${'x'.repeat(20_000)}`);
    expect(r.status).toBe(431);
    expect(r.headers.get('content-type')).toBe('application/problem+json');
    expect(r.headers.get('x-request-id')).toBeTruthy();
    expect(r.headers.get('x-api-version')).toBe('2026-04-10');
    expect(r.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await r.json()).toMatchObject({ status: 431, code: 'headers_too_large' });
  });

  it('a NUL byte in a header value gets a 400 problem, not a bare status line', async () => {
    const { connect } = await import('node:net');
    const { port: p } = new URL(server.url);
    const text = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(p), '127.0.0.1', () => socket.write(`GET /api/v1/customers HTTP/1.1\r\nHost: x\r\nX-API-Key: tlr_live_\u0000x\r\n\r\n`));
      let out = '';
      socket.on('data', (d) => (out += d.toString()));
      socket.on('end', () => resolve(out));
      socket.on('error', reject);
    });
    expect(text).toMatch(/^HTTP\/1.1 400 /);
    expect(text).toMatch(/content-type: application\/problem\+json/i);
    expect(text).toMatch(/"code":"invalid_request"/);
  });
});

describe('a server killed (SIGKILL) under 8 concurrent writers, three times', () => {
  it('loses nothing it acknowledged; a write cut off is created once when retried with its key; the numbering stays gapless and the books balance', async () => {
    const operator = createCaller(db, { type: 'operator' });
    const { company_id } = await operator.internal.createCompany({ name: 'Dræbt ApS', ownerEmail: 'draebt@example.dk', ownerPassword: 'long enough' });
    // A key per writer and round: each has its own rate-limit window.
    const newKey = async () => (await operator.internal.createApiKey({ companyId: company_id, name: 'k', scopes: [...SCOPES], mode: 'live' })).key;
    const survivor = await startServerProcess({ DATABASE_URL: url });
    try {
      const customer = (await created(api(survivor.url, await newKey()).POST('/customers', { params: idem(), body: { name: 'Kunde ApS' } }))).data.id;
      /** Auto-approved invoices and manual postings: both draw from the one document number sequence. */
      type Write = { key: string; kind: 'invoice' | 'transaction' };
      let n = 0;
      const next = (): Write => ({ key: `kill-${++n}`, kind: n % 2 ? 'invoice' : 'transaction' });
      const send = async (c: Api, w: Write) => {
        const r =
          w.kind === 'invoice'
            ? await c.POST('/invoices', {
                params: idem(w.key),
                body: {
                  customer_id: customer,
                  issue_date: today(),
                  due_date: addDays(today(), 14),
                  auto_approve: true,
                  lines: [{ description: w.key, quantity: 1, unit_price: 100 }],
                },
              })
            : await c.POST('/transactions', { params: idem(w.key), body: twoLinePosting(today(), '6470', '1010', 100, w.key) });
        return { status: r.response.status, id: r.data?.data.id, replayed: r.response.headers.get('x-idempotency-replayed') === 'true' };
      };

      const acknowledged = new Map<string, string>();
      const cut: Write[] = [];
      for (let round = 0; round < 3; round++) {
        const victim = await startServerProcess({ DATABASE_URL: url });
        const writers = await Promise.all(Array.from({ length: 8 }, async () => api(victim.url, await newKey())));
        let running = true;
        const loops = writers.map(async (c) => {
          while (running) {
            const w = next();
            // A cut connection rejects the fetch: the client knows only that nothing was acknowledged.
            const r = await send(c, w).catch(() => null);
            if (!r) return cut.push(w);
            expect(r.status, w.key).toBe(201);
            acknowledged.set(w.key, r.id!);
          }
        });
        // Killed once the writers are in full flow: 16 more writes acknowledged, then a little later each round.
        const ackedBefore = acknowledged.size;
        await waitFor(() => acknowledged.size >= ackedBefore + 16, 30_000);
        await new Promise((r) => setTimeout(r, 50 * round));
        victim.proc.kill('SIGKILL');
        running = false;
        await Promise.all(loops);
      }
      expect(cut.length).toBeGreaterThan(0);

      // Every acknowledged write is there, with the id it was acknowledged with.
      const ids = [...acknowledged.values()];
      const { rows: found } = await db.pool.query<{ id: string }>(
        'SELECT id::text FROM invoices WHERE id = ANY($1::uuid[]) UNION ALL SELECT id::text FROM ledger_transactions WHERE id = ANY($1::uuid[])',
        [ids],
      );
      expect(found.length).toBe(ids.length);
      // Each write cut off, retried with its key on a server that lives: created (or found committed) once.
      const retry = api(survivor.url, await newKey());
      for (const w of cut) {
        const first = await send(retry, w);
        const again = await send(retry, w);
        expect([first.status, again.status, again.replayed, again.id], w.key).toEqual([201, 201, true, first.id]);
      }

      // One posting per write, numbered 1..N in posting order; debits equal credits.
      const { rows: postings } = await db.pool.query<{ document_number: number; system_id: number }>(
        'SELECT document_number::int, system_id::int FROM ledger_transactions WHERE company_id = $1 ORDER BY system_id',
        [company_id],
      );
      const writes = acknowledged.size + cut.length;
      expect(postings.map((p) => p.system_id)).toEqual(Array.from({ length: writes }, (_, i) => i + 1));
      expect(postings.map((p) => p.document_number)).toEqual(Array.from({ length: writes }, (_, i) => i + 1));
      const { rows: sums } = await db.pool.query<{ debit: string; credit: string }>(
        'SELECT sum(debit)::text AS debit, sum(credit)::text AS credit FROM transaction_lines WHERE company_id = $1',
        [company_id],
      );
      expect(sums[0]?.debit).toBe(sums[0]?.credit);
    } finally {
      await new Promise((exited) => (survivor.proc.once('exit', exited), survivor.proc.kill('SIGTERM')));
    }
  }, 120_000);
});
