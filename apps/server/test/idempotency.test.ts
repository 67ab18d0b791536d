// Contract, Conventions 2: "Create POSTs ... require the header Idempotency-Key (free-form string, at
// most 255 characters, scoped to the company, stored 24 hours)."
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, bodyOf, idem, ok, startTestService, testDb, useCompany } from './helpers.ts';
import type { Service } from '../src/service.ts';

const t = useCompany();
let second: Service;
beforeAll(async () => {
  second = await startTestService();
});
afterAll(() => second?.stop());

const countCustomers = (companyId: string, name: string) => testDb().prisma.customer.count({ where: { company_id: companyId, name } });
const createdEvents = (id: string) =>
  testDb().prisma.outboxEvent.count({ where: { company_id: t.company.companyId, type: 'customer.created', data: { path: ['id'], equals: id } } });

describe('Idempotency-Key', () => {
  it('"Missing header: 400 invalid_request."', async () => {
    // Through the untyped client: the typed one always sends the header its document requires.
    const r = await t.raw.post('/customers', { name: 'No key' }, {});
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'invalid_request', field: 'Idempotency-Key' });
    expect(await countCustomers(t.company.companyId, 'No key')).toBe(0);
  });

  it('"Same key on the same endpoint again: the original stored response (same status and body) is returned with header X-Idempotency-Replayed: true and nothing new is created."', async () => {
    const create = (client = t.api) => client.POST('/customers', { params: idem('replay-1'), body: { name: 'Replay ApS' } });
    const first = await create();
    const customer = bodyOf(201, first).data;
    expect(first.response.headers.get('x-idempotency-replayed')).toBeNull();
    // The replay read as text: the stored body byte for byte, not only an equal object.
    const again = await t.api.POST('/customers', { params: idem('replay-1'), body: { name: 'Replay ApS' }, parseAs: 'text' });
    expect(again.response.status).toBe(201);
    expect(again.response.headers.get('x-idempotency-replayed')).toBe('true');
    expect(again.data).toBe(JSON.stringify(first.data));
    // the replay comes from the other server too
    const elsewhere = await create(api(second.url, t.key));
    expect(elsewhere.data).toEqual(first.data);
    expect(await countCustomers(t.company.companyId, 'Replay ApS')).toBe(1);
    expect(await createdEvents(customer.id)).toBe(1);
  });

  it('"Same key on a different endpoint: 400 invalid_request."', async () => {
    expect((await t.api.POST('/customers', { params: idem('cross-1'), body: { name: 'Cross' } })).response.status).toBe(201);
    const r = await t.api.POST('/products', { params: idem('cross-1'), body: { name: 'Cross', unit_price: 10 } });
    expect(r.response.status).toBe(400);
    expect(r.error).toMatchObject({ code: 'invalid_request', field: 'Idempotency-Key' });
    expect(await testDb().prisma.product.count({ where: { company_id: t.company.companyId, name: 'Cross' } })).toBe(0);
  });

  it('"at most 255 characters"', async () => {
    expect((await t.api.POST('/customers', { params: idem('k'.repeat(255)), body: { name: 'Long key ok' } })).response.status).toBe(201);
    const r = await t.api.POST('/customers', { params: idem('k'.repeat(256)), body: { name: 'Long key' } });
    expect(r.response.status).toBe(400);
    expect(r.error?.code).toBe('invalid_request');
  });

  it('"scoped to the company": the same key in another company creates there', async () => {
    const other = await t.another('Anden ApS');
    const a = await t.api.POST('/customers', { params: idem('scoped-1'), body: { name: 'Scoped' } });
    const b = await other.api.POST('/customers', { params: idem('scoped-1'), body: { name: 'Scoped' } });
    expect(a.response.status).toBe(201);
    expect(b.response.status).toBe(201);
    expect(b.response.headers.get('x-idempotency-replayed')).toBeNull();
    expect(b.data?.data.id).not.toBe(a.data?.data.id);
  });

  it('"After 24 hours the key is forgotten and would create a new resource."', async () => {
    const first = await ok(t.api.POST('/customers', { params: idem('old-1'), body: { name: 'Old key' } }));
    await testDb().prisma.idempotencyKey.update({
      where: { company_id_key: { company_id: t.company.companyId, key: 'old-1' } },
      data: { created_at: new Date(Date.now() - 24 * 3600_000 - 1000) },
    });
    const later = await t.api.POST('/customers', { params: idem('old-1'), body: { name: 'Old key' } });
    expect(later.response.status).toBe(201);
    expect(later.response.headers.get('x-idempotency-replayed')).toBeNull();
    expect(later.data?.data.id).not.toBe(first.data.id);
    expect(await countCustomers(t.company.companyId, 'Old key')).toBe(2);
  });

  it('the purge forgets keys older than 24 hours and keeps younger ones', async () => {
    const { purgeExpiredIdempotencyKeys } = await import('@tlr/domain');
    await ok(t.api.POST('/customers', { params: idem('purge-old'), body: { name: 'Purge old' } }));
    await ok(t.api.POST('/customers', { params: idem('purge-young'), body: { name: 'Purge young' } }));
    await testDb().prisma.idempotencyKey.update({
      where: { company_id_key: { company_id: t.company.companyId, key: 'purge-old' } },
      data: { created_at: new Date(Date.now() - 25 * 3600_000) },
    });
    expect(await purgeExpiredIdempotencyKeys(testDb().prisma)).toBeGreaterThanOrEqual(1);
    const left = await testDb().prisma.idempotencyKey.findMany({ where: { company_id: t.company.companyId, key: { startsWith: 'purge-' } } });
    expect(left.map((k) => k.key)).toEqual(['purge-young']);
  });

  it('a failed create stores nothing: the same key can be used again once the input is corrected', async () => {
    expect((await t.api.POST('/customers', { params: idem('fix-1'), body: { name: 'Bad', cvr: '12' } })).response.status).toBe(400);
    const fixed = await t.api.POST('/customers', { params: idem('fix-1'), body: { name: 'Bad', cvr: '12345674' } });
    expect(fixed.response.status).toBe(201);
  });

  it('identical requests arriving at the same moment on two servers create exactly one resource', async () => {
    const servers = [t.svc.url, second.url];
    const replies = await Promise.all(
      Array.from({ length: 16 }, (_, i) => api(servers[i % 2]!, t.key).POST('/customers', { params: idem('twin-1'), body: { name: 'Twin ApS' } })),
    );
    expect(replies.map((r) => r.response.status)).toEqual(Array(16).fill(201));
    const ids = new Set(replies.map((r) => bodyOf(201, r).data.id));
    expect(ids.size).toBe(1);
    expect(replies.filter((r) => r.response.headers.get('x-idempotency-replayed') === 'true')).toHaveLength(15);
    expect(await countCustomers(t.company.companyId, 'Twin ApS')).toBe(1);
    // The losers' held events and kept counts rolled back with them: one event, and the list's total is the rows.
    for (const id of ids) expect(await createdEvents(id)).toBe(1);
    const live = await testDb().prisma.customer.count({ where: { company_id: t.company.companyId, deleted_at: null } });
    expect((await ok(t.api.GET('/customers'))).meta.total).toBe(live);
  });
});
