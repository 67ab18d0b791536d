// Bank accounts through HTTP: create with the defaults (DKK, 6470 Bankkonto) and an
// Idempotency-Key, list with the contract's meta, get and partial update; the refusals by field, the one
// bank account per ledger account (409), scopes, isolation from other companies and the sandbox reset.
import { describe, expect, it } from 'vitest';
import { bodyOf, created, idem, ok, useCompany, type Api, type RequestBody } from './helpers.ts';

const t = useCompany({ name: 'Bankkonti ApS' });

type Create = RequestBody<'/bank-accounts', 'post'>;
const post = (c: Api, body: Create, key?: string) => c.POST('/bank-accounts', { params: idem(key), body });
const get = (c: Api, id: string) => c.GET('/bank-accounts/{id}', { params: { path: { id } } });
const put = (c: Api, id: string, body: RequestBody<'/bank-accounts/{id}', 'put'>) => c.PUT('/bank-accounts/{id}', { params: { path: { id } }, body });

const DRIFT = { name: 'Driftskonto', bank_reg_number: '0040', bank_account_number: '0440116243', iban: 'DK50 0040 0440 1162 43' };
let drift: { id: string; created_at: string };

describe('POST /bank-accounts', () => {
  it('creates with currency DKK on 6470 Bankkonto by default, and a replay answers the same without a second account', async () => {
    const key = 'bank-drift';
    const first = await post(t.api, DRIFT, key);
    const body = bodyOf(201, first).data;
    expect(body).toMatchObject({
      name: 'Driftskonto',
      bank_reg_number: '0040',
      bank_account_number: '0440116243',
      iban: 'DK5000400440116243',
      currency: 'DKK',
      account_number: '6470',
      opening_balance_date: null,
    });
    expect(body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(body.created_at).toBe(body.updated_at);
    drift = body;
    const again = await post(t.api, DRIFT, key);
    expect(again.response.status).toBe(201);
    expect(again.response.headers.get('X-Idempotency-Replayed')).toBe('true');
    expect(bodyOf(201, again).data).toEqual(body);
  });

  it('refuses a second bank account on a ledger account that backs one already: 409 conflict naming account_number', async () => {
    const r = await post(t.api, { name: 'Opsparing' });
    expect(r.response.status).toBe(409);
    expect(r.error).toMatchObject({ code: 'conflict', field: 'account_number' });
    expect(r.error?.detail).toContain('6470');
  });

  it('takes another asset account of the chart, a currency and an opening balance date', async () => {
    await created(t.api.POST('/accounts', { params: idem(), body: { account_number: '6471', name: 'Bankkonto EUR', type: 'asset' } }));
    const eur = (await created(post(t.api, { name: 'Valutakonto EUR', currency: 'EUR', account_number: '6471', opening_balance_date: '2026-01-01' }))).data;
    expect(eur).toMatchObject({ currency: 'EUR', account_number: '6471', opening_balance_date: '2026-01-01', iban: '', bank_reg_number: '' });
  });

  it('refuses what is not a bank account, naming the field, and creates nothing', async () => {
    const refused = async (body: object, field: string, detail: RegExp, headers: Record<string, string> = idem().header) => {
      const r = await t.raw.post('/bank-accounts', body, headers);
      expect(r.status, field).toBe(400);
      expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(r.body, field).toMatchObject({ code: 'invalid_request', status: 400, field });
      expect(r.body.detail, field).toMatch(detail);
    };
    await refused({ name: 'Forkert IBAN', iban: 'DK5100400440116243' }, 'iban', /check digits/);
    await refused({ name: 'Kort regnr', bank_reg_number: '040', bank_account_number: '123' }, 'bank_reg_number', /4 digits/);
    await refused({ name: 'Langt kontonr', bank_reg_number: '0040', bank_account_number: '12345678901' }, 'bank_account_number', /up to 10 digits/);
    await refused({ name: 'Regnr alene', bank_reg_number: '0040' }, 'bank_account_number', /needs its bank_account_number/);
    await refused({ ...DRIFT, bank_account_number: '440116244' }, 'iban', /is not that of 0040 440116244/);
    await refused({ name: 'Omsætning', account_number: '1010' }, 'account_number', /revenue account/);
    await refused({ name: 'Ukendt', account_number: '9999999' }, 'account_number', /No account 9999999/);
    const closed = (await created(t.api.POST('/accounts', { params: idem(), body: { account_number: '6472', name: 'Lukket bank', type: 'asset' } }))).data;
    await ok(t.api.PUT('/accounts/{id}', { params: { path: { id: closed.id } }, body: { active: false } }));
    await refused({ name: 'Lukket', account_number: '6472' }, 'account_number', /deactivated/);
    await refused({ name: 'Valuta', currency: 'XYZ' }, 'currency', /XYZ is not one/);
    await refused({ name: ' ' }, 'name', /must not be empty/);
    await refused({ name: 'Uden nøgle' }, 'Idempotency-Key', /Idempotency-Key/, {});
    expect((await ok(t.api.GET('/bank-accounts'))).meta.total).toBe(2);
  });
});

describe('GET and PUT /bank-accounts', () => {
  it('lists with the contract meta, sorted by name, searched and paged', async () => {
    const all = await ok(t.api.GET('/bank-accounts'));
    expect(all.meta).toEqual({ page: 1, per_page: 50, total: 2, total_pages: 1 });
    expect(all.data.map((b) => b.name)).toEqual(['Valutakonto EUR', 'Driftskonto']);
    const asc = await ok(t.api.GET('/bank-accounts', { params: { query: { sort: 'created_at', order: 'asc', per_page: 1 } } }));
    expect([asc.data.map((b) => b.name), asc.meta]).toEqual([['Driftskonto'], { page: 1, per_page: 1, total: 2, total_pages: 2 }]);
    expect((await ok(t.api.GET('/bank-accounts', { params: { query: { search: 'dk500040' } } }))).data.map((b) => b.id)).toEqual([drift.id]);
    expect((await t.raw.get('/bank-accounts?sort=iban')).body).toMatchObject({ code: 'invalid_request', field: 'sort' });
  });

  it('gets one, and updates only the fields sent', async () => {
    expect((await ok(get(t.api, drift.id))).data).toMatchObject({ id: drift.id, name: 'Driftskonto', account_number: '6470' });
    const renamed = (await ok(put(t.api, drift.id, { name: 'Driftskonto Danske Bank', opening_balance_date: '2026-01-01' }))).data;
    expect(renamed).toMatchObject({ name: 'Driftskonto Danske Bank', opening_balance_date: '2026-01-01', iban: 'DK5000400440116243', account_number: '6470' });
    expect((await ok(put(t.api, drift.id, { opening_balance_date: null }))).data.opening_balance_date).toBeNull();
    // Keeping its own ledger account is no conflict; taking another bank account's is.
    expect((await ok(put(t.api, drift.id, { account_number: '6470' }))).data.account_number).toBe('6470');
    const taken = await put(t.api, drift.id, { account_number: '6471' });
    expect(taken.response.status).toBe(409);
    expect(taken.error).toMatchObject({ code: 'conflict', field: 'account_number' });
    // The details are checked as a whole: clearing the account number alone leaves a reg. number without it.
    const half = await put(t.api, drift.id, { bank_account_number: null });
    expect(half.response.status).toBe(400);
    expect(half.error).toMatchObject({ code: 'invalid_request', field: 'bank_account_number' });
    const bad = await t.raw.put(`/bank-accounts/${drift.id}`, { account_number: '1010' });
    expect(bad.body).toMatchObject({ status: 400, code: 'invalid_request', field: 'account_number' });
    expect((await ok(get(t.api, drift.id))).data).toMatchObject({ name: 'Driftskonto Danske Bank', bank_account_number: '0440116243', account_number: '6470' });
  });

  it("answers 404 for another company's bank account and never lists it", async () => {
    const b = await t.another();
    expect((await ok(b.api.GET('/bank-accounts'))).meta.total).toBe(0);
    expect((await get(b.api, drift.id)).response.status).toBe(404);
    const r = await put(b.api, drift.id, { name: 'Overtaget' });
    expect(r.response.status).toBe(404);
    expect(r.error).toMatchObject({ code: 'not_found' });
    // Its own 6470 is free: the one-per-ledger-account rule is per company.
    expect((await created(post(b.api, { name: 'Driftskonto' }))).data.account_number).toBe('6470');
    expect((await ok(get(t.api, drift.id))).data.name).toBe('Driftskonto Danske Bank');
  });

  it('needs transactions:read to read and transactions:write to create or update', async () => {
    const reader = await t.newKey(['transactions:read']);
    expect((await ok(reader.api.GET('/bank-accounts'))).meta.total).toBe(2);
    expect((await ok(get(reader.api, drift.id))).data.id).toBe(drift.id);
    const r = await post(reader.api, { name: 'Ny konto' });
    expect(r.response.status).toBe(403);
    expect(r.error).toMatchObject({ code: 'forbidden' });
    expect(r.error?.detail).toContain('transactions:write');
    expect((await put(reader.api, drift.id, { name: 'Ny' })).response.status).toBe(403);
    const other = await t.newKey(['customers:read']);
    expect((await other.api.GET('/bank-accounts')).response.status).toBe(403);
  });

  it('a sandbox has bank accounts of its own, which a reset removes', async () => {
    const sb = await t.newKey(undefined, 'test');
    expect((await ok(sb.api.GET('/bank-accounts'))).meta.total).toBe(0);
    await created(post(sb.api, { name: 'Test bank' }));
    expect((await ok(sb.api.GET('/bank-accounts'))).meta.total).toBe(1);
    expect((await sb.api.POST('/sandbox/reset')).response.status).toBe(200);
    expect((await ok(sb.api.GET('/bank-accounts'))).meta.total).toBe(0);
    // The reset seeded the chart again: 6470 backs a new bank account.
    await created(post(sb.api, { name: 'Test bank' }));
    expect((await ok(t.api.GET('/bank-accounts'))).meta.total).toBe(2);
  });
});

describe('bank accounts at once', () => {
  it('two creates on one free ledger account make one bank account and one 409; two moves onto one make one', async () => {
    for (const n of ['6496', '6497', '6498'])
      await created(t.api.POST('/accounts', { params: idem(), body: { account_number: n, name: `Bank ${n}`, type: 'asset' } }));
    const both = await Promise.all([post(t.api, { name: 'Samtidig A', account_number: '6496' }), post(t.api, { name: 'Samtidig B', account_number: '6496' })]);
    expect(both.map((r) => r.response.status).sort()).toEqual([201, 409]);
    const onFirst = (await ok(t.api.GET('/bank-accounts', { params: { query: { search: 'Samtidig' } } }))).data;
    expect(onFirst.map((b) => b.account_number)).toEqual(['6496']);
    const other = (await created(post(t.api, { name: 'Flytter', account_number: '6497' }))).data;
    const moves = await Promise.all([put(t.api, onFirst[0]!.id, { account_number: '6498' }), put(t.api, other.id, { account_number: '6498' })]);
    expect(moves.map((r) => r.response.status).sort()).toEqual([200, 409]);
  });
});
