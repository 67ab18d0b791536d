// Customers, products and suppliers end to end: CRUD, lookup, validation, company scoping, sandbox
// isolation and the events outbox.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approveCode, client, codeExchange, newCompany, oauthClient, oauthPost, pkcePair, startTestService, testDb } from './helpers.ts';
import type { Service } from '../src/service.ts';

let svc: Service;
let company: Awaited<ReturnType<typeof newCompany>>;
let c: ReturnType<typeof client>;

beforeAll(async () => {
  svc = await startTestService();
  company = await newCompany();
  c = client(svc.url, (await company.key()).key);
});
afterAll(() => svc.stop());

const events = (companyId: string, type: string) =>
  testDb().prisma.outboxEvent.findMany({ where: { company_id: companyId, type }, orderBy: { sequence: 'asc' } });

describe('customers', () => {
  it('creates with Danish fields and defaults, updates partially, deletes', async () => {
    const created = await c.post('/customers', {
      name: 'Region Midtjylland',
      email: 'Faktura@RM.dk',
      phone: '+45 78 41 00 00',
      cvr: '29190925',
      ean: '5798000020000',
      address_line1: 'Skottenborg 26',
      postal_code: '8800',
      city: 'Viborg',
      country: 'dk',
    });
    expect(created.status).toBe(201);
    const customer = created.body.data;
    expect(customer).toMatchObject({ name: 'Region Midtjylland', cvr: '29190925', ean: '5798000020000', country: 'DK', payment_terms_days: 14 });
    expect(customer.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Date(customer.created_at).toISOString()).toBe(customer.created_at);

    const updated = await c.put(`/customers/${customer.id}`, { city: 'Viborg C', payment_terms_days: 30 });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({ name: 'Region Midtjylland', city: 'Viborg C', payment_terms_days: 30, ean: '5798000020000' });
    expect(updated.body.data.updated_at >= customer.updated_at).toBe(true);

    const kinds = (
      await testDb().prisma.outboxEvent.findMany({
        where: { company_id: company.companyId, data: { path: ['id'], equals: customer.id } },
        orderBy: { sequence: 'asc' },
      })
    ).map((e) => e.type);
    expect(kinds).toEqual(['customer.created', 'customer.updated']);

    expect((await c.del(`/customers/${customer.id}`)).body).toEqual({ data: { id: customer.id, deleted: true } });
    expect((await c.get(`/customers/${customer.id}`)).status).toBe(404);
    expect((await c.put(`/customers/${customer.id}`, { city: 'x' })).status).toBe(404);
    expect((await c.del(`/customers/${customer.id}`)).status).toBe(404);
    const deletedEvents = await events(company.companyId, 'customer.deleted');
    expect(deletedEvents.at(-1)).toMatchObject({ livemode: true, api_version: '2026-04-10', data: { id: customer.id } });
  });

  it('records customer.created with the API shape of the customer', async () => {
    const r = await c.post('/customers', { name: 'Event ApS', email: 'e@example.dk' });
    const evt = (await events(company.companyId, 'customer.created')).find((e) => (e.data as any).id === r.body.data.id);
    expect(evt?.data).toEqual(r.body.data);
  });

  it('looks up by CVR, e-mail (any case) and telephone (any spacing, with or without +45)', async () => {
    const r = await c.post('/customers', { name: 'Lookup ApS', email: 'Hej@Lookup.dk', phone: '12 34 56 78', cvr: '87654338' });
    const id = r.body.data.id;
    for (const q of [
      'cvr=87654338',
      'email=hej%40lookup.dk',
      'email=HEJ%40LOOKUP.DK',
      'phone=%2B4512345678',
      'phone=12345678',
      'telephone=12%2034%2056%2078',
      'q=87654338',
      'q=Hej%40lookup.dk',
      'q=%2B45%2012345678',
      'cvr=87%2065%2043%2038',
      'q=8765%204338',
    ]) {
      const found = await c.get(`/customers/lookup?${q}`);
      expect(found.status, q).toBe(200);
      expect(found.body.data.id).toBe(id);
    }
    expect((await c.get('/customers/lookup?cvr=87654346')).body.code).toBe('not_found');
    expect((await c.get('/customers/lookup')).status).toBe(400);
    expect((await c.get('/customers/lookup?cvr=87654338&email=a%40b.dk')).status).toBe(400);
    const badCvr = await c.get('/customers/lookup?cvr=123');
    expect(badCvr.status).toBe(400);
    expect(badCvr.body.field).toBe('cvr');
    // The CVR module's rule, as on create: a number failing the modulus 11 check cannot be anyone's.
    expect((await c.get('/customers/lookup?cvr=87654321')).body).toMatchObject({ status: 400, field: 'cvr', detail: expect.stringMatching(/modulus 11/) });
  });

  it.each([
    [{ name: '' }, 'name'],
    [{ name: '   ' }, 'name'],
    [{}, 'name'],
    [{ name: 'A', email: 'not-an-email' }, 'email'],
    [{ name: 'A', cvr: '1234567a' }, 'cvr'],
    [{ name: 'A', cvr: '12345678' }, 'cvr'],
    [{ name: 'A', ean: '579800002000' }, 'ean'],
    [{ name: 'A', country: 'Denmark' }, 'country'],
    [{ name: 'A', payment_terms_days: -1 }, 'payment_terms_days'],
    [{ name: 'A', payment_terms_days: 1.5 }, 'payment_terms_days'],
  ])('refuses %j naming %s', async (body, field) => {
    const r = await c.post('/customers', body);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'invalid_request', field });
  });

  it("treats another company's customer as not found, for every verb", async () => {
    const other = await newCompany('Fremmed ApS');
    const oc = client(svc.url, (await other.key()).key);
    const theirs = (await oc.post('/customers', { name: 'Theirs', cvr: '87654354' })).body.data.id;
    expect((await c.get(`/customers/${theirs}`)).status).toBe(404);
    expect((await c.put(`/customers/${theirs}`, { name: 'Mine now' })).status).toBe(404);
    expect((await c.del(`/customers/${theirs}`)).status).toBe(404);
    expect((await c.get('/customers/lookup?cvr=87654354')).status).toBe(404);
    expect((await c.get('/customers?search=Theirs')).body.meta.total).toBe(0);
    expect((await oc.get(`/customers/${theirs}`)).body.data.name).toBe('Theirs');
  });
});

describe('products', () => {
  it('keeps money exact and refuses more than 2 decimals', async () => {
    const r = await c.post('/products', { name: 'Konsulenttime', unit: 'timer', unit_price: 1234.56, product_number: 'K-1' });
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({ unit_price: 1234.56, vat_rate: 25, unit: 'timer', currency: 'DKK' });
    const tenth = await c.post('/products', { name: 'Tiøre', unit_price: '0.10', vat_rate: 0 });
    expect(tenth.body.data).toMatchObject({ unit_price: 0.1, vat_rate: 0 });
    const row = await testDb().prisma.product.findUniqueOrThrow({ where: { id: r.body.data.id } });
    expect(row.unit_price.toFixed(2)).toBe('1234.56');
    for (const [body, field] of [
      [{ name: 'x', unit_price: 1.005 }, 'unit_price'],
      [{ name: 'x', unit_price: 'abc' }, 'unit_price'],
      [{ name: 'x', unit_price: -1 }, 'unit_price'],
      [{ name: 'x', unit_price: true }, 'unit_price'],
      [{ name: 'x', unit_price: 10, vat_rate: 101 }, 'vat_rate'],
    ] as const) {
      const bad = await c.post('/products', body);
      expect(bad.status, JSON.stringify(body)).toBe(400);
      expect(bad.body.field).toBe(field);
    }
  });

  it('defaults the unit price to 0 and the VAT rate to 25', async () => {
    const r = await c.post('/products', { name: 'Gratis vare' });
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({ unit_price: 0, vat_rate: 25, unit: 'stk' });
  });

  it('updates, lists by price and deletes', async () => {
    const p = (await c.post('/products', { name: 'Skrue', unit_price: 2.5 })).body.data;
    const u = await c.put(`/products/${p.id}`, { unit_price: 3 });
    expect(u.body.data).toMatchObject({ name: 'Skrue', unit_price: 3 });
    expect((await c.del(`/products/${p.id}`)).body.data).toEqual({ id: p.id, deleted: true });
    expect((await events(company.companyId, 'product.deleted')).some((e) => (e.data as any).id === p.id)).toBe(true);
  });
});

describe('suppliers', () => {
  it('creates, updates, lists and deletes with events', async () => {
    const s = await c.post('/suppliers', {
      name: 'Kontorartikler A/S',
      cvr: '12345682',
      bank_reg_number: '1234',
      bank_account_number: '0001234567',
      iban: 'dk50 0040 0440 1162 43',
    });
    expect(s.status).toBe(201);
    expect(s.body.data).toMatchObject({ payment_terms_days: 30, iban: 'DK5000400440116243' });
    const id = s.body.data.id;
    expect((await c.put(`/suppliers/${id}`, { email: 'ordre@kontor.dk' })).body.data.email).toBe('ordre@kontor.dk');
    expect((await c.get('/suppliers?search=kontor')).body.data.map((x: any) => x.id)).toContain(id);
    expect((await c.post('/suppliers', { name: 'x', bank_reg_number: '12' })).body.field).toBe('bank_reg_number');
    // Suppliers' CVR follows the same modulus 11 rule as customers' (one module), spaces removed.
    expect((await c.post('/suppliers', { name: 'x', cvr: '11223344' })).body).toMatchObject({ field: 'cvr', detail: expect.stringMatching(/modulus 11/) });
    expect((await c.put(`/suppliers/${id}`, { cvr: '8765 4346' })).body.data.cvr).toBe('87654346');
    expect((await c.del(`/suppliers/${id}`)).status).toBe(200);
    const kinds = (await testDb().prisma.outboxEvent.findMany({ where: { data: { path: ['id'], equals: id } }, orderBy: { sequence: 'asc' } })).map(
      (e) => e.type,
    );
    expect(kinds).toEqual(['supplier.created', 'supplier.updated', 'supplier.updated', 'supplier.deleted']);
  });

  let supplierId: string;
  beforeAll(async () => {
    supplierId = (await c.post('/suppliers', { name: 'Rigtig Bank ApS' })).body.data.id;
  });

  it("checks bank details by the company profile's rules: an IBAN's mod-97 check digits and its country's length", async () => {
    for (const [field, value, rule] of [
      ['iban', 'DK5000400440116244', /check digits/],
      ['iban', 'DK500040044011624', /18 characters for DK/],
      ['bank_reg_number', '40', /4 digits/],
      ['bank_account_number', '12345678901', /up to 10 digits/],
    ] as const) {
      for (const r of [await c.post('/suppliers', { name: 'Forkert Bank ApS', [field]: value }), await c.put(`/suppliers/${supplierId}`, { [field]: value })]) {
        expect(r.status, `${field}=${value}`).toBe(400);
        expect(r.headers.get('content-type')).toMatch(/application\/problem\+json/);
        expect(r.body.errors).toEqual([expect.objectContaining({ field, message: expect.stringMatching(rule) })]);
      }
    }
    // The same normal form as the company's: spaces and dashes dropped, the IBAN upper-cased; null clears.
    const ok = await c.put(`/suppliers/${supplierId}`, { bank_reg_number: '0 040', bank_account_number: '0440-116243', iban: 'gb29 nwbk 6016 1331 9268 19' });
    expect(ok.body.data).toMatchObject({ bank_reg_number: '0040', bank_account_number: '0440116243', iban: 'GB29NWBK60161331926819' });
    expect((await c.put(`/suppliers/${supplierId}`, { iban: null })).body.data.iban).toBe('');
  });
});

describe('sandbox', () => {
  it('a test key works on an isolated sandbox company owned by the same user', async () => {
    const test = await company.key(undefined, 'test');
    expect(test.key).toMatch(/^tlr_test_[0-9a-f]{48}$/);
    expect(test.company_id).not.toBe(company.companyId);
    const sandbox = await testDb().prisma.company.findUniqueOrThrow({ where: { id: test.company_id } });
    const live = await testDb().prisma.company.findUniqueOrThrow({ where: { id: company.companyId } });
    expect(sandbox).toMatchObject({
      sandbox_of_id: live.id,
      owner_user_id: live.owner_user_id,
      currency: live.currency,
      vat_registered: live.vat_registered,
      fiscal_year_start_month: live.fiscal_year_start_month,
    });
    // a second test key shares the same sandbox
    expect((await company.key(['customers:read'], 'test')).company_id).toBe(test.company_id);

    const tc = client(svc.url, test.key);
    const made = await tc.post('/customers', { name: 'Sandkasse ApS' });
    expect(made.status).toBe(201);
    expect((await c.get(`/customers/${made.body.data.id}`)).status).toBe(404);
    expect((await tc.get('/customers')).body.data.map((x: any) => x.name)).toEqual(['Sandkasse ApS']);
    const evt = (await events(test.company_id, 'customer.created'))[0];
    expect(evt?.livemode).toBe(false);
  });
});

describe('GET by id with its read in the authentication statement (decision 148)', () => {
  /** The statements the service sends on its pool while `run` runs (the audit log's batches left out). */
  async function statements<T>(run: () => Promise<T>): Promise<{ result: T; sent: number }> {
    const pool = svc.db.pool;
    const query = pool.query;
    let sent = 0;
    pool.query = function (this: typeof pool, config: unknown, ...rest: unknown[]) {
      const text = typeof config === 'string' ? config : (config as { text?: string }).text;
      if (!text?.includes('request_audit_log')) sent += 1;
      return (query as (...args: unknown[]) => unknown).call(this, config, ...rest);
    } as typeof query;
    try {
      return { result: await run(), sent };
    } finally {
      pool.query = query;
    }
  }

  it("answers as the create did, in one statement, and only with the key's company's live row", async () => {
    const product = (await c.post('/products', { name: 'Revision', unit_price: '12345.67', vat_rate: 25, product_number: 'R-148' })).body.data;
    const customer = (await c.post('/customers', { name: 'Ét Kald ApS', cvr: '12345690', payment_terms_days: 8 })).body.data;

    const got = await statements(() => c.get(`/products/${product.id}`));
    expect(got.result.status).toBe(200);
    // The row mapped by the same view as the create's answer: exact money, dates, every field.
    expect(got.result.body.data).toEqual(product);
    expect(got.sent).toBe(1);
    expect(got.result.headers.get('X-RateLimit-Remaining')).toMatch(/^\d+$/);
    expect((await c.get(`/customers/${customer.id}`)).body.data).toEqual(customer);
    // The same id in capitals and with a trailing slash: the same row, still in one statement.
    const shouted = await statements(() => c.get(`/customers/${customer.id.toUpperCase()}/`));
    expect(shouted.result.body.data).toEqual(customer);
    expect(shouted.sent).toBe(1);

    // Another company's key: the read is scoped to the key's company, so the row is not found.
    const other = await newCompany('Anden Læser ApS');
    const oc = client(svc.url, (await other.key()).key);
    const foreign = await statements(() => oc.get(`/customers/${customer.id}`));
    expect(foreign.result.status).toBe(404);
    expect(foreign.result.body).toMatchObject({ code: 'not_found' });
    expect(foreign.sent).toBe(1);

    // Without the scope: 403, and the row read along is not shown.
    const writer = client(svc.url, (await company.key(['products:write'])).key);
    const refused = await writer.get(`/products/${product.id}`);
    expect(refused.status).toBe(403);
    expect(refused.text).not.toContain('Revision');

    // A deleted row is not found; an invalid id is refused by the endpoint's rule, after authentication.
    await c.del(`/customers/${customer.id}`);
    expect((await c.get(`/customers/${customer.id}`)).status).toBe(404);
    const invalid = await statements(() => c.get('/customers/not-a-uuid'));
    expect(invalid.result.status).toBe(400);
    expect(invalid.result.body).toMatchObject({ code: 'invalid_request', field: 'id' });
    expect(invalid.result.headers.get('X-RateLimit-Remaining')).toMatch(/^\d+$/);
    expect(invalid.sent).toBe(1);
  });

  it("an OAuth access token reads the same row in one statement too, and another company's row not at all", async () => {
    const app = await oauthClient(['products:read']);
    const pkce = pkcePair();
    const code = await approveCode(company, app, pkce.challenge);
    const token = await oauthPost(svc.url, 'token', codeExchange(app, code, pkce.verifier));
    expect(token.status).toBe(200);
    const product = (await c.post('/products', { name: 'Bogføring', unit_price: '999.50' })).body.data;
    const got = await statements(() => client(svc.url, token.body.access_token).get(`/products/${product.id}`));
    expect(got.result.body.data).toEqual(product);
    expect(got.sent).toBe(1);
    const other = await newCompany('Tredje Part ApS');
    const theirs = (await client(svc.url, (await other.key()).key).post('/products', { name: 'Deres', unit_price: '1.00' })).body.data;
    const foreign = await statements(() => client(svc.url, token.body.access_token).get(`/products/${theirs.id}`));
    expect(foreign.result.status).toBe(404);
    expect(foreign.sent).toBe(1);
  });
});
