// Contract, "List parameters (all list endpoints)" and "Allowed sort fields and default sort".
import { beforeAll, describe, expect, it } from 'vitest';
import { idem, ok, testDb, useCompany } from './helpers.ts';

const t = useCompany();
const names = ['Østjysk VVS', 'Aalborg Auto', 'Bornholm Bryghus', 'Carlsen & Co', 'Dansk Design', 'Esbjerg El'];

beforeAll(async () => {
  for (const [i, name] of names.entries()) {
    await ok(t.api.POST('/customers', { params: idem(), body: { name, email: `kontakt${i}@${name.toLowerCase().replace(/[^a-z]/g, '')}.dk` } }));
  }
  await ok(t.api.POST('/products', { params: idem(), body: { name: 'Same', unit_price: 100 } }));
});

describe('lists', () => {
  it('defaults: page 1, per_page 50, sorted by the default field, order desc', async () => {
    const r = await t.api.GET('/customers');
    expect(r.response.status).toBe(200);
    expect(r.data?.meta).toEqual({ page: 1, per_page: 50, total: names.length, total_pages: 1 });
    // customers sort by name by default; order defaults to desc
    expect(r.data?.data.map((x) => x.name)).toEqual([...names].sort((a, b) => (a < b ? 1 : -1)));
  });

  it('pages through with correct meta, each row exactly once', async () => {
    const seen: string[] = [];
    let page = 1;
    let totalPages: number;
    do {
      const r = await ok(t.api.GET('/customers', { params: { query: { per_page: 4, page, sort: 'created_at', order: 'asc' } } }));
      expect(r.meta).toMatchObject({ page, per_page: 4, total: 6, total_pages: 2 });
      seen.push(...r.data.map((x) => x.id));
      totalPages = r.meta.total_pages;
      page += 1;
    } while (page <= totalPages);
    expect(seen).toHaveLength(6);
    expect(new Set(seen).size).toBe(6);
    const beyond = await ok(t.api.GET('/customers', { params: { query: { page: 9 } } }));
    expect(beyond.data).toEqual([]);
    expect(beyond.meta.total).toBe(6);
    // The largest page the document allows is served like any page past the end.
    const last = await t.api.GET('/customers', { params: { query: { page: 2147483647, per_page: 200 } } });
    expect(last.response.status).toBe(200);
    expect(last.data?.data).toEqual([]);
    expect(last.data?.meta).toMatchObject({ page: 2147483647, total: 6 });
  });

  it('sorts by every allowed field, both ways', async () => {
    const asc = await ok(t.api.GET('/customers', { params: { query: { sort: 'name', order: 'asc' } } }));
    expect(asc.data.map((x) => x.name)).toEqual([...names].sort());
    const byEmail = await ok(t.api.GET('/customers', { params: { query: { sort: 'email', order: 'asc' } } }));
    const emails = byEmail.data.map((x) => x.email);
    expect(emails).toEqual([...emails].sort());
  });

  it('searches name and email case-insensitively', async () => {
    const search = async (term: string) => ok(t.api.GET('/customers', { params: { query: { search: term } } }));
    expect((await search('BRYG')).data.map((x) => x.name)).toEqual(['Bornholm Bryghus']);
    expect((await search('kontakt4')).data.map((x) => x.name)).toEqual(['Dansk Design']);
    expect((await search('nothing-like-this')).meta).toEqual({ page: 1, per_page: 50, total: 0, total_pages: 0 });
  });

  it('folds Danish letters too: "ærø" finds "ÆRØ Købmand" and "ÆRØ" finds "ærø bageri"', async () => {
    const { api: other } = await t.another();
    await ok(other.POST('/customers', { params: idem(), body: { name: 'ÆRØ Købmand' } }));
    await ok(other.POST('/customers', { params: idem(), body: { name: 'ærø bageri' } }));
    const found = await ok(other.GET('/customers', { params: { query: { search: 'ærø', sort: 'name', order: 'asc' } } }));
    expect(found.data.map((x) => x.name)).toEqual(['ÆRØ Købmand', 'ærø bageri']);
    expect((await ok(other.GET('/customers', { params: { query: { search: 'ÆRØ' } } }))).meta.total).toBe(2);
  });

  it('filters on creation date, since and until inclusive', async () => {
    const list = async (query: { since?: string; until?: string }) => ok(t.api.GET('/customers', { params: { query } }));
    const today = new Date().toISOString().slice(0, 10);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    expect((await list({ since: today, until: today })).meta.total).toBe(6);
    expect((await list({ since: tomorrow })).meta.total).toBe(0);
    await testDb().prisma.customer.updateMany({
      where: { company_id: t.company.companyId, name: 'Esbjerg El' },
      data: { created_at: new Date('2026-01-15T23:59:59Z') },
    });
    expect((await list({ until: '2026-01-15' })).data.map((x) => x.name)).toEqual(['Esbjerg El']);
    expect((await list({ since: '2026-01-16', until: '2026-01-16' })).meta.total).toBe(0);
  });

  // Malformed on purpose, so through the untyped client: the typed one would not send them.
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
    const r = await t.raw.get(`/customers?${query}`);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'invalid_request', field });
  });

  it('accepts per_page 200 and products sorted by unit_price', async () => {
    expect((await ok(t.api.GET('/customers', { params: { query: { per_page: 200 } } }))).meta.per_page).toBe(200);
    expect((await t.api.GET('/products', { params: { query: { sort: 'unit_price', order: 'asc' } } })).response.status).toBe(200);
    expect((await t.raw.get('/suppliers?sort=email')).status).toBe(400);
  });

  it('orders ties by id, so pages never repeat or skip a row', async () => {
    for (let i = 0; i < 5; i++) await ok(t.api.POST('/products', { params: idem(), body: { name: 'Same', unit_price: 100 } }));
    const page = async (query: { per_page: number; page?: number }) =>
      (await ok(t.api.GET('/products', { params: { query: { sort: 'name', ...query } } }))).data.map((x) => x.id);
    const all = await page({ per_page: 200 });
    const paged: string[] = [];
    for (let p = 1; p <= 3; p++) paged.push(...(await page({ per_page: 2, page: p })));
    expect(paged).toEqual(all);
    expect([...all].sort().reverse()).toEqual(all);
  });
});
