// Contract, Test mode 4: "POST /sandbox/reset: restores the sandbox to a freshly provisioned state. API
// keys and webhook subscriptions survive and request audit records are retained; all bookkeeping data,
// master data and stored idempotency keys are deleted; chart of accounts, fiscal year and VAT periods
// are seeded again. Only test keys may call it, with any scope; live keys and OAuth tokens get 403."
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, newCompany, startTestService, testDb } from './helpers.ts';
import type { Service } from '../src/service.ts';

let svc: Service;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc.stop());

const today = new Date().toISOString().slice(0, 10);

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
    expect(await res.json()).toEqual({ data: { company_id: testKey.company_id, reset: true } });

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
