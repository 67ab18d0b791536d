// Contract, Test mode 4: "POST /sandbox/reset: restores the sandbox to a freshly provisioned state. API
// keys and webhook subscriptions survive and request audit records are retained; all bookkeeping data,
// master data and stored idempotency keys are deleted; chart of accounts, fiscal year and VAT periods
// are seeded again. Only test keys may call it, with any scope; live keys and OAuth tokens get 403."
import { describe, expect, it } from 'vitest';
import { ensureSandbox, getLiveCompany, today as businessDay, updateCompanyProfile } from '@tlr/domain';
import { api, bodyOf, idem, newCompany, newKey, ok, startServerProcess, startTestService, testDb, useCompany, waitFor, type Api } from './helpers.ts';

const t = useCompany();
const today = businessDay();
const posting = {
  date: today,
  lines: [
    { account_number: '6470', debit: 5 },
    { account_number: '1010', credit: 5 },
  ],
};
/** The total of a list call's answer. */
const total = async (list: Parameters<typeof ok<{ meta: { total: number } }>>[0]) => (await ok(list)).meta.total;
const customers = (sb: Api) => total(sb.GET('/customers'));

describe('POST /sandbox/reset', () => {
  it("wipes the sandbox's books and master data, re-seeds them, and keeps keys, audit and the live company", async () => {
    const liveCustomer = (await ok(t.api.POST('/customers', { params: idem(), body: { name: 'Rigtig kunde' } }))).data;
    const { api: sb, companyId: sandboxId } = await t.newKey(undefined, 'test');
    const narrow = await t.newKey(['customers:read'], 'test');
    await ok(sb.POST('/customers', { params: idem('sb-1'), body: { name: 'Prøvekunde' } }));
    await ok(sb.POST('/products', { params: idem(), body: { name: 'Prøvevare', unit_price: 10 } }));
    await ok(sb.POST('/suppliers', { params: idem(), body: { name: 'Prøveleverandør' } }));
    await ok(sb.POST('/bank-accounts', { params: idem(), body: { name: 'Prøvebank' } }));
    await ok(sb.POST('/accounts', { params: idem(), body: { account_number: '1999', name: 'Egen konto', type: 'revenue' } }));
    expect((await sb.POST('/transactions', { params: idem(), body: posting })).response.status).toBe(201);

    // any scope will do, with a test key; no body, no Idempotency-Key
    const res = await narrow.api.POST('/sandbox/reset');
    expect(res.response.status).toBe(200);
    expect(res.response.headers.get('x-ratelimit-limit')).toBe('100');
    expect(res.data).toEqual({
      data: {
        company_id: sandboxId,
        reset: true,
        reset_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        joined: false,
        requested_at: expect.any(String),
        finished_at: expect.any(String),
      },
    });

    expect(await customers(sb)).toBe(0);
    expect(await total(sb.GET('/products'))).toBe(0);
    expect(await total(sb.GET('/suppliers'))).toBe(0);
    expect(await total(sb.GET('/bank-accounts'))).toBe(0);
    expect(await total(sb.GET('/transactions'))).toBe(0);
    expect(await total(sb.GET('/accounts'))).toBe(305);
    expect(await total(sb.GET('/accounts', { params: { query: { search: '1999' } } }))).toBe(0);
    const settings = (await ok(sb.GET('/settings/accounting'))).data;
    expect(settings.fiscal_years).toHaveLength(1);
    expect(settings.fiscal_years[0]?.vat_periods.length).toBeGreaterThan(0);
    // stored idempotency keys are gone: the same key creates anew
    const again = await sb.POST('/customers', { params: idem('sb-1'), body: { name: 'Prøvekunde' } });
    expect(again.response.status).toBe(201);
    expect(again.response.headers.get('x-idempotency-replayed')).toBeNull();
    // numbering starts over
    const first = await sb.POST('/transactions', { params: idem(), body: posting });
    expect(first.data?.data).toMatchObject({ document_number: 1, system_id: 1 });
    // keys survive; the live company is untouched; the audit log is retained
    expect((await narrow.api.GET('/customers')).response.status).toBe(200);
    expect((await t.api.GET('/customers/{id}', { params: { path: { id: liveCustomer.id } } })).response.status).toBe(200);
    await new Promise((r) => setTimeout(r, 300));
    const audited = await testDb().prisma.requestAudit.count({ where: { company_id: sandboxId } });
    expect(audited).toBeGreaterThan(5);
  });

  it('is refused with 403 forbidden for a live key', async () => {
    const r = await t.api.POST('/sandbox/reset');
    expect(r.response.status).toBe(403);
    expect(r.error).toMatchObject({ code: 'forbidden' });
    expect(r.response.headers.get('x-ratelimit-limit')).toBe('100');
  });
});

describe('the reset as a pg-boss job (sandbox-reset)', () => {
  it('a server without a worker enqueues it (a worker process is up); the call answers when the reset is done', { timeout: 150_000 }, async () => {
    // This server never runs the job itself within the test's time: only the worker can.
    // Generous bounds: in the full suite the worker process starts and polls on a busy machine.
    const server = await startTestService({ SANDBOX_RESET_PICKUP_MS: '60000', REQUEST_TIMEOUT_MS: '110000' });
    const worker = await startServerProcess({ RUN_WORKER: 'true' });
    try {
      const { api: sb } = await newKey(server.url, await newCompany(), undefined, 'test');
      await ok(sb.POST('/customers', { params: idem(), body: { name: 'Væk efter nulstilling' } }));
      const reset = bodyOf(200, await sb.POST('/sandbox/reset')).data;
      expect(await customers(sb)).toBe(0);
      // Which worker ran it is not asserted: every test file shares one database and queue, and a
      // worker of another file (the fault test kills one mid-job) may take the job; the request then
      // runs it itself after SANDBOX_RESET_PICKUP_MS. sandbox-reset-faults.test.ts proves the worker path.
      const row = await testDb().prisma.sandboxReset.findUniqueOrThrow({ where: { id: reset.reset_id } });
      expect(row).toMatchObject({ status: 'done', attempts: 1 });
      expect(row.requested_by).toMatch(/^api_key /);
    } finally {
      worker.proc.kill('SIGTERM');
      await server.stop();
    }
  });

  it('requests at the same moment on two servers join one reset: it runs once', async () => {
    const other = await startServerProcess();
    try {
      const { key, api: sb, companyId: sandboxId } = await newKey(t.svc.url, await newCompany(), undefined, 'test');
      await ok(sb.POST('/customers', { params: idem(), body: { name: 'Én gang' } }));
      const answers = await Promise.all([t.svc.url, other.url, t.svc.url, other.url].map((u) => api(u, key).POST('/sandbox/reset')));
      expect(answers.map((a) => a.response.status)).toEqual([200, 200, 200, 200]);
      const resets = await testDb().prisma.sandboxReset.findMany({ where: { company_id: sandboxId } });
      // Each answer names a reset that ran; a request joined one that was open, or came after it finished.
      for (const a of answers) {
        expect(a.data?.data.company_id).toBe(sandboxId);
        expect(resets.map((r) => r.id)).toContain(a.data?.data.reset_id);
      }
      expect(answers.filter((a) => a.data?.data.joined).length).toBe(answers.length - resets.length);
      expect(resets.length).toBeLessThan(answers.length);
      expect(resets.every((r) => r.status === 'done' && r.attempts === 1)).toBe(true);
    } finally {
      other.proc.kill('SIGTERM');
    }
  });

  it('when no worker takes the job in time, the request runs it itself; the late job then finds it done', { timeout: 150_000 }, async () => {
    const server = await startTestService({ SANDBOX_RESET_PICKUP_MS: '300' });
    try {
      const { api: sb } = await newKey(server.url, await newCompany(), undefined, 'test');
      await ok(sb.POST('/customers', { params: idem(), body: { name: 'Ingen arbejder' } }));
      const started = Date.now();
      const reset = bodyOf(200, await sb.POST('/sandbox/reset')).data;
      expect(Date.now() - started).toBeGreaterThanOrEqual(300);
      expect(await customers(sb)).toBe(0);
      // A worker that starts later runs the queued job: a no-op, the reset stays done once.
      const worker = await startServerProcess({ RUN_WORKER: 'true' });
      try {
        await waitFor(async () => {
          const { rows } = await testDb().pool.query(`SELECT state FROM pgboss.job WHERE name = 'sandbox-reset' AND data->>'resetId' = $1`, [reset.reset_id]);
          return rows.some((r) => r.state === 'completed');
        }, 90_000);
      } finally {
        worker.proc.kill('SIGTERM');
      }
      const row = await testDb().prisma.sandboxReset.findUniqueOrThrow({ where: { id: reset.reset_id } });
      expect(row).toMatchObject({ status: 'done', attempts: 1 });
    } finally {
      await server.stop();
    }
  });
});

describe('the sandbox mirrors its live company', () => {
  it('a seller changed while the first test key is being made reaches the new sandbox (decision 156)', async () => {
    // The first test key's transaction has read the live company when the owner's change commits; the
    // sandbox it then creates carries the change, and the test key reads it from GET /settings/company.
    const owner = await newCompany('Spejl ApS', '12345682');
    const sandboxId = await testDb().prisma.$transaction(async (tx) => {
      const live = await getLiveCompany(tx, owner.companyId);
      await testDb().prisma.$transaction((other) => updateCompanyProfile(other, owner.companyId, { cvr: '12345674', city: 'Vejle' }));
      return (await ensureSandbox(tx, live)).id;
    });
    const { api: sb, companyId } = await newKey(t.svc.url, owner, undefined, 'test');
    expect(companyId).toBe(sandboxId);
    expect((await ok(sb.GET('/settings/company'))).data).toMatchObject({ livemode: false, cvr: '12345674', city: 'Vejle' });
  });

  it('two changes of the seller at once on two servers leave the live company and its sandbox alike', async () => {
    const other = await startServerProcess();
    try {
      const owner = await newCompany('Samtidig Sælger ApS');
      const { api: sb } = await newKey(t.svc.url, owner, undefined, 'test');
      const key = (await owner.key()).key;
      const cvrs = ['12345674', '12345682', '12345690', '12345704'];
      const answers = await Promise.all(cvrs.map((cvr, i) => api(i % 2 ? other.url : t.svc.url, key).PUT('/settings/company', { body: { cvr } })));
      expect(answers.map((a) => a.response.status)).toEqual([200, 200, 200, 200]);
      const live = (await ok(api(t.svc.url, key).GET('/settings/company'))).data;
      expect(cvrs).toContain(live.cvr);
      expect((await ok(sb.GET('/settings/company'))).data.cvr).toBe(live.cvr);
    } finally {
      other.proc.kill('SIGTERM');
    }
  });
});
