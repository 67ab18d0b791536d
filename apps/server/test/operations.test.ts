// Operations: the request audit log, graceful shutdown, background job schedules, start-up errors.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { QUEUES, startBoss } from '@tlr/jobs';
import { RequestLog, type RequestLogRecord } from '@tlr/api';
import { api, auditRecords, databaseUrl, newCompany, requestIdOf, startTestService, testDb, useCompany, waitFor } from './helpers.ts';
import { RUN_TS } from '../../../test/run-ts.ts';

const t = useCompany();

describe('request audit log', () => {
  it('records every request with its id, credential, company, method, path, status and duration', async () => {
    const k = await t.company.key();
    const ok = await api(t.svc.url, k.key).GET('/customers', { params: { query: { search: 'secret@example.dk' } } });
    const denied = await api(t.svc.url).GET('/customers');
    const [row] = await auditRecords(requestIdOf(ok.response));
    expect(row).toMatchObject({
      method: 'GET',
      path: '/api/v1/customers',
      status: 200,
      actor_type: 'api_key',
      actor_id: k.id,
      company_id: t.company.companyId,
      problem_code: null,
    });
    expect(row?.duration_ms).toBeGreaterThan(0);
    // the query string may hold personal data and is not kept
    expect(ok.response.url).toContain('search=secret%40example.dk');
    expect(JSON.stringify(row)).not.toContain('secret');
    const [anon] = await auditRecords(requestIdOf(denied.response));
    expect(anon).toMatchObject({ status: 401, actor_id: null, company_id: null, problem_code: 'unauthorized' });
  });

  it('writes a buffered batch exactly as recorded: text JSON must escape, non-ASCII, a long path, more than one batch', async () => {
    const errors: unknown[] = [];
    const audit = new RequestLog(testDb().pool, { error: (o: unknown) => errors.push(o) });
    const run = randomUUID();
    const created = new Date('2026-11-25T10:11:12.345Z');
    const paths = ['/api/v1/customers/"quoted"\\back\\slash', '/api/v1/Søren-Ærø-Åse/€/😀', `/api/v1/${'x'.repeat(20_000)}`, '/tab\tnew\nline'];
    // 1,203 records: three batches (500 each), the buffer grown past its first 16 KB.
    const records = Array.from({ length: 1203 }, (_, i) => ({
      request_id: `${run}-${i}`,
      actor_type: i % 2 ? 'api_key' : null,
      actor_id: i % 2 ? `key-${i}` : null,
      company_id: i % 3 ? null : '00000000-0000-7000-8000-000000000001',
      method: 'POST',
      path: paths[i % paths.length]!,
      status: 200 + (i % 300),
      problem_code: i % 5 ? null : 'invalid_request',
      // one that JSON cannot carry as a number
      duration_ms: i === 7 ? Number.NaN : i / 7,
      ip: i % 4 ? '127.0.0.1' : null,
      created_at: new Date(created.getTime() + i),
    }));
    for (const r of records) audit.record(r);
    await audit.close();
    expect(errors).toEqual([]);
    const rows = await testDb().pool.query<RequestLogRecord>(
      `SELECT request_id, actor_type, actor_id, company_id, method, path, status, problem_code, duration_ms, ip, created_at
       FROM request_audit_log WHERE request_id LIKE $1 ORDER BY id`,
      [`${run}-%`],
    );
    expect(rows.rows).toHaveLength(records.length);
    rows.rows.forEach((row, i) => {
      const want = records[i]!;
      // real: single precision, as the column has always stored it
      expect(Math.fround(row.duration_ms)).toBe(Math.fround(want.duration_ms));
      expect(row).toEqual({ ...want, duration_ms: row.duration_ms });
    });
  });
});

describe('graceful shutdown', () => {
  it('finishes an in-flight request before stopping', async () => {
    const own = await startTestService();
    const k = await t.company.key();
    const c = api(own.url, k.key);
    await c.GET('/customers');
    // Hold the credential's rate-limit row so the next request waits inside the server.
    const lock = await testDb().pool.connect();
    await lock.query('BEGIN');
    await lock.query('SELECT * FROM rate_limit_logs WHERE key_id = $1 FOR UPDATE', [k.id]);
    const inFlight = c.GET('/customers');
    await new Promise((r) => setTimeout(r, 300));
    let stopped = false;
    const stopping = own.stop().then(() => {
      stopped = true;
    });
    await new Promise((r) => setTimeout(r, 300));
    expect(stopped).toBe(false);
    await lock.query('COMMIT');
    lock.release();
    const reply = await inFlight;
    expect(reply.response.status).toBe(200);
    await stopping;
    expect(stopped).toBe(true);
    await expect(fetch(`${own.url}/healthz`)).rejects.toThrow();
  });
});

describe('background jobs', () => {
  it('the scheduled purges run in the worker: idempotency keys older than 24 h, idle rate-limit logs and outbox events dispatched over 30 days ago go, fresh ones stay', async () => {
    const company = await newCompany();
    const db = testDb().pool;
    const ids = { oldWindow: randomUUID(), freshWindow: randomUUID() };
    await db.query(
      `INSERT INTO idempotency_keys (company_id, key, endpoint, created_at) VALUES ($1, 'old', 'POST /customers', now() - interval '25 hours'), ($1, 'fresh', 'POST /customers', now())`,
      [company.companyId],
    );
    await db.query(`INSERT INTO rate_limit_logs (key_id, accepted, allowed) VALUES ($1, ARRAY[now() - interval '2 hours'], true), ($2, ARRAY[now()], true)`, [
      ids.oldWindow,
      ids.freshWindow,
    ]);
    const events = { old: randomUUID(), fresh: randomUUID(), undelivered: randomUUID() };
    await db.query(
      `INSERT INTO outbox_events (id, company_id, type, livemode, api_version, data, created_at, dispatched_at) VALUES
        ($1, $4, 'customer.created', true, '2026-04-10', '{}', now() - interval '40 days', now() - interval '31 days'),
        ($2, $4, 'customer.created', true, '2026-04-10', '{}', now(), now()),
        ($3, $4, 'customer.created', true, '2026-04-10', '{}', now() - interval '40 days', NULL)`,
      [events.old, events.fresh, events.undelivered, company.companyId],
    );
    const worker = await startTestService({ RUN_WORKER: 'true' });
    const boss = await startBoss(databaseUrl(), () => {});
    try {
      const schedules = await db.query<{ name: string }>('SELECT name FROM pgboss.schedule');
      expect(schedules.rows.map((r) => r.name)).toEqual(expect.arrayContaining([QUEUES.purgeIdempotencyKeys.name, QUEUES.purgeRateLimitLogs.name]));
      // Run them now rather than at their next cron minute: the worker of the service handles them.
      await boss.send(QUEUES.purgeIdempotencyKeys.name, {});
      await boss.send(QUEUES.purgeRateLimitLogs.name, {});
      await boss.send(QUEUES.purgeOutbox.name, {});
      const keys = await waitFor(async () => {
        const { rows } = await db.query<{ key: string }>('SELECT key FROM idempotency_keys WHERE company_id = $1', [company.companyId]);
        return rows.length === 1 ? rows : undefined;
      }, 20_000);
      expect(keys.map((r) => r.key)).toEqual(['fresh']);
      const windows = await waitFor(async () => {
        const { rows } = await db.query<{ key_id: string }>('SELECT key_id FROM rate_limit_logs WHERE key_id = ANY($1::uuid[])', [
          [ids.oldWindow, ids.freshWindow],
        ]);
        return rows.length === 1 ? rows : undefined;
      }, 20_000);
      expect(windows.map((r) => r.key_id)).toEqual([ids.freshWindow]);
      // Dispatched more than 30 days ago: gone; fresh or never dispatched: kept (a worker may still need it).
      const outbox = await waitFor(async () => {
        const { rows } = await db.query<{ id: string }>('SELECT id FROM outbox_events WHERE id = ANY($1::uuid[]) ORDER BY created_at', [Object.values(events)]);
        return rows.length === 2 ? rows : undefined;
      }, 20_000);
      expect(outbox.map((r) => r.id).sort()).toEqual([events.fresh, events.undelivered].sort());
    } finally {
      await boss.stop({ graceful: false });
      await worker.stop();
    }
  });
});

describe('job queues', () => {
  it("every job's queue is named for it; a renamed job's old queue and schedule are gone after start", async () => {
    const names = Object.entries(QUEUES).map(([job, q]) => [job, q.name]);
    // camelCase job, kebab-case queue: purgeOutbox -> purge-outbox.
    for (const [job, name] of names) expect(name, job).toBe(job!.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`));
    // A database as an earlier version left it: the fold job's queue under its old name, scheduled.
    const earlier = await startBoss(databaseUrl(), () => {});
    await earlier.createQueue('fold-invoice-counts');
    await earlier.schedule('fold-invoice-counts', '* * * * *');
    await earlier.stop({ graceful: false });
    // Two servers starting at the same moment both retire it: neither fails.
    const [boss, twin] = await Promise.all([startBoss(databaseUrl(), () => {}), startBoss(databaseUrl(), () => {})]);
    await twin.stop({ graceful: false });
    try {
      const names = async (table: 'queue' | 'schedule') =>
        (await testDb().pool.query<{ name: string }>(`SELECT name FROM pgboss.${table}`)).rows.map((r) => r.name);
      const [queues, schedules] = await Promise.all([names('queue'), names('schedule')]);
      expect(queues).not.toContain('fold-invoice-counts');
      expect(schedules).not.toContain('fold-invoice-counts');
      expect(schedules.filter((n) => n.startsWith('fold-'))).toEqual([QUEUES.foldKeptCounts.name]);
    } finally {
      await boss.stop({ graceful: false });
    }
  });
});

describe('start-up', () => {
  it('refuses a bad configuration with one clear message per value and exit code 2', () => {
    const root = join(import.meta.dirname, '..', '..', '..');
    const r = spawnSync(process.execPath, [...RUN_TS, 'apps/server/src/main.ts'], {
      cwd: root,
      env: { ...process.env, PORT: '99999', LOG_LEVEL: 'chatty' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('PORT');
    expect(r.stderr).toContain('LOG_LEVEL');
  });
});

describe('database outage', () => {
  it('answers 503 service_unavailable with Retry-After, not 500, when PostgreSQL cannot be reached', async () => {
    // A service whose pool points at a port where nothing listens (migrations already applied elsewhere).
    const { createDatabase } = await import('@tlr/db');
    const { createApp } = await import('../src/app.ts');
    const pino = (await import('pino')).default;
    const db = createDatabase('postgresql://postgres:postgres@127.0.0.1:1/none', 2);
    const logger = pino({ level: 'silent' });
    const audit = new RequestLog(db.pool, logger);
    const app = createApp({ db, logger, requestLog: audit, isReady: () => true });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    try {
      const { port } = server.address() as { port: number };
      const r = await api(`http://127.0.0.1:${port}`, `tlr_live_${'a'.repeat(48)}`).GET('/customers');
      expect(r.response.status).toBe(503);
      expect(r.error).toMatchObject({ code: 'service_unavailable' });
      expect(Number(r.response.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(r.response.headers.get('x-request-id')).toBeTruthy();
      const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
      expect(ready.status).toBe(503);
    } finally {
      server.close();
      await audit.close();
      await db.close();
    }
  });
});
