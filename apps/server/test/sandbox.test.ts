// Contract, Test mode 4: "POST /sandbox/reset: restores the sandbox to a freshly provisioned state. API
// keys and webhook subscriptions survive and request audit records are retained; all bookkeeping data,
// master data and stored idempotency keys are deleted; chart of accounts, fiscal year and VAT periods
// are seeded again. Only test keys may call it, with any scope; live keys and OAuth tokens get 403."
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { today as businessDay } from '@tlr/domain';
import { client, newCompany, startServerProcess, startTestService, testDb, waitFor } from './helpers.ts';
import type { Service } from '../src/service.ts';

let svc: Service;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc.stop());

const today = businessDay();

describe('POST /sandbox/reset', () => {
  it("wipes the sandbox's books and master data, re-seeds them, and keeps keys, audit and the live company", async () => {
    const company = await newCompany();
    const live = client(svc.url, (await company.key()).key);
    const testKey = await company.key(undefined, 'test');
    const narrow = await company.key(['customers:read'], 'test');
    const sb = client(svc.url, testKey.key);
    const liveCustomer = (await live.post('/customers', { name: 'Rigtig kunde' })).body.data;
    await sb.post('/customers', { name: 'Prøvekunde' }, { 'Idempotency-Key': 'sb-1' });
    await sb.post('/products', { name: 'Prøvevare', unit_price: 10 });
    await sb.post('/suppliers', { name: 'Prøveleverandør' });
    await sb.post('/accounts', { account_number: '1999', name: 'Egen konto', type: 'revenue' });
    expect(
      (
        await sb.post('/transactions', {
          date: today,
          lines: [
            { account_number: '6470', debit: 5 },
            { account_number: '1010', credit: 5 },
          ],
        })
      ).status,
    ).toBe(201);

    // any scope will do, with a test key; no body, no Idempotency-Key
    const res = await fetch(`${svc.url}/api/v1/sandbox/reset`, { method: 'POST', headers: { 'X-API-Key': narrow.key } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ratelimit-limit')).toBe('100');
    expect(await res.json()).toEqual({
      data: {
        company_id: testKey.company_id,
        reset: true,
        reset_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        joined: false,
        requested_at: expect.any(String),
        finished_at: expect.any(String),
      },
    });

    expect((await sb.get('/customers')).body.meta.total).toBe(0);
    expect((await sb.get('/products')).body.meta.total).toBe(0);
    expect((await sb.get('/suppliers')).body.meta.total).toBe(0);
    expect((await sb.get('/transactions')).body.meta.total).toBe(0);
    expect((await sb.get('/accounts')).body.meta.total).toBe(305);
    expect((await sb.get('/accounts?search=1999')).body.meta.total).toBe(0);
    const settings = (await sb.get('/settings/accounting')).body.data;
    expect(settings.fiscal_years).toHaveLength(1);
    expect(settings.fiscal_years[0].vat_periods.length).toBeGreaterThan(0);
    // stored idempotency keys are gone: the same key creates anew
    const again = await sb.post('/customers', { name: 'Prøvekunde' }, { 'Idempotency-Key': 'sb-1' });
    expect(again.status).toBe(201);
    expect(again.headers.get('x-idempotency-replayed')).toBeNull();
    // numbering starts over
    const t = await sb.post('/transactions', {
      date: today,
      lines: [
        { account_number: '6470', debit: 5 },
        { account_number: '1010', credit: 5 },
      ],
    });
    expect(t.body.data).toMatchObject({ document_number: 1, system_id: 1 });
    // keys survive; the live company is untouched; the audit log is retained
    expect((await client(svc.url, narrow.key).get('/customers')).status).toBe(200);
    expect((await live.get(`/customers/${liveCustomer.id}`)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 300));
    const audited = await testDb().prisma.requestAudit.count({ where: { company_id: testKey.company_id } });
    expect(audited).toBeGreaterThan(5);
  });

  it('is refused with 403 forbidden for a live key', async () => {
    const company = await newCompany();
    const r = await client(svc.url, (await company.key()).key).call('POST', '/sandbox/reset');
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ code: 'forbidden' });
    expect(r.headers.get('x-ratelimit-limit')).toBe('100');
  });
});

describe('the reset as a pg-boss job (sandbox-reset)', () => {
  it('a server without a worker enqueues it (a worker process is up); the call answers when the reset is done', { timeout: 150_000 }, async () => {
    // This server never runs the job itself within the test's time: only the worker can.
    // Generous bounds: in the full suite the worker process starts and polls on a busy machine.
    const api = await startTestService({ SANDBOX_RESET_PICKUP_MS: '60000', REQUEST_TIMEOUT_MS: '110000' });
    const worker = await startServerProcess({ RUN_WORKER: 'true' });
    try {
      const company = await newCompany();
      const sb = client(api.url, (await company.key(undefined, 'test')).key);
      await sb.post('/customers', { name: 'Væk efter nulstilling' });
      const res = await sb.call('POST', '/sandbox/reset');
      expect(res.status).toBe(200);
      expect((await sb.get('/customers')).body.meta.total).toBe(0);
      // Which worker ran it is not asserted: every test file shares one database and queue, and a
      // worker of another file (the fault test kills one mid-job) may take the job; the request then
      // runs it itself after SANDBOX_RESET_PICKUP_MS. sandbox-reset-faults.test.ts proves the worker path.
      const row = await testDb().prisma.sandboxReset.findUniqueOrThrow({ where: { id: res.body.data.reset_id } });
      expect(row).toMatchObject({ status: 'done', attempts: 1 });
      expect(row.requested_by).toMatch(/^api_key /);
    } finally {
      worker.proc.kill('SIGTERM');
      await api.stop();
    }
  });

  it('requests at the same moment on two servers join one reset: it runs once', async () => {
    const other = await startServerProcess();
    try {
      const company = await newCompany();
      const key = (await company.key(undefined, 'test')).key;
      await client(svc.url, key).post('/customers', { name: 'Én gang' });
      const answers = await Promise.all([svc.url, other.url, svc.url, other.url].map((u) => client(u, key).call('POST', '/sandbox/reset')));
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
      const resets = await testDb().prisma.sandboxReset.findMany({ where: { company_id: answers[0]!.body.data.company_id } });
      // Each answer names a reset that ran; a request joined one that was open, or came after it finished.
      for (const a of answers) expect(resets.map((r) => r.id)).toContain(a.body.data.reset_id);
      expect(answers.filter((a) => a.body.data.joined).length).toBe(answers.length - resets.length);
      expect(resets.length).toBeLessThan(answers.length);
      expect(resets.every((r) => r.status === 'done' && r.attempts === 1)).toBe(true);
    } finally {
      other.proc.kill('SIGTERM');
    }
  });

  it('when no worker takes the job in time, the request runs it itself; the late job then finds it done', { timeout: 150_000 }, async () => {
    const api = await startTestService({ SANDBOX_RESET_PICKUP_MS: '300' });
    try {
      const company = await newCompany();
      const sb = client(api.url, (await company.key(undefined, 'test')).key);
      await sb.post('/customers', { name: 'Ingen arbejder' });
      const started = Date.now();
      const res = await sb.call('POST', '/sandbox/reset');
      expect(res.status).toBe(200);
      expect(Date.now() - started).toBeGreaterThanOrEqual(300);
      expect((await sb.get('/customers')).body.meta.total).toBe(0);
      // A worker that starts later runs the queued job: a no-op, the reset stays done once.
      const worker = await startServerProcess({ RUN_WORKER: 'true' });
      try {
        await waitFor(async () => {
          const { rows } = await testDb().pool.query(`SELECT state FROM pgboss.job WHERE name = 'sandbox-reset' AND data->>'resetId' = $1`, [
            res.body.data.reset_id,
          ]);
          return rows.some((r) => r.state === 'completed');
        }, 90_000);
      } finally {
        worker.proc.kill('SIGTERM');
      }
      const row = await testDb().prisma.sandboxReset.findUniqueOrThrow({ where: { id: res.body.data.reset_id } });
      expect(row).toMatchObject({ status: 'done', attempts: 1 });
    } finally {
      await api.stop();
    }
  });
});
