// Customers' and suppliers' EU VAT number (momsregistreringsnummer, decisions 198 and 199) through HTTP:
// checked for its country's format on create and update, stored normalised, answered and searched.
import { describe, expect, it } from 'vitest';
import { bodyOf, idem, ok, testDb, useCompany } from './helpers.ts';

const t = useCompany();
const path = (id: string) => ({ params: { path: { id } } });

/** The data of the outbox events about `id`, oldest first. */
const eventData = async (id: string) =>
  (
    await testDb().prisma.outboxEvent.findMany({
      where: { company_id: t.company.companyId, data: { path: ['id'], equals: id } },
      orderBy: { sequence: 'asc' },
    })
  ).map((e) => ({ type: e.type, data: e.data as Record<string, unknown> }));

// As people type them, and as they are stored: Germany, Sweden, Denmark (a CVR passing modulus 11), Greece.
const VALID = [
  ['de 136 695 976', 'DE136695976'],
  ['SE 5561888404-01', 'SE556188840401'],
  ['dk 29.19.09.25', 'DK29190925'],
  ['el094259216', 'EL094259216'],
] as const;

const INVALID = [
  ['DK12345678', /^vat_number: has a wrong check digit \(not a valid CVR number by the modulus 11 rule/],
  ['DE12345678', /^vat_number: must be DE and 9 digits for Germany, such as DE123456789$/],
  ['GB123456789', /^vat_number: has the prefix GB, which is not an EU VAT number's/],
] as const;

describe('vat_number on customers', () => {
  it('is stored normalised, answered on get and list and in the events', async () => {
    for (const [typed, stored] of VALID) {
      const customer = bodyOf(201, await t.api.POST('/customers', { params: idem(), body: { name: `Kunde ${stored}`, vat_number: typed } })).data;
      expect(customer.vat_number).toBe(stored);
      expect((await ok(t.api.GET('/customers/{id}', path(customer.id)))).data.vat_number).toBe(stored);
      expect((await eventData(customer.id)).at(-1)).toMatchObject({ type: 'customer.created', data: { vat_number: stored } });
    }
    const listed = (await ok(t.api.GET('/customers', { params: { query: { search: 'Kunde DK29190925' } } }))).data;
    expect(listed.map((c) => c.vat_number)).toEqual(['DK29190925']);
    // Left out, empty or null: none, as for cvr.
    for (const body of [{}, { vat_number: '' }, { vat_number: null }]) {
      expect((await ok(t.api.POST('/customers', { params: idem(), body: { name: 'Uden moms-nr.', ...body } }))).data.vat_number).toBe('');
    }
  });

  it('refuses a wrong check digit, a wrong length and a non-EU prefix on create and update, naming vat_number', async () => {
    const id = (await ok(t.api.POST('/customers', { params: idem(), body: { name: 'Ret mig ApS', vat_number: 'DE136695976' } }))).data.id;
    for (const [value, detail] of INVALID) {
      for (const r of [
        await t.raw.post('/customers', { name: 'Forkert ApS', vat_number: value }),
        await t.raw.put(`/customers/${id}`, { vat_number: value }),
      ]) {
        expect(r.status, value).toBe(400);
        expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        expect(r.body).toMatchObject({ status: 400, code: 'invalid_request', field: 'vat_number', detail: expect.stringMatching(detail) });
      }
    }
    // Nothing of the refused updates was stored.
    expect((await ok(t.api.GET('/customers/{id}', path(id)))).data.vat_number).toBe('DE136695976');
  });

  it('updates, normalised, and clears with null', async () => {
    const id = (await ok(t.api.POST('/customers', { params: idem(), body: { name: 'Flytter ApS' } }))).data.id;
    const updated = (await ok(t.api.PUT('/customers/{id}', { ...path(id), body: { vat_number: 'nl 0044.95.445 b01' } }))).data;
    expect(updated.vat_number).toBe('NL004495445B01');
    expect((await eventData(id)).at(-1)).toMatchObject({ type: 'customer.updated', data: { vat_number: 'NL004495445B01' } });
    // Another field's update keeps it.
    expect((await ok(t.api.PUT('/customers/{id}', { ...path(id), body: { city: 'Odense' } }))).data.vat_number).toBe('NL004495445B01');
    expect((await ok(t.api.PUT('/customers/{id}', { ...path(id), body: { vat_number: null } }))).data.vat_number).toBe('');
  });
});

describe('vat_number on suppliers', () => {
  it('is stored normalised, answered and searchable in the list as the CVR is', async () => {
    const ids: string[] = [];
    for (const [typed, stored] of VALID) {
      const supplier = bodyOf(201, await t.api.POST('/suppliers', { params: idem(), body: { name: `Leverandør ${typed}`, vat_number: typed } })).data;
      expect(supplier.vat_number).toBe(stored);
      expect((await ok(t.api.GET('/suppliers/{id}', path(supplier.id)))).data.vat_number).toBe(stored);
      expect((await eventData(supplier.id)).at(-1)).toMatchObject({ type: 'supplier.created', data: { vat_number: stored } });
      ids.push(supplier.id);
    }
    // The Swedish supplier's name holds the number as typed, with spaces; the search finds the stored form.
    const found = (await ok(t.api.GET('/suppliers', { params: { query: { search: 'se55618884' } } }))).data;
    expect(found.map((s) => s.id)).toEqual([ids[1]]);
    expect(found[0]).toMatchObject({ vat_number: 'SE556188840401' });
  });

  it('refuses a wrong check digit, a wrong length and a non-EU prefix on create and update, naming vat_number', async () => {
    const id = (await ok(t.api.POST('/suppliers', { params: idem(), body: { name: 'Ret mig A/S' } }))).data.id;
    for (const [value, detail] of INVALID) {
      for (const r of [
        await t.raw.post('/suppliers', { name: 'Forkert A/S', vat_number: value }),
        await t.raw.put(`/suppliers/${id}`, { vat_number: value }),
      ]) {
        expect(r.status, value).toBe(400);
        expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        expect(r.body).toMatchObject({ status: 400, code: 'invalid_request', field: 'vat_number', detail: expect.stringMatching(detail) });
      }
    }
    const updated = (await ok(t.api.PUT('/suppliers/{id}', { ...path(id), body: { vat_number: 'atu 13585627' } }))).data;
    expect(updated.vat_number).toBe('ATU13585627');
    expect((await eventData(id)).at(-1)).toMatchObject({ type: 'supplier.updated', data: { vat_number: 'ATU13585627' } });
  });
});
