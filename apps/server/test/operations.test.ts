// Operations: the request audit log, graceful shutdown, background job schedules, start-up errors.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, newCompany, startTestService, testDb } from './helpers.ts';
import type { Service } from '../src/service.ts';

let svc: Service;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc.stop());

const waitFor = async <T>(probe: () => Promise<T | undefined | null>, ms = 5000): Promise<T> => {
  const until = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
};

describe('request audit log', () => {
  it('records every request with its id, credential, company, method, path, status and duration', async () => {
    const company = await newCompany();
    const k = await company.key();
    const ok = await client(svc.url, k.key).get('/customers?search=secret%40example.dk');
    const denied = await client(svc.url).get('/customers');
    const row = await waitFor(() => testDb().prisma.$queryRaw<any[]>`SELECT request_id, credential_type, credential_id::text, company_id::text, method, path, status, duration_ms FROM request_audit_log WHERE request_id = ${ok.headers.get('x-request-id')}`.then((r) => r[0]));
    expect(row).toMatchObject({ method: 'GET', path: '/api/v1/customers', status: 200, credential_type: 'api_key', credential_id: k.id, company_id: company.companyId });
    expect(row.duration_ms).toBeGreaterThan(0);
    // the query string may hold personal data and is not kept
    expect(JSON.stringify(row)).not.toContain('secret');
    const anon = await waitFor(() => testDb().prisma.$queryRaw<any[]>`SELECT status, credential_id, company_id FROM request_audit_log WHERE request_id = ${denied.headers.get('x-request-id')}`.then((r) => r[0]));
    expect(anon).toMatchObject({ status: 401, credential_id: null, company_id: null });
  });
});

describe('graceful shutdown', () => {
  it('finishes an in-flight request before stopping', async () => {
    const own = await startTestService();
    const company = await newCompany();
    const k = await company.key();
    const c = client(own.url, k.key);
    await c.get('/customers');
    // Hold the credential's rate-limit row so the next request waits inside the server.
    const lock = await testDb().pool.connect();
    await lock.query('BEGIN');
    await lock.query('SELECT * FROM rate_limit_windows WHERE credential_id = $1 FOR UPDATE', [k.id]);
    const inFlight = c.get('/customers');
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
    expect(reply.status).toBe(200);
    await stopping;
    expect(stopped).toBe(true);
    await expect(fetch(`${own.url}/healthz`)).rejects.toThrow();
  });
});

describe('background jobs', () => {
  it('schedules the idempotency-key purge and the rate-limit clean-up in pg-boss', async () => {
    const worker = await startTestService({ RUN_WORKER: 'true' });
    try {
      const rows = await testDb().pool.query('SELECT name, cron FROM pgboss.schedule ORDER BY name');
      expect(rows.rows.map((r) => r.name)).toEqual(expect.arrayContaining(['purge-idempotency-keys', 'purge-rate-limit-windows']));
    } finally {
      await worker.stop();
    }
  });
});

describe('start-up', () => {
  it('refuses a bad configuration with one clear message per value and exit code 2', () => {
    const root = join(import.meta.dirname, '..', '..', '..');
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'apps/server/src/main.ts'], {
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
    const { AuditLog } = await import('../src/audit.ts');
    const pino = (await import('pino')).default;
    const db = createDatabase('postgresql://postgres:postgres@127.0.0.1:1/none', 2);
    const logger = pino({ level: 'silent' });
    const audit = new AuditLog(db.pool, logger);
    const app = createApp({ db, logger, audit, isReady: () => true });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    try {
      const { port } = server.address() as { port: number };
      const r = await client(`http://127.0.0.1:${port}`, `tlr_live_${'a'.repeat(48)}`).get('/customers');
      expect(r.status).toBe(503);
      expect(r.body).toMatchObject({ code: 'service_unavailable' });
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(r.headers.get('x-request-id')).toBeTruthy();
      const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
      expect(ready.status).toBe(503);
    } finally {
      server.close();
      await audit.close();
      await db.close();
    }
  });
});
