// Customers, products and suppliers end to end: CRUD, lookup, validation, company scoping, sandbox
// isolation and the events outbox.
import { beforeAll, describe, expect, it } from 'vitest';
import { api, approveCode, bodyOf, codeExchange, idem, oauthApi, oauthClient, ok, pkcePair, testDb, useCompany, type Schemas } from './helpers.ts';

const t = useCompany();

/** The outbox events of `type` about the resource `id`, oldest first. */
const events = (companyId: string, type: string, id: string) =>
  testDb().prisma.outboxEvent.findMany({ where: { company_id: companyId, type, data: { path: ['id'], equals: id } }, orderBy: { sequence: 'asc' } });
const path = (id: string) => ({ params: { path: { id } } });

describe('customers', () => {
  it('creates with Danish fields and defaults, updates partially, deletes', async () => {
    const created = await t.api.POST('/customers', {
      params: idem(),
      body: {
        name: 'Region Midtjylland',
        email: 'Faktura@RM.dk',
        phone: '+45 78 41 00 00',
        cvr: '29190925',
        ean: '5798000020000',
        address_line1: 'Skottenborg 26',
        postal_code: '8800',
        city: 'Viborg',
        country: 'dk',
      },
    });
    const customer = bodyOf(201, created).data;
    expect(customer).toMatchObject({ name: 'Region Midtjylland', cvr: '29190925', ean: '5798000020000', country: 'DK', payment_terms_days: 14 });
    expect(customer.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Date(customer.created_at).toISOString()).toBe(customer.created_at);

    const updated = bodyOf(200, await t.api.PUT('/customers/{id}', { ...path(customer.id), body: { city: 'Viborg C', payment_terms_days: 30 } })).data;
    expect(updated).toMatchObject({ name: 'Region Midtjylland', city: 'Viborg C', payment_terms_days: 30, ean: '5798000020000' });
    expect(updated.updated_at >= customer.updated_at).toBe(true);

    const kinds = (
      await testDb().prisma.outboxEvent.findMany({
        where: { company_id: t.company.companyId, data: { path: ['id'], equals: customer.id } },
        orderBy: { sequence: 'asc' },
      })
    ).map((e) => e.type);
    expect(kinds).toEqual(['customer.created', 'customer.updated']);

    expect((await t.api.DELETE('/customers/{id}', path(customer.id))).data).toEqual({ data: { id: customer.id, deleted: true } });
    expect((await t.api.GET('/customers/{id}', path(customer.id))).response.status).toBe(404);
    expect((await t.api.PUT('/customers/{id}', { ...path(customer.id), body: { city: 'x' } })).response.status).toBe(404);
    expect((await t.api.DELETE('/customers/{id}', path(customer.id))).response.status).toBe(404);
    const deletedEvents = await events(t.company.companyId, 'customer.deleted', customer.id);
    expect(deletedEvents.at(-1)).toMatchObject({ livemode: true, api_version: '2026-04-10', data: { id: customer.id } });
  });

  it('records customer.created with the API shape of the customer', async () => {
    const customer = (await ok(t.api.POST('/customers', { params: idem(), body: { name: 'Event ApS', email: 'e@example.dk' } }))).data;
    const [evt] = await events(t.company.companyId, 'customer.created', customer.id);
    expect(evt?.data).toEqual(customer);
  });

  it('looks up by CVR, e-mail (any case) and telephone (any spacing, with or without +45)', async () => {
    const { id } = (
      await ok(t.api.POST('/customers', { params: idem(), body: { name: 'Lookup ApS', email: 'Hej@Lookup.dk', phone: '12 34 56 78', cvr: '87654338' } }))
    ).data;
    const lookup = (query: { cvr?: string; email?: string; phone?: string; telephone?: string; q?: string }) =>
      t.api.GET('/customers/lookup', { params: { query } });
    for (const query of [
      { cvr: '87654338' },
      { email: 'hej@lookup.dk' },
      { email: 'HEJ@LOOKUP.DK' },
      { phone: '+4512345678' },
      { phone: '12345678' },
      { telephone: '12 34 56 78' },
      { q: '87654338' },
      { q: 'Hej@lookup.dk' },
      { q: '+45 12345678' },
      { cvr: '87 65 43 38' },
      { q: '8765 4338' },
    ]) {
      const found = await lookup(query);
      expect(found.response.status, JSON.stringify(query)).toBe(200);
      expect(found.data?.data.id).toBe(id);
    }
    expect((await lookup({ cvr: '87654346' })).error?.code).toBe('not_found');
    expect((await lookup({})).response.status).toBe(400);
    expect((await lookup({ cvr: '87654338', email: 'a@b.dk' })).response.status).toBe(400);
    const badCvr = await lookup({ cvr: '123' });
    expect(badCvr.response.status).toBe(400);
    expect(badCvr.error?.field).toBe('cvr');
    // The CVR module's rule, as on create: a number failing the modulus 11 check cannot be anyone's.
    expect((await lookup({ cvr: '87654321' })).error).toMatchObject({ status: 400, field: 'cvr', detail: expect.stringMatching(/modulus 11/) });
  });

  // Bodies the document refuses among them (no name), so through the untyped client.
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
    const r = await t.raw.post('/customers', body);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'invalid_request', field });
  });

  it("treats another company's customer as not found, for every verb", async () => {
    const other = await t.another('Fremmed ApS');
    const theirs = (await ok(other.api.POST('/customers', { params: idem(), body: { name: 'Theirs', cvr: '87654354' } }))).data.id;
    expect((await t.api.GET('/customers/{id}', path(theirs))).response.status).toBe(404);
    expect((await t.api.PUT('/customers/{id}', { ...path(theirs), body: { name: 'Mine now' } })).response.status).toBe(404);
    expect((await t.api.DELETE('/customers/{id}', path(theirs))).response.status).toBe(404);
    expect((await t.api.GET('/customers/lookup', { params: { query: { cvr: '87654354' } } })).response.status).toBe(404);
    expect((await ok(t.api.GET('/customers', { params: { query: { search: 'Theirs' } } }))).meta.total).toBe(0);
    expect((await ok(other.api.GET('/customers/{id}', path(theirs)))).data.name).toBe('Theirs');
  });
});

describe('products', () => {
  it('keeps money exact and refuses more than 2 decimals', async () => {
    const r = await t.api.POST('/products', { params: idem(), body: { name: 'Konsulenttime', unit: 'timer', unit_price: 1234.56, product_number: 'K-1' } });
    const product = bodyOf(201, r).data;
    expect(product).toMatchObject({ unit_price: 1234.56, vat_rate: 25, unit: 'timer', currency: 'DKK' });
    const tenth = await t.api.POST('/products', { params: idem(), body: { name: 'Tiøre', unit_price: '0.10', vat_rate: 0 } });
    expect(tenth.data?.data).toMatchObject({ unit_price: 0.1, vat_rate: 0 });
    const row = await testDb().prisma.product.findUniqueOrThrow({ where: { id: product.id } });
    expect(row.unit_price.toFixed(2)).toBe('1234.56');
    // Wrong types among them, so through the untyped client.
    for (const [body, field] of [
      [{ name: 'x', unit_price: 1.005 }, 'unit_price'],
      [{ name: 'x', unit_price: 'abc' }, 'unit_price'],
      [{ name: 'x', unit_price: -1 }, 'unit_price'],
      [{ name: 'x', unit_price: true }, 'unit_price'],
      [{ name: 'x', unit_price: 10, vat_rate: 101 }, 'vat_rate'],
    ] as const) {
      const bad = await t.raw.post('/products', body);
      expect(bad.status, JSON.stringify(body)).toBe(400);
      expect(bad.body.field).toBe(field);
    }
  });

  it('defaults the unit price to 0 and the VAT rate to 25', async () => {
    const r = await t.api.POST('/products', { params: idem(), body: { name: 'Gratis vare' } });
    expect(bodyOf(201, r).data).toMatchObject({ unit_price: 0, vat_rate: 25, unit: 'stk' });
  });

  it('updates, lists by price and deletes', async () => {
    const p = (await ok(t.api.POST('/products', { params: idem(), body: { name: 'Skrue', unit_price: 2.5 } }))).data;
    const u = await t.api.PUT('/products/{id}', { ...path(p.id), body: { unit_price: 3 } });
    expect(u.data?.data).toMatchObject({ name: 'Skrue', unit_price: 3 });
    expect((await t.api.DELETE('/products/{id}', path(p.id))).data?.data).toEqual({ id: p.id, deleted: true });
    expect(await events(t.company.companyId, 'product.deleted', p.id)).toHaveLength(1);
  });
});

describe('suppliers', () => {
  it('creates, updates, lists and deletes with events', async () => {
    const s = await t.api.POST('/suppliers', {
      params: idem(),
      body: {
        name: 'Kontorartikler A/S',
        cvr: '12345682',
        bank_reg_number: '1234',
        bank_account_number: '0001234567',
        iban: 'dk50 0040 0440 1162 43',
      },
    });
    const supplier = bodyOf(201, s).data;
    expect(supplier).toMatchObject({ payment_terms_days: 30, iban: 'DK5000400440116243' });
    const id = supplier.id;
    expect((await t.api.PUT('/suppliers/{id}', { ...path(id), body: { email: 'ordre@kontor.dk' } })).data?.data.email).toBe('ordre@kontor.dk');
    expect((await ok(t.api.GET('/suppliers', { params: { query: { search: 'kontor' } } }))).data.map((x) => x.id)).toContain(id);
    expect((await t.api.POST('/suppliers', { params: idem(), body: { name: 'x', bank_reg_number: '12' } })).error?.field).toBe('bank_reg_number');
    // Suppliers' CVR follows the same modulus 11 rule as customers' (one module), spaces removed.
    expect((await t.api.POST('/suppliers', { params: idem(), body: { name: 'x', cvr: '11223344' } })).error).toMatchObject({
      field: 'cvr',
      detail: expect.stringMatching(/modulus 11/),
    });
    expect((await t.api.PUT('/suppliers/{id}', { ...path(id), body: { cvr: '8765 4346' } })).data?.data.cvr).toBe('87654346');
    expect((await t.api.DELETE('/suppliers/{id}', path(id))).response.status).toBe(200);
    const kinds = (await testDb().prisma.outboxEvent.findMany({ where: { data: { path: ['id'], equals: id } }, orderBy: { sequence: 'asc' } })).map(
      (e) => e.type,
    );
    expect(kinds).toEqual(['supplier.created', 'supplier.updated', 'supplier.updated', 'supplier.deleted']);
  });

  let supplierId: string;
  beforeAll(async () => {
    supplierId = (await ok(t.api.POST('/suppliers', { params: idem(), body: { name: 'Rigtig Bank ApS' } }))).data.id;
  });

  it("checks bank details by the company profile's rules: an IBAN's mod-97 check digits and its country's length", async () => {
    for (const [field, value, rule] of [
      ['iban', 'DK5000400440116244', /check digits/],
      ['iban', 'DK500040044011624', /18 characters for DK/],
      ['bank_reg_number', '40', /4 digits/],
      ['bank_account_number', '12345678901', /up to 10 digits/],
    ] as const) {
      for (const r of [
        await t.api.POST('/suppliers', { params: idem(), body: { name: 'Forkert Bank ApS', [field]: value } }),
        await t.api.PUT('/suppliers/{id}', { ...path(supplierId), body: { [field]: value } }),
      ]) {
        expect(r.response.status, `${field}=${value}`).toBe(400);
        expect(r.response.headers.get('content-type')).toMatch(/application\/problem\+json/);
        expect(r.error?.errors).toEqual([expect.objectContaining({ field, message: expect.stringMatching(rule) })]);
      }
    }
    // The same normal form as the company's: spaces and dashes dropped, the IBAN upper-cased; null clears.
    const normal = await t.api.PUT('/suppliers/{id}', {
      ...path(supplierId),
      body: { bank_reg_number: '0 040', bank_account_number: '0440-116243', iban: 'gb29 nwbk 6016 1331 9268 19' },
    });
    expect(normal.data?.data).toMatchObject({ bank_reg_number: '0040', bank_account_number: '0440116243', iban: 'GB29NWBK60161331926819' });
    expect((await t.api.PUT('/suppliers/{id}', { ...path(supplierId), body: { iban: null } })).data?.data.iban).toBe('');
  });
});

describe('sandbox', () => {
  it('a test key works on an isolated sandbox company owned by the same user', async () => {
    const test = await t.newKey(undefined, 'test');
    expect(test.key).toMatch(/^tlr_test_[0-9a-f]{48}$/);
    expect(test.companyId).not.toBe(t.company.companyId);
    const sandbox = await testDb().prisma.company.findUniqueOrThrow({ where: { id: test.companyId } });
    const live = await testDb().prisma.company.findUniqueOrThrow({ where: { id: t.company.companyId } });
    expect(sandbox).toMatchObject({
      sandbox_of_id: live.id,
      owner_user_id: live.owner_user_id,
      currency: live.currency,
      vat_registered: live.vat_registered,
      fiscal_year_start_month: live.fiscal_year_start_month,
    });
    // a second test key shares the same sandbox
    expect((await t.company.key(['customers:read'], 'test')).company_id).toBe(test.companyId);

    const made = bodyOf(201, await test.api.POST('/customers', { params: idem(), body: { name: 'Sandkasse ApS' } })).data;
    expect((await t.api.GET('/customers/{id}', path(made.id))).response.status).toBe(404);
    expect((await ok(test.api.GET('/customers'))).data.map((x) => x.name)).toEqual(['Sandkasse ApS']);
    const [evt] = await events(test.companyId, 'customer.created', made.id);
    expect(evt?.livemode).toBe(false);
  });
});

describe('GET by id with its read in the authentication statement (decision 148)', () => {
  /** The statements the service sends on its pool while `run` runs (the audit log's batches left out). */
  async function statements<T>(run: () => Promise<T>): Promise<{ result: T; sent: number }> {
    const pool = t.svc.db.pool;
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
    const product = (
      await ok(t.api.POST('/products', { params: idem(), body: { name: 'Revision', unit_price: '12345.67', vat_rate: 25, product_number: 'R-148' } }))
    ).data;
    const customer = (await ok(t.api.POST('/customers', { params: idem(), body: { name: 'Ét Kald ApS', cvr: '12345690', payment_terms_days: 8 } }))).data;

    const got = await statements(() => t.api.GET('/products/{id}', path(product.id)));
    expect(got.result.response.status).toBe(200);
    // The row mapped by the same view as the create's answer: exact money, dates, every field.
    expect(got.result.data?.data).toEqual(product);
    expect(got.sent).toBe(1);
    expect(got.result.response.headers.get('X-RateLimit-Remaining')).toMatch(/^\d+$/);
    expect((await t.api.GET('/customers/{id}', path(customer.id))).data?.data).toEqual(customer);
    // The same id in capitals and with a trailing slash: the same row, still in one statement (the
    // untyped client: the typed one builds no trailing slash).
    const shouted = await statements(() => t.raw.get<{ data: Schemas['Customer'] }>(`/customers/${customer.id.toUpperCase()}/`));
    expect(shouted.result.body.data).toEqual(customer);
    expect(shouted.sent).toBe(1);

    // Another company's key: the read is scoped to the key's company, so the row is not found.
    const other = await t.another('Anden Læser ApS');
    const foreign = await statements(() => other.api.GET('/customers/{id}', path(customer.id)));
    expect(foreign.result.response.status).toBe(404);
    expect(foreign.result.error).toMatchObject({ code: 'not_found' });
    expect(foreign.sent).toBe(1);

    // Without the scope: 403, and the row read along is not shown.
    const writer = await t.newKey(['products:write']);
    const refused = await writer.api.GET('/products/{id}', path(product.id));
    expect(refused.response.status).toBe(403);
    expect(JSON.stringify(refused.error)).not.toContain('Revision');

    // A deleted row is not found; an invalid id is refused by the endpoint's rule, after authentication.
    await ok(t.api.DELETE('/customers/{id}', path(customer.id)));
    expect((await t.api.GET('/customers/{id}', path(customer.id))).response.status).toBe(404);
    const invalid = await statements(() => t.api.GET('/customers/{id}', path('not-a-uuid')));
    expect(invalid.result.response.status).toBe(400);
    expect(invalid.result.error).toMatchObject({ code: 'invalid_request', field: 'id' });
    expect(invalid.result.response.headers.get('X-RateLimit-Remaining')).toMatch(/^\d+$/);
    expect(invalid.sent).toBe(1);
  });

  it("an OAuth access token reads the same row in one statement too, and another company's row not at all", async () => {
    const app = await oauthClient(['products:read']);
    const pkce = pkcePair();
    const code = await approveCode(t.company, app, pkce.challenge);
    const exchange = { ...codeExchange(app, code, pkce.verifier), grant_type: 'authorization_code' as const };
    const token = bodyOf(200, await oauthApi(t.svc.url).POST('/oauth/token', { body: exchange }));
    const partner = api(t.svc.url, token.access_token);
    const product = (await ok(t.api.POST('/products', { params: idem(), body: { name: 'Bogføring', unit_price: '999.50' } }))).data;
    const got = await statements(() => partner.GET('/products/{id}', path(product.id)));
    expect(got.result.data?.data).toEqual(product);
    expect(got.sent).toBe(1);
    const other = await t.another('Tredje Part ApS');
    const theirs = (await ok(other.api.POST('/products', { params: idem(), body: { name: 'Deres', unit_price: '1.00' } }))).data;
    const foreign = await statements(() => partner.GET('/products/{id}', path(theirs.id)));
    expect(foreign.result.response.status).toBe(404);
    expect(foreign.sent).toBe(1);
  });
});
