// Contract, Conventions 2: "Create POSTs ... require the header Idempotency-Key (free-form string, at
// most 255 characters, scoped to the company, stored 24 hours)."
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, newCompany, startTestService, testDb } from './helpers.ts';
import type { Service } from '../src/service.ts';

let svc: Service;
let second: Service;
let company: Awaited<ReturnType<typeof newCompany>>;
let key: string;

beforeAll(async () => {
  [svc, second] = await Promise.all([startTestService(), startTestService()]);
  company = await newCompany();
  key = (await company.key()).key;
});
afterAll(() => Promise.all([svc.stop(), second.stop()]));

const countCustomers = (companyId: string, name: string) => testDb().prisma.customer.count({ where: { company_id: companyId, name } });

describe('Idempotency-Key', () => {
  it('"Missing header: 400 invalid_request."', async () => {
    const r = await client(svc.url, key).post('/customers', { name: 'No key' }, {});
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'invalid_request', field: 'Idempotency-Key' });
    expect(await countCustomers(company.companyId, 'No key')).toBe(0);
  });

  it('"Same key on the same endpoint again: the original stored response (same status and body) is returned with header X-Idempotency-Replayed: true and nothing new is created."', async () => {
    const c = client(svc.url, key);
    const first = await c.post('/customers', { name: 'Replay ApS' }, { 'Idempotency-Key': 'replay-1' });
    expect(first.status).toBe(201);
    expect(first.headers.get('x-idempotency-replayed')).toBeNull();
    const again = await c.post('/customers', { name: 'Replay ApS' }, { 'Idempotency-Key': 'replay-1' });
    expect(again.status).toBe(201);
    expect(again.headers.get('x-idempotency-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
    // the replay comes from the other server too
    const elsewhere = await client(second.url, key).post('/customers', { name: 'Replay ApS' }, { 'Idempotency-Key': 'replay-1' });
    expect(elsewhere.body).toEqual(first.body);
    expect(await countCustomers(company.companyId, 'Replay ApS')).toBe(1);
    const events = await testDb().prisma.outboxEvent.count({
      where: { company_id: company.companyId, type: 'customer.created', data: { path: ['id'], equals: first.body.data.id } },
    });
    expect(events).toBe(1);
  });

  it('"Same key on a different endpoint: 400 invalid_request."', async () => {
    const c = client(svc.url, key);
    expect((await c.post('/customers', { name: 'Cross' }, { 'Idempotency-Key': 'cross-1' })).status).toBe(201);
    const r = await c.post('/products', { name: 'Cross', unit_price: 10 }, { 'Idempotency-Key': 'cross-1' });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'invalid_request', field: 'Idempotency-Key' });
    expect(await testDb().prisma.product.count({ where: { company_id: company.companyId, name: 'Cross' } })).toBe(0);
  });

  it('"at most 255 characters"', async () => {
    const c = client(svc.url, key);
    expect((await c.post('/customers', { name: 'Long key ok' }, { 'Idempotency-Key': 'k'.repeat(255) })).status).toBe(201);
    const r = await c.post('/customers', { name: 'Long key' }, { 'Idempotency-Key': 'k'.repeat(256) });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('invalid_request');
  });

  it('"scoped to the company": the same key in another company creates there', async () => {
    const other = await newCompany('Anden ApS');
    const otherKey = (await other.key()).key;
    const a = await client(svc.url, key).post('/customers', { name: 'Scoped' }, { 'Idempotency-Key': 'scoped-1' });
    const b = await client(svc.url, otherKey).post('/customers', { name: 'Scoped' }, { 'Idempotency-Key': 'scoped-1' });
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.headers.get('x-idempotency-replayed')).toBeNull();
    expect(b.body.data.id).not.toBe(a.body.data.id);
  });

  it('"After 24 hours the key is forgotten and would create a new resource."', async () => {
    const c = client(svc.url, key);
    const first = await c.post('/customers', { name: 'Old key' }, { 'Idempotency-Key': 'old-1' });
    await testDb().prisma.idempotencyKey.update({
      where: { company_id_key: { company_id: company.companyId, key: 'old-1' } },
      data: { created_at: new Date(Date.now() - 24 * 3600_000 - 1000) },
    });
    const later = await c.post('/customers', { name: 'Old key' }, { 'Idempotency-Key': 'old-1' });
    expect(later.status).toBe(201);
    expect(later.headers.get('x-idempotency-replayed')).toBeNull();
    expect(later.body.data.id).not.toBe(first.body.data.id);
    expect(await countCustomers(company.companyId, 'Old key')).toBe(2);
  });

  it('the purge forgets keys older than 24 hours and keeps younger ones', async () => {
    const { purgeExpiredIdempotencyKeys } = await import('@tlr/domain');
    const c = client(svc.url, key);
    await c.post('/customers', { name: 'Purge old' }, { 'Idempotency-Key': 'purge-old' });
    await c.post('/customers', { name: 'Purge young' }, { 'Idempotency-Key': 'purge-young' });
    await testDb().prisma.idempotencyKey.update({
      where: { company_id_key: { company_id: company.companyId, key: 'purge-old' } },
      data: { created_at: new Date(Date.now() - 25 * 3600_000) },
    });
    expect(await purgeExpiredIdempotencyKeys(testDb().prisma)).toBeGreaterThanOrEqual(1);
    const left = await testDb().prisma.idempotencyKey.findMany({ where: { company_id: company.companyId, key: { startsWith: 'purge-' } } });
    expect(left.map((k) => k.key)).toEqual(['purge-young']);
  });

  it('a failed create stores nothing: the same key can be used again once the input is corrected', async () => {
    const c = client(svc.url, key);
    expect((await c.post('/customers', { name: 'Bad', cvr: '12' }, { 'Idempotency-Key': 'fix-1' })).status).toBe(400);
    const fixed = await c.post('/customers', { name: 'Bad', cvr: '12345674' }, { 'Idempotency-Key': 'fix-1' });
    expect(fixed.status).toBe(201);
  });

  it('identical requests arriving at the same moment on two servers create exactly one resource', async () => {
    const servers = [svc.url, second.url];
    const replies = await Promise.all(
      Array.from({ length: 16 }, (_, i) => client(servers[i % 2]!, key).post('/customers', { name: 'Twin ApS' }, { 'Idempotency-Key': 'twin-1' })),
    );
    expect(replies.map((r) => r.status)).toEqual(Array(16).fill(201));
    expect(new Set(replies.map((r) => r.body.data.id)).size).toBe(1);
    expect(replies.filter((r) => r.headers.get('x-idempotency-replayed') === 'true')).toHaveLength(15);
    expect(await countCustomers(company.companyId, 'Twin ApS')).toBe(1);
    // The losers' held events and kept counts rolled back with them: one event, and the list's total is the rows.
    const events = await testDb().prisma.outboxEvent.count({
      where: { company_id: company.companyId, type: 'customer.created', data: { path: ['id'], equals: replies[0]!.body.data.id } },
    });
    expect(events).toBe(1);
    const live = await testDb().prisma.customer.count({ where: { company_id: company.companyId, deleted_at: null } });
    expect((await client(svc.url, key).get('/customers')).body.meta.total).toBe(live);
  });
});
