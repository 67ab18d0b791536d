// Foreign currency through HTTP: the company's exchange-rate table (PUT and GET
// /exchange-rates) with its refusals, scopes and isolation, the rate lookup documents will use (rateOn),
// and manual transactions whose lines carry currency, currency_amount and exchange_rate (bogføringsloven
// § 15) through the view, the list, a reversal and a SAF-T file that validates.
import { describe, expect, it } from 'vitest';
import { rateOn, today as businessDay } from '@tlr/domain';
import { bodyOf, created, idem, ok, testDb, useCompany, type Api, type RequestBody, type RequestQuery } from './helpers.ts';
import { validateSaft } from './saft-schema.ts';

const t = useCompany({ name: 'Valuta Handel ApS' });
const today = businessDay();

type Rate = RequestBody<'/exchange-rates', 'put'>['rates'][number];
const put = (c: Api, rates: Rate[]) => c.PUT('/exchange-rates', { body: { rates } });
const list = (c: Api, query: RequestQuery<'/exchange-rates'> = {}) => c.GET('/exchange-rates', { params: { query } });

describe('PUT /exchange-rates', () => {
  it('stores rates per 1 unit, answers them in the order given, and a repeat answers the same', async () => {
    const rates: Rate[] = [
      { currency: 'EUR', date: '2026-11-26', rate: 7.4612 },
      { currency: 'USD', date: '2026-11-26', rate: '6.453' },
      { currency: 'EUR', date: '2026-11-25', rate: '7.461000' },
      { currency: 'IDR', date: '2026-11-26', rate: 0.000376 },
    ];
    const r = await put(t.api, rates);
    expect(r.response.status).toBe(200);
    const stored = bodyOf(200, r).data;
    expect(stored.map((x) => [x.currency, x.date, x.rate, x.source])).toEqual([
      ['EUR', '2026-11-26', 7.4612, 'api'],
      ['USD', '2026-11-26', 6.453, 'api'],
      ['EUR', '2026-11-25', 7.461, 'api'],
      ['IDR', '2026-11-26', 0.000376, 'api'],
    ]);
    // PUT is idempotent by nature: no Idempotency-Key, and the same rates again change nothing, not even updated_at.
    expect((await ok(put(t.api, rates))).data).toEqual(stored);
    // A new rate for a date the company has overwrites it.
    const changed = (await ok(put(t.api, [{ currency: 'EUR', date: '2026-11-26', rate: '7.4615' }]))).data[0]!;
    expect(changed).toMatchObject({ id: stored[0]!.id, rate: 7.4615, created_at: stored[0]!.created_at });
    expect(Date.parse(changed.updated_at)).toBeGreaterThanOrEqual(Date.parse(stored[0]!.updated_at));
  });

  it('lists with the contract meta, sorted by date (newest first), filtered by currency and date', async () => {
    const all = await ok(list(t.api));
    expect(all.meta).toEqual({ page: 1, per_page: 50, total: 4, total_pages: 1 });
    expect(all.data.map((x) => x.date)).toEqual(['2026-11-26', '2026-11-26', '2026-11-26', '2026-11-25']);
    const eur = await ok(list(t.api, { currency: 'EUR', order: 'asc' }));
    expect(eur.data.map((x) => [x.date, x.rate])).toEqual([
      ['2026-11-25', 7.461],
      ['2026-11-26', 7.4615],
    ]);
    expect((await ok(list(t.api, { until: '2026-11-25' }))).data.map((x) => x.currency)).toEqual(['EUR']);
    expect((await ok(list(t.api, { since: '2026-11-26', sort: 'currency', order: 'asc' }))).data.map((x) => x.currency)).toEqual(['EUR', 'IDR', 'USD']);
    expect((await ok(list(t.api, { per_page: 3, page: 2 }))).meta).toEqual({ page: 2, per_page: 3, total: 4, total_pages: 2 });
    const bad = await t.raw.get('/exchange-rates?currency=eur');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'invalid_request', field: 'currency' });
  });

  it('refuses what is not a rate, naming the field, and stores none of the batch', async () => {
    const refused = async (rates: unknown[], field: string, detail: RegExp) => {
      const r = await t.raw.put('/exchange-rates', { rates });
      expect(r.status, field).toBe(400);
      expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(r.body, field).toMatchObject({ code: 'invalid_request', status: 400, field });
      expect(r.body.detail, field).toMatch(detail);
    };
    const ok1 = { currency: 'SEK', date: '2026-11-20', rate: 0.685 };
    await refused([ok1, { currency: 'XYZ', date: '2026-11-20', rate: 1 }], 'rates[1].currency', /XYZ is not one/);
    await refused([{ currency: 'eur', date: '2026-11-20', rate: 1 }], 'rates[0].currency', /three upper-case letters/);
    await refused([ok1, { currency: 'NOK', date: '2026-11-20', rate: 0 }], 'rates[1].rate', /must be greater than 0/);
    await refused([{ currency: 'NOK', date: '2026-11-20', rate: '-0.63' }], 'rates[0].rate', /must be greater than 0/);
    await refused([{ currency: 'NOK', date: '2026-11-20', rate: '0.6312345' }], 'rates[0].rate', /at most 6 decimals/);
    await refused([{ currency: 'NOK', date: '2026-11-31', rate: 0.63 }], 'rates[0].date', /.+/);
    await refused([ok1, { ...ok1, rate: 0.686 }], 'rates[1]', /SEK on 2026-11-20 is given twice, in rates\[0\] and rates\[1\]/);
    await refused([ok1, { currency: 'DKK', date: '2026-11-20', rate: 1 }], 'rates[1].currency', /its rate is always 1/);
    const many = Array.from({ length: 1001 }, (_, i) => ({ currency: 'SEK', date: `2026-01-01`, rate: 0.6 + i / 1e6 }));
    await refused(many, 'rates', /at most 1000/);
    await refused([], 'rates', /at least 1/);
    expect((await ok(list(t.api, { currency: 'SEK' }))).meta.total).toBe(0);
    // 1000 is allowed: a month of Nationalbanken's currencies fits in one call.
    const thousand = Array.from({ length: 1000 }, (_, i) => ({
      currency: 'SEK',
      date: new Date(Date.UTC(2020, 0, 1 + i)).toISOString().slice(0, 10),
      rate: 0.7,
    }));
    expect((await ok(put(t.api, thousand))).data).toHaveLength(1000);
  });

  it('needs transactions:write to store and transactions:read to list', async () => {
    const reader = await t.newKey(['transactions:read']);
    const r = await put(reader.api, [{ currency: 'EUR', date: '2026-11-26', rate: 7 }]);
    expect(r.response.status).toBe(403);
    expect(r.error).toMatchObject({ code: 'forbidden' });
    expect(r.error?.detail).toContain('transactions:write');
    expect((await ok(list(reader.api, { currency: 'EUR' }))).data.map((x) => x.rate)).toEqual([7.4615, 7.461]);
    const other = await t.newKey(['customers:read']);
    expect((await list(other.api)).response.status).toBe(403);
  });

  it("never shows another company's rates, nor lets it change ours", async () => {
    const b = await t.another();
    expect((await ok(list(b.api))).meta.total).toBe(0);
    await ok(put(b.api, [{ currency: 'EUR', date: '2026-11-26', rate: 9 }]));
    expect((await ok(list(b.api))).data.map((x) => x.rate)).toEqual([9]);
    expect((await ok(list(t.api, { currency: 'EUR', since: '2026-11-26' }))).data.map((x) => x.rate)).toEqual([7.4615]);
    const scope = { companyId: b.company.companyId, livemode: true };
    expect((await rateOn(testDb().prisma, scope, 'EUR', '2026-11-27')).rate.toFixed()).toBe('9');
    await expect(rateOn(testDb().prisma, scope, 'USD', '2026-11-27')).rejects.toMatchObject({
      code: 'exchange_rate_missing',
      status: 422,
      field: 'exchange_rate',
    });
  });

  it('a sandbox has its own table, which a reset empties', async () => {
    const sb = await t.newKey(undefined, 'test');
    expect((await ok(list(sb.api))).meta.total).toBe(0);
    await ok(put(sb.api, [{ currency: 'EUR', date: '2026-11-26', rate: 7.5 }]));
    expect((await ok(list(sb.api))).meta.total).toBe(1);
    expect((await sb.api.POST('/sandbox/reset')).response.status).toBe(200);
    expect((await ok(list(sb.api))).meta.total).toBe(0);
    expect((await ok(list(t.api, { currency: 'EUR', since: '2026-11-26' }))).data.map((x) => x.rate)).toEqual([7.4615]);
  });
});

describe('rateOn: the rate of a document date', () => {
  const scope = () => ({ companyId: t.company.companyId, livemode: true });
  const on = async (currency: string, date: string) => {
    const r = await rateOn(testDb().prisma, scope(), currency, date);
    return `${r.rate.toFixed()} of ${r.date}`;
  };

  it('is the latest rate on that day or in the 7 days before it (weekends, Easter), DKK always 1', async () => {
    await ok(
      put(t.api, [
        { currency: 'GBP', date: '2026-03-25', rate: 8.6 }, // the Wednesday before Easter 2026
        { currency: 'GBP', date: '2026-03-31', rate: 8.7 }, // the Tuesday after
      ]),
    );
    expect(await on('GBP', '2026-03-25')).toBe('8.6 of 2026-03-25');
    expect(await on('GBP', '2026-03-30')).toBe('8.6 of 2026-03-25'); // Easter Monday
    expect(await on('GBP', '2026-04-01')).toBe('8.7 of 2026-03-31');
    expect(await on('GBP', '2026-04-07')).toBe('8.7 of 2026-03-31');
    expect(await on('DKK', '1999-01-01')).toBe('1 of 1999-01-01');
  });

  it('is missing before the first rate and more than 7 days after the last: 422 exchange_rate_missing naming exchange_rate', async () => {
    for (const date of ['2026-03-24', '2026-04-08']) {
      await expect(rateOn(testDb().prisma, scope(), 'GBP', date)).rejects.toMatchObject({
        code: 'exchange_rate_missing',
        status: 422,
        field: 'exchange_rate',
        message: expect.stringContaining('no GBP rate'),
      });
    }
  });
});

type Line = RequestBody<'/transactions', 'post'>['lines'][number];
const postLines = (lines: Line[]) => t.api.POST('/transactions', { params: idem(), body: { date: today, description: 'Varekøb i EUR', lines } });
const eurLine: Line = { account_number: '1630', debit: 746.12, currency: 'EUR', currency_amount: 100, exchange_rate: 7.4612 };

describe('a manual transaction in foreign currency', () => {
  it('keeps currency, currency_amount and exchange_rate per line through the view, the list and a reversal; DKK lines show null', async () => {
    const posted = (await created(postLines([eurLine, { account_number: '6470', credit: '746.12' }]))).data;
    const foreign = { currency: 'EUR', currency_amount: 100, exchange_rate: 7.4612 };
    const dkk = { currency: null, currency_amount: null, exchange_rate: null };
    expect(posted.lines).toEqual([
      expect.objectContaining({ account_number: '1630', debit: 746.12, credit: 0, ...foreign }),
      expect.objectContaining({ account_number: '6470', debit: 0, credit: 746.12, ...dkk }),
    ]);
    expect((await ok(t.api.GET('/transactions/{id}', { params: { path: { id: posted.id } } }))).data).toEqual(posted);
    const listed = (await ok(t.api.GET('/transactions', { params: { query: { search: 'Varekøb i EUR' } } }))).data;
    expect(listed.find((x) => x.id === posted.id)?.lines).toEqual(posted.lines);
    const reversal = (await created(t.api.POST('/transactions/{id}/reverse', { params: { path: { id: posted.id }, ...idem() }, body: {} }))).data;
    expect(reversal.lines).toEqual([
      expect.objectContaining({ account_number: '1630', debit: 0, credit: 746.12, ...foreign }),
      expect.objectContaining({ account_number: '6470', debit: 746.12, credit: 0, ...dkk }),
    ]);
  });

  it('refuses a DKK amount that is not currency_amount × exchange_rate rounded to øre, and a line with one or two of the three, naming the field', async () => {
    const refused = async (lines: Line[], field: string, detail: RegExp) => {
      const r = await postLines(lines);
      expect(r.response.status, field).toBe(400);
      expect(r.error, field).toMatchObject({ code: 'invalid_request', field });
      expect(r.error?.detail, field).toMatch(detail);
    };
    const bank = (amount: number): Line => ({ account_number: '6470', credit: amount });
    await refused([{ ...eurLine, debit: 746.13 }, bank(746.13)], 'lines[0].debit', /100\.00 EUR × 7\.4612 = 746\.12 DKK, not 746\.13/);
    // Half up: 0.05 × 7.45 = 0.3725 is 0.37; 10.01 × 0.5 = 5.005 is 5.01, not 5.00.
    await refused([{ ...eurLine, debit: 5, currency_amount: 10.01, exchange_rate: 0.5 }, bank(5)], 'lines[0].debit', /= 5\.01 DKK/);
    const { exchange_rate: _rate, ...noRate } = eurLine;
    await refused([noRate, bank(746.12)], 'lines[0].exchange_rate', /exchange_rate is missing/);
    await refused([{ account_number: '1630', debit: 746.12, currency: 'EUR' }, bank(746.12)], 'lines[0].currency_amount', /currency_amount is missing/);
    await refused([{ ...eurLine, currency: 'DKK', exchange_rate: 1, currency_amount: 746.12 }, bank(746.12)], 'lines[0].currency', /leave currency/);
    await refused([{ ...eurLine, currency: 'EURO' }, bank(746.12)], 'lines[0].currency', /three upper-case letters/);
    await refused([{ ...eurLine, exchange_rate: '7.4612001' }, bank(746.12)], 'lines[0].exchange_rate', /at most 6 decimals/);
    await refused([{ ...eurLine, currency_amount: 0 }, bank(746.12)], 'lines[0].currency_amount', /at least 0.01/);
    expect((await created(postLines([{ ...eurLine, debit: 5.01, currency_amount: 10.01, exchange_rate: 0.5 }, bank(5.01)]))).data.lines[0]).toMatchObject({
      currency_amount: 10.01,
      exchange_rate: 0.5,
    });
  });

  it("goes into SAF-T with the line's CurrencyCode, CurrencyAmount and ExchangeRate, and the file validates", async () => {
    const b = await t.another('SAF-T Valuta ApS');
    const sek: Line = { account_number: '2030', debit: 6850, currency: 'SEK', currency_amount: 10000, exchange_rate: 0.685 };
    await created(
      b.api.POST('/transactions', {
        params: idem(),
        body: { date: today, description: 'Husleje Malmö', lines: [sek, { account_number: '6470', credit: 6850 }] },
      }),
    );
    const xml = bodyOf(200, await b.api.GET('/exports/saft', { params: { query: {} }, parseAs: 'text' }));
    expect(await validateSaft(xml)).toEqual({ valid: true, errors: [] });
    expect(xml).toContain(
      '<DebitAmount><Amount>6850.00</Amount><CurrencyCode>SEK</CurrencyCode><CurrencyAmount>10000.00</CurrencyAmount><ExchangeRate>0.685</ExchangeRate></DebitAmount>',
    );
    expect(xml).toContain(
      '<CreditAmount><Amount>6850.00</Amount><CurrencyCode>DKK</CurrencyCode><CurrencyAmount>6850.00</CurrencyAmount><ExchangeRate>1</ExchangeRate></CreditAmount>',
    );
  });
});
