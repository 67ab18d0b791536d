// Contract, "List parameters (all list endpoints)" and "Allowed sort fields and default sort".
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, newCompany, startTestService, testDb } from './helpers.ts';
import type { Service } from '../src/service.ts';

let svc: Service;
let c: ReturnType<typeof client>;
let companyId: string;
const names = ['Østjysk VVS', 'Aalborg Auto', 'Bornholm Bryghus', 'Carlsen & Co', 'Dansk Design', 'Esbjerg El'];

beforeAll(async () => {
  svc = await startTestService();
  const company = await newCompany();
  companyId = company.companyId;
  c = client(svc.url, (await company.key()).key);
  for (const [i, name] of names.entries()) {
    const r = await c.post('/customers', { name, email: `kontakt${i}@${name.toLowerCase().replace(/[^a-z]/g, '')}.dk` });
    expect(r.status).toBe(201);
  }
  const p = await c.post('/products', { name: 'Same', unit_price: 100 });
  expect(p.status).toBe(201);
});
afterAll(() => svc.stop());

describe('lists', () => {
  it('defaults: page 1, per_page 50, sorted by the default field, order desc', async () => {
    const r = await c.get('/customers');
    expect(r.status).toBe(200);
    expect(r.body.meta).toEqual({ page: 1, per_page: 50, total: names.length, total_pages: 1 });
    // customers sort by name by default; order defaults to desc
    expect(r.body.data.map((x: any) => x.name)).toEqual([...names].sort((a, b) => (a < b ? 1 : -1)));
  });

  it('pages through with correct meta, each row exactly once', async () => {
    const seen: string[] = [];
    let page = 1;
    let totalPages: number;
    do {
      const r = await c.get(`/customers?per_page=4&page=${page}&sort=created_at&order=asc`);
      expect(r.body.meta).toMatchObject({ page, per_page: 4, total: 6, total_pages: 2 });
      seen.push(...r.body.data.map((x: any) => x.id));
      totalPages = r.body.meta.total_pages;
      page += 1;
    } while (page <= totalPages);
    expect(seen).toHaveLength(6);
    expect(new Set(seen).size).toBe(6);
    const beyond = await c.get('/customers?page=9');
    expect(beyond.body.data).toEqual([]);
    expect(beyond.body.meta.total).toBe(6);
    // The largest page the document allows is served like any page past the end.
    const last = await c.get('/customers?page=2147483647&per_page=200');
    expect(last.status).toBe(200);
    expect(last.body.data).toEqual([]);
    expect(last.body.meta).toMatchObject({ page: 2147483647, total: 6 });
  });

  it('sorts by every allowed field, both ways', async () => {
    const asc = await c.get('/customers?sort=name&order=asc');
    expect(asc.body.data.map((x: any) => x.name)).toEqual([...names].sort());
    const byEmail = await c.get('/customers?sort=email&order=asc');
    const emails = byEmail.body.data.map((x: any) => x.email);
    expect(emails).toEqual([...emails].sort());
  });

  it('searches name and email case-insensitively', async () => {
    expect((await c.get('/customers?search=BRYG')).body.data.map((x: any) => x.name)).toEqual(['Bornholm Bryghus']);
    expect((await c.get('/customers?search=kontakt4')).body.data.map((x: any) => x.name)).toEqual(['Dansk Design']);
    expect((await c.get('/customers?search=nothing-like-this')).body.meta).toEqual({ page: 1, per_page: 50, total: 0, total_pages: 0 });
  });

  it('folds Danish letters too: "ærø" finds "ÆRØ Købmand" and "ÆRØ" finds "ærø bageri"', async () => {
    const other = client(svc.url, (await (await newCompany()).key()).key);
    await other.post('/customers', { name: 'ÆRØ Købmand' });
    await other.post('/customers', { name: 'ærø bageri' });
    expect((await other.get('/customers?search=ærø&sort=name&order=asc')).body.data.map((x: any) => x.name)).toEqual(['ÆRØ Købmand', 'ærø bageri']);
    expect((await other.get('/customers?search=%C3%86R%C3%98')).body.meta.total).toBe(2);
  });

  it('filters on creation date, since and until inclusive', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    expect((await c.get(`/customers?since=${today}&until=${today}`)).body.meta.total).toBe(6);
    expect((await c.get(`/customers?since=${tomorrow}`)).body.meta.total).toBe(0);
    await testDb().prisma.customer.updateMany({ where: { company_id: companyId, name: 'Esbjerg El' }, data: { created_at: new Date('2026-01-15T23:59:59Z') } });
    expect((await c.get('/customers?until=2026-01-15')).body.data.map((x: any) => x.name)).toEqual(['Esbjerg El']);
    expect((await c.get('/customers?since=2026-01-16&until=2026-01-16')).body.meta.total).toBe(0);
  });

  it.each([
    ['page=0', 'page'],
    ['page=abc', 'page'],
    ['page=1.5', 'page'],
    // Pages are counted in 32-bit integers, like every count of the document (decision 164).
    ['page=2147483648', 'page'],
    ['per_page=0', 'per_page'],
    ['per_page=201', 'per_page'],
    ['sort=unit_price', 'sort'],
    ['order=up', 'order'],
    ['since=2026-13-01', 'since'],
    ['until=yesterday', 'until'],
    ['since=2026-02-30', 'since'],
    ['status=draft', 'status'],
  ])('refuses %s with 400 invalid_request naming the parameter', async (query, field) => {
    const r = await c.get(`/customers?${query}`);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'invalid_request', field });
  });

  it('accepts per_page 200 and products sorted by unit_price', async () => {
    expect((await c.get('/customers?per_page=200')).body.meta.per_page).toBe(200);
    expect((await c.get('/products?sort=unit_price&order=asc')).status).toBe(200);
    expect((await c.get('/suppliers?sort=email')).status).toBe(400);
  });

  it('orders ties by id, so pages never repeat or skip a row', async () => {
    for (let i = 0; i < 5; i++) await c.post('/products', { name: 'Same', unit_price: 100 });
    const all = (await c.get('/products?sort=name&per_page=200')).body.data.map((x: any) => x.id);
    const paged: string[] = [];
    for (let page = 1; page <= 3; page++) paged.push(...(await c.get(`/products?sort=name&per_page=2&page=${page}`)).body.data.map((x: any) => x.id));
    expect(paged).toEqual(all);
    expect([...all].sort().reverse()).toEqual(all);
  });
});
