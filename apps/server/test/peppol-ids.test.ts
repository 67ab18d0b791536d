// Peppol participant identifiers (decisions 204 to 206) through HTTP: customers' and suppliers' peppol_id
// checked by its scheme's rule on create and update, stored normalised, answered, searched and looked up;
// the company's own in its settings.
import { describe, expect, it } from 'vitest';
import { bodyOf, idem, ok, testDb, useCompany } from './helpers.ts';

const t = useCompany();
const path = (id: string) => ({ params: { path: { id } } });

/** The type and data of the latest outbox event about `id`, of this file's company unless another is given. */
const lastEvent = async (id: string, companyId = t.company.companyId) => {
  const e = await testDb().prisma.outboxEvent.findFirst({
    where: { company_id: companyId, data: { path: ['id'], equals: id } },
    orderBy: { sequence: 'desc' },
  });
  return { type: e?.type, data: e?.data as Record<string, unknown> };
};

// As people type them, and as they are stored: a CVR, a GLN with the SML's prefix, an SE number, a German VAT number.
const VALID = [
  ['0184:2919 0925', '0184:29190925'],
  ['iso6523-actorid-upis::0088:5790000436101', '0088:5790000436101'],
  ['0198:dk12345674', '0198:DK12345674'],
  ['9930:de136695976', '9930:DE136695976'],
] as const;

// One refusal per rule, each naming it.
const INVALID = [
  ['0088:5790000436102', /^peppol_id: has a wrong check digit \(not a valid GLN by the GS1 check digit rule/],
  ['0184:12345678', /^peppol_id: has a wrong check digit \(not a valid CVR number by the modulus 11 rule/],
  ['0198:DK12345678', /^peppol_id: has a wrong check digit \(not a valid SE number by the modulus 11 rule/],
  ['0192:974760674', /^peppol_id: has a wrong check digit \(not a valid Norwegian organisasjonsnummer/],
  ['0096:123', /^peppol_id: must be 0096: and 10 digits for a Danish P-number, such as 0096:1012345678$/],
  ['9902:12345674', /^peppol_id: has the scheme 9902, which is not in Peppol's list of electronic address schemes/],
  ['12345674', /^peppol_id: must be a Peppol participant identifier: a 4-digit scheme, a colon and the id/],
] as const;

describe('peppol_id on customers', () => {
  it('is stored normalised, answered on get and list and in the events', async () => {
    for (const [typed, stored] of VALID) {
      const customer = bodyOf(201, await t.api.POST('/customers', { params: idem(), body: { name: `Kunde ${stored}`, peppol_id: typed } })).data;
      expect(customer.peppol_id).toBe(stored);
      expect((await ok(t.api.GET('/customers/{id}', path(customer.id)))).data.peppol_id).toBe(stored);
      expect(await lastEvent(customer.id)).toMatchObject({ type: 'customer.created', data: { peppol_id: stored } });
    }
    const listed = (await ok(t.api.GET('/customers', { params: { query: { search: 'Kunde 0088:5790000436101' } } }))).data;
    expect(listed.map((c) => c.peppol_id)).toEqual(['0088:5790000436101']);
    // Left out, empty or null: none, as for cvr.
    for (const body of [{}, { peppol_id: '' }, { peppol_id: null }]) {
      expect((await ok(t.api.POST('/customers', { params: idem(), body: { name: 'Uden Peppol', ...body } }))).data.peppol_id).toBe('');
    }
  });

  it('refuses a wrong check digit, a wrong format, an unknown scheme and a missing colon on create and update, naming peppol_id', async () => {
    const id = (await ok(t.api.POST('/customers', { params: idem(), body: { name: 'Ret mig ApS', peppol_id: '0184:29190925' } }))).data.id;
    for (const [value, detail] of INVALID) {
      for (const r of [await t.raw.post('/customers', { name: 'Forkert ApS', peppol_id: value }), await t.raw.put(`/customers/${id}`, { peppol_id: value })]) {
        expect(r.status, value).toBe(400);
        expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        expect(r.body).toMatchObject({ status: 400, code: 'invalid_request', field: 'peppol_id', detail: expect.stringMatching(detail) });
      }
    }
    expect((await ok(t.api.GET('/customers/{id}', path(id)))).data.peppol_id).toBe('0184:29190925');
  });

  it('updates, normalised, keeps it through another field, and clears it with null', async () => {
    const id = (await ok(t.api.POST('/customers', { params: idem(), body: { name: 'Flytter ApS' } }))).data.id;
    expect((await ok(t.api.PUT('/customers/{id}', { ...path(id), body: { peppol_id: '0208:0403170701' } }))).data.peppol_id).toBe('0208:0403170701');
    expect(await lastEvent(id)).toMatchObject({ type: 'customer.updated', data: { peppol_id: '0208:0403170701' } });
    expect((await ok(t.api.PUT('/customers/{id}', { ...path(id), body: { city: 'Odense' } }))).data.peppol_id).toBe('0208:0403170701');
    expect((await ok(t.api.PUT('/customers/{id}', { ...path(id), body: { peppol_id: null } }))).data.peppol_id).toBe('');
  });

  it('is a lookup key as the CVR is: normalised, checked, and one of q', async () => {
    const other = await t.another('Opslag ApS');
    const id = (await ok(other.api.POST('/customers', { params: idem(), body: { name: 'Region', peppol_id: '0088:5798000000001' } }))).data.id;
    const lookup = (query: { peppol_id?: string; cvr?: string; q?: string }) => other.api.GET('/customers/lookup', { params: { query } });
    for (const query of [{ peppol_id: '0088:5798000000001' }, { peppol_id: 'iso6523-actorid-upis::0088:5798 0000 0000 1' }, { q: '0088:5798000000001' }]) {
      const found = await lookup(query);
      expect(found.response.status, JSON.stringify(query)).toBe(200);
      expect(found.data?.data).toMatchObject({ id, peppol_id: '0088:5798000000001' });
    }
    const missing = await lookup({ peppol_id: '0184:29190925' });
    expect(missing.response.status).toBe(404);
    expect(missing.error?.code).toBe('not_found');
    // Checked as on the customer; with another criterion it is one too many.
    expect((await lookup({ peppol_id: '0088:5798000000008' })).error).toMatchObject({ status: 400, field: 'peppol_id', detail: expect.stringMatching(/GS1/) });
    expect((await lookup({ peppol_id: '0088:5798000000001', cvr: '29190925' })).response.status).toBe(400);
    // Another company's customer is not found by it.
    expect((await t.api.GET('/customers/lookup', { params: { query: { peppol_id: '0088:5798000000001' } } })).response.status).toBe(404);
  });
});

describe('peppol_id on suppliers', () => {
  it('is stored normalised, answered, and searchable in the list as the CVR is', async () => {
    const other = await t.another('Indkøb ApS');
    const ids: string[] = [];
    for (const [typed, stored] of VALID) {
      const supplier = bodyOf(201, await other.api.POST('/suppliers', { params: idem(), body: { name: `Leverandør ${ids.length}`, peppol_id: typed } })).data;
      expect(supplier.peppol_id).toBe(stored);
      expect((await ok(other.api.GET('/suppliers/{id}', path(supplier.id)))).data.peppol_id).toBe(stored);
      expect(await lastEvent(supplier.id, other.company.companyId)).toMatchObject({ type: 'supplier.created', data: { peppol_id: stored } });
      ids.push(supplier.id);
    }
    const found = (await ok(other.api.GET('/suppliers', { params: { query: { search: '5790000436101' } } }))).data;
    expect(found.map((s) => s.id)).toEqual([ids[1]]);
  });

  it('refuses what breaks its scheme on create and update, naming peppol_id', async () => {
    const id = (await ok(t.api.POST('/suppliers', { params: idem(), body: { name: 'Ret mig A/S' } }))).data.id;
    for (const [value, detail] of INVALID) {
      for (const r of [await t.raw.post('/suppliers', { name: 'Forkert A/S', peppol_id: value }), await t.raw.put(`/suppliers/${id}`, { peppol_id: value })]) {
        expect(r.status, value).toBe(400);
        expect(r.body).toMatchObject({ status: 400, code: 'invalid_request', field: 'peppol_id', detail: expect.stringMatching(detail) });
      }
    }
    const updated = (await ok(t.api.PUT('/suppliers/{id}', { ...path(id), body: { peppol_id: '0007:2120000787' } }))).data;
    expect(updated.peppol_id).toBe('0007:2120000787');
    expect(await lastEvent(id)).toMatchObject({ type: 'supplier.updated', data: { peppol_id: '0007:2120000787' } });
  });
});

describe("the company's own peppol_id in /settings/company", () => {
  it('is "" until set, then stored normalised and answered back, mirrored to the sandbox, and "" removes it', async () => {
    const c = (await t.newKey()).api;
    const sandbox = (await t.newKey(undefined, 'test')).api;
    expect((await ok(c.GET('/settings/company'))).data.peppol_id).toBe('');
    const put = (await ok(c.PUT('/settings/company', { body: { peppol_id: '0198:dk29190925' } }))).data;
    expect(put.peppol_id).toBe('0198:DK29190925');
    expect(await ok(c.GET('/settings/company'))).toEqual({ data: put });
    // The sandbox prints the seller of its live company (decision 156), this too.
    expect((await ok(sandbox.GET('/settings/company'))).data.peppol_id).toBe('0198:DK29190925');
    // Another field's change keeps it; "" removes it.
    expect((await ok(c.PUT('/settings/company', { body: { city: 'Vejle' } }))).data.peppol_id).toBe('0198:DK29190925');
    expect((await ok(c.PUT('/settings/company', { body: { peppol_id: '' } }))).data.peppol_id).toBe('');
  });

  it('refuses a wrong one by its rule, naming peppol_id, and changes nothing', async () => {
    const before = (await ok(t.api.GET('/settings/company'))).data;
    for (const [value, detail] of INVALID) {
      const r = await t.raw.put('/settings/company', { city: 'Odense', peppol_id: value });
      expect(r.status, value).toBe(400);
      expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(r.body).toMatchObject({ status: 400, code: 'invalid_request', field: 'peppol_id', detail: expect.stringMatching(detail) });
    }
    expect((await ok(t.api.GET('/settings/company'))).data).toEqual(before);
  });
});
