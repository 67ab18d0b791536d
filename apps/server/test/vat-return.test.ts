// The VAT return (momsangivelse) of a quarter of mixed activity, through HTTP against PostgreSQL: every
// field compared with figures worked out by hand below, the journal lines behind the fields, the
// settlement (posting, filed return, lock date), corrections and every refusal.
import { describe, expect, it } from 'vitest';
import { bodyOf, created, idem, ok, testDb, useCompany } from './helpers.ts';
import { validateSaft } from './saft-schema.ts';

const t = useCompany({ name: 'Moms og Valuta ApS' });

/** Creates and approves an invoice; answers its id. */
async function invoice(
  customer_id: string,
  issue_date: string,
  lines: { quantity: number; unit_price: number; vat_rate?: number; vat_code?: string }[],
  extra: object = {},
) {
  const body = { customer_id, issue_date, due_date: issue_date, auto_approve: true, lines: lines.map((l) => ({ description: 'Vare', ...l })), ...extra };
  return (await created(t.api.POST('/invoices', { params: idem(), body }))).data.id;
}

/** Creates and books an expense; answers it. */
async function expense(date: string, amount: number, vat_code?: string, extra: object = {}) {
  return (
    await created(
      t.api.POST('/expenses', {
        params: idem(),
        body: { date, amount, description: `Udgift ${vat_code ?? ''}`, book: true, ...(vat_code ? { vat_code } : {}), ...extra },
      }),
    )
  ).data;
}

const vatReturn = async (period: string) => (await ok(t.api.GET('/vat-returns', { params: { query: { period } } }))).data;

describe('the VAT return of a quarter of mixed activity', () => {
  let customers: { dk: string; de: string; us: string };

  it('books the quarter: sales in Denmark, to the EU, outside the EU, in EUR; purchases of every treatment', async () => {
    const customer = async (name: string, vat_number?: string) =>
      (await created(t.api.POST('/customers', { params: idem(), body: { name, ...(vat_number ? { vat_number } : {}) } }))).data.id;
    customers = { dk: await customer('Dansk Kunde ApS'), de: await customer('Deutsche Kunde GmbH', 'DE136695976'), us: await customer('US Customer Inc') };
    await ok(t.api.PUT('/exchange-rates', { body: { rates: [{ currency: 'EUR', date: '2026-08-03', rate: 7.46 }] } }));

    // Sales.
    await invoice(customers.dk, '2026-07-10', [{ quantity: 10, unit_price: 1000 }]); // 10000.00 + 2500.00 salgsmoms
    await invoice(customers.de, '2026-07-15', [{ quantity: 1, unit_price: 20000, vat_code: 'SEUV' }]); // rubrik B varer 20000
    await invoice(customers.de, '2026-07-20', [{ quantity: 1, unit_price: 5000, vat_code: 'SEUY' }]); // rubrik B ydelser 5000
    await invoice(customers.us, '2026-08-01', [{ quantity: 1, unit_price: 8000.5, vat_code: 'SEXP' }]); // rubrik C 8000.50
    // EUR: 2 × 500.00 EUR + 25 % = 1250.00 EUR at 7.46: revenue 7460.00, salgsmoms 1865.00, receivables 9325.00.
    const eur = await invoice(customers.dk, '2026-08-03', [{ quantity: 2, unit_price: 500, vat_code: 'S25' }], { currency: 'EUR' });
    const eurInvoice = (await ok(t.api.GET('/invoices/{id}', { params: { path: { id: eur } } }))).data;
    expect(eurInvoice).toMatchObject({ currency: 'EUR', exchange_rate: 7.46, total: 1250, vat_amount: 250, total_dkk: 9325 });
    // Paid at 7.45: the bank gets 9312.50, receivables are cleared with 9325.00, the 12.50 lost is a kursdifference.
    await ok(
      t.api.POST('/invoices/{id}/payments', { params: { path: { id: eur }, ...idem() }, body: { amount: 1250, date: '2026-09-01', exchange_rate: 7.45 } }),
    );
    // Credited within the quarter: a domestic invoice (2000.00 + 500.00) and an EU one (3000.00).
    for (const [customer, line] of [
      [customers.dk, { quantity: 1, unit_price: 2000 }],
      [customers.de, { quantity: 1, unit_price: 3000, vat_code: 'SEUV' }],
    ] as const) {
      const id = await invoice(customer, '2026-08-10', [line]);
      await ok(t.api.PUT('/invoices/{id}/status', { params: { path: { id } }, body: { status: 'cancelled', date: '2026-08-25' } }));
    }

    // Purchases.
    await expense('2026-07-05', 4000, 'EUV'); // EU goods: 1000.00 on 7700 and 7740; rubrik A varer 4000
    await expense('2026-07-25', 1200, 'EUY'); // EU services: 300.00 on 7720 and 7740; rubrik A ydelser 1200
    await expense('2026-08-05', 800, 'UY'); // services outside the EU: 200.00 on 7720 and 7740; no box
    await expense('2026-07-08', 6250, 'K25'); // 1250.00 købsmoms
    await expense('2026-08-20', 1000, 'KDELVIS', { vat_deductible_percent: 60 }); // VAT 200.00, 60 % = 120.00 deducted
    await expense('2026-09-10', 625, 'KREP'); // VAT 125.00, 25 % = 31.25 deducted
    await expense('2026-09-15', 10000, 'KOMV'); // § 46: 2500.00 salgsmoms and 2500.00 købsmoms

    // Manual transactions: a cash sale with its VAT line, and electricity duty refunded (elafgift).
    await created(
      t.api.POST('/transactions', {
        params: idem(),
        body: {
          date: '2026-09-20',
          description: 'Kontantsalg',
          lines: [
            { account_number: '6480', debit: 1250 },
            { account_number: '1010', credit: 1000, vat_code: 'S25' },
            { account_number: '7680', credit: 250, vat_code: 'S25' },
          ],
        },
      }),
    );
    await created(
      t.api.POST('/transactions', {
        params: idem(),
        body: {
          date: '2026-09-30',
          description: 'Elafgift',
          lines: [
            { account_number: '7780', debit: 150 },
            { account_number: '6470', credit: 150 },
          ],
        },
      }),
    );
  });

  it('answers every field as worked out by hand, in whole kroner and with øre', async () => {
    const r = await vatReturn('2026-Q3');
    // salgsmoms: 2500.00 + 1865.00 (EUR) + 500.00 − 500.00 (credited) + 250.00 (manual) + 2500.00 (§ 46) = 7115.00
    // købsmoms: 1000.00 + 300.00 + 200.00 + 1250.00 + 120.00 + 31.25 + 2500.00 = 5401.25 -> 5401
    // afgiftstilsvar: 7115 + 1000 + 500 − 5401 − 150 = 3064 (exact: 3063.75)
    expect(r.fields).toEqual({
      output_vat: 7115,
      vat_on_goods_purchased_abroad: 1000,
      vat_on_services_purchased_abroad: 500,
      input_vat: 5401,
      oil_and_bottled_gas_duty: 0,
      electricity_duty: 150,
      natural_gas_and_town_gas_duty: 0,
      coal_duty: 0,
      co2_duty: 0,
      water_duty: 0,
      box_a_goods: 4000,
      box_a_services: 1200,
      // 20000 + 3000 − 3000 (the credit note)
      box_b_goods_reported: 20000,
      box_b_goods_not_reported: 0,
      box_b_services: 5000,
      // 8000.50, rounded half up
      box_c: 8001,
      net_vat: 3064,
    });
    expect(r.exact_fields).toMatchObject({ input_vat: 5401.25, box_c: 8000.5, net_vat: 3063.75 });
    expect(r).toMatchObject({
      period: '2026-Q3',
      frequency: 'quarterly',
      start_date: '2026-07-01',
      end_date: '2026-09-30',
      status: 'open',
      period_ended: true,
    });
    // 1 December 2026 is a Tuesday.
    expect(r.deadline).toBe('2026-12-01');
  });

  it('drills each field down to the journal lines behind it, paged with meta', async () => {
    const lines = async (field: string, page = 1, per_page = 50) =>
      ok(
        t.api.GET('/vat-returns/{period}/lines', {
          params: { path: { period: '2026-Q3' }, query: { field: field as 'input_vat', page, per_page, order: 'asc' } },
        }),
      );
    const input = await lines('input_vat', 1, 3);
    expect(input.meta).toEqual({ page: 1, per_page: 3, total: 7, total_pages: 3 });
    const all = [...input.data, ...(await lines('input_vat', 2, 3)).data, ...(await lines('input_vat', 3, 3)).data];
    expect(all.reduce((s, l) => s + Math.round(l.amount * 100), 0)).toBe(540125);
    const boxB = (await lines('box_b_goods_reported')).data;
    expect(boxB.map((l) => [l.source, l.amount])).toEqual([
      ['invoice', 20000],
      ['invoice', 3000],
      ['credit_note', -3000],
    ]);
    expect(boxB.every((l) => l.vat_code === 'SEUV' && l.account_number === '1010')).toBe(true);
    expect((await lines('box_a_services')).data.map((l) => l.amount)).toEqual([1200]);
    // The list parameters of every list: by amount, narrowed to August, searched.
    const query = (q: object) => ok(t.api.GET('/vat-returns/{period}/lines', { params: { path: { period: '2026-Q3' }, query: { field: 'input_vat', ...q } } }));
    expect((await query({ sort: 'amount', per_page: 2 })).data.map((l) => l.amount)).toEqual([2500, 1250]);
    expect((await query({ since: '2026-08-01', until: '2026-08-31', order: 'asc' })).data.map((l) => l.amount)).toEqual([200, 120]);
    expect((await query({ search: 'udgift krep' })).data.map((l) => [l.date, l.amount])).toEqual([['2026-09-10', 31.25]]);
    const net = await t.raw.get('/vat-returns/2026-Q3/lines?field=net_vat');
    expect(net.status).toBe(400);
    expect(net.body).toMatchObject({ code: 'invalid_request', field: 'field' });
  });

  it('posts the EUR invoice in DKK, each line recording its currency, amount and rate, and the kursdifference of its payment', async () => {
    const txs = (await ok(t.api.GET('/transactions', { params: { query: { since: '2026-08-03', until: '2026-09-01', per_page: 200, order: 'asc' } } }))).data;
    const approval = txs.find((x) => x.source === 'invoice' && x.date === '2026-08-03')!;
    const full = (await ok(t.api.GET('/transactions/{id}', { params: { path: { id: approval.id } } }))).data;
    expect(full.lines.map((l) => [l.account_number, l.debit, l.credit, l.currency, l.currency_amount, l.exchange_rate])).toEqual([
      ['6190', 9325, 0, 'EUR', 1250, 7.46],
      ['1010', 0, 7460, 'EUR', 1000, 7.46],
      ['7680', 0, 1865, 'EUR', 250, 7.46],
    ]);
    const payment = txs.find((x) => x.source === 'payment' && x.date === '2026-09-01')!;
    const paid = (await ok(t.api.GET('/transactions/{id}', { params: { path: { id: payment.id } } }))).data;
    expect(paid.lines.map((l) => [l.account_number, l.debit, l.credit])).toEqual([
      ['6470', 9312.5, 0],
      ['6190', 0, 9325],
      ['3610', 12.5, 0],
    ]);
  });

  it('writes the quarter to SAF-T valid against the XSD: the EUR invoice in DKK with its currency beside, the VAT codes in the tax table', async () => {
    const r = await t.raw.get('/exports/saft?from=2026-07-01&to=2026-09-30');
    expect(r.status).toBe(200);
    expect(await validateSaft(r.text)).toEqual({ valid: true, errors: [] });
    // The EUR invoice's line: 1000.00 EUR at 7.46 = 7460.00 DKK.
    expect(r.text).toContain(
      '<InvoiceLineAmount><Amount>7460.00</Amount><CurrencyCode>EUR</CurrencyCode><CurrencyAmount>1000.00</CurrencyAmount><ExchangeRate>7.460000</ExchangeRate></InvoiceLineAmount>',
    );
    expect(r.text).toContain('<TaxCode>EUV</TaxCode>');
  });

  it("refuses a code that does not fit the document, an EU sale without the buyer's VAT number, and a rate that contradicts the code", async () => {
    const refusal = async (path: string, body: object) => t.raw.post(path, body);
    const cases: [string, object, number, string, string][] = [
      ['/expenses', { date: '2026-10-01', amount: 100, vat_code: 'S25' }, 422, 'vat_code_not_applicable', 'vat_code'],
      [
        '/invoices',
        { issue_date: '2026-10-01', due_date: '2026-10-01', lines: [{ description: 'x', quantity: 1, unit_price: 1, vat_code: 'K25' }] },
        422,
        'vat_code_not_applicable',
        'lines[0].vat_code',
      ],
      [
        '/invoices',
        { issue_date: '2026-10-01', due_date: '2026-10-01', lines: [{ description: 'x', quantity: 1, unit_price: 1, vat_code: 'NOPE' }] },
        400,
        'invalid_request',
        'lines[0].vat_code',
      ],
      [
        '/invoices',
        { issue_date: '2026-10-01', due_date: '2026-10-01', lines: [{ description: 'x', quantity: 1, unit_price: 1, vat_code: 'SEUV', vat_rate: 25 }] },
        400,
        'invalid_request',
        'lines[0].vat_rate',
      ],
      [
        '/invoices',
        {
          customer_id: customers.dk,
          auto_approve: true,
          issue_date: '2026-10-01',
          due_date: '2026-10-01',
          lines: [{ description: 'x', quantity: 1, unit_price: 1, vat_code: 'SEUY' }],
        },
        422,
        'vat_number_required',
        'customer_id',
      ],
      ['/expenses', { date: '2026-10-01', amount: 100, vat_deductible_percent: 50 }, 400, 'invalid_request', 'vat_deductible_percent'],
      [
        '/invoices',
        { issue_date: '2026-10-01', due_date: '2026-10-01', currency: 'DKK', exchange_rate: 7.46, lines: [{ description: 'x', quantity: 1, unit_price: 1 }] },
        400,
        'invalid_request',
        'exchange_rate',
      ],
    ];
    for (const [path, body, status, code, field] of cases) {
      const r = await refusal(path, body);
      expect([r.status, r.body.code, r.body.field], JSON.stringify(body)).toEqual([status, code, field]);
      expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    }
    // A EUR invoice dated where the company has no rate within 7 days: 422 naming exchange_rate.
    const noRate = await refusal('/invoices', {
      customer_id: customers.dk,
      auto_approve: true,
      currency: 'EUR',
      issue_date: '2026-10-20',
      due_date: '2026-10-20',
      lines: [{ description: 'x', quantity: 1, unit_price: 1 }],
    });
    expect([noRate.status, noRate.body.code, noRate.body.field]).toEqual([422, 'exchange_rate_missing', 'exchange_rate']);
  });
});

describe('settling VAT periods', () => {
  it('refuses a period while an earlier one with VAT activity is open; settles in order', async () => {
    await expense('2026-05-10', 500, 'K25'); // 2026-Q2: 100.00 købsmoms
    const early = await t.raw.post('/vat-returns/2026-Q3/settle', {});
    expect([early.status, early.body.code, early.body.earlier_period]).toEqual([409, 'vat_period_open_before', '2026-Q2']);
    const q2 = bodyOf(201, await t.api.POST('/vat-returns/{period}/settle', { params: { path: { period: '2026-Q2' }, ...idem() }, body: {} })).data;
    expect(q2).toMatchObject({ status: 'settled', version: 1, fields: { input_vat: 100, net_vat: -100 } });
  });

  it('posts the settlement to 7840, files the return, locks the period and emits vat_return.settled', async () => {
    const key = idem();
    const settled = bodyOf(201, await t.api.POST('/vat-returns/{period}/settle', { params: { path: { period: '2026-Q3' }, ...key }, body: {} })).data;
    expect(settled).toMatchObject({ status: 'settled', version: 1, fields: { net_vat: 3064 }, exact_fields: { net_vat: 3063.75 } });
    const posting = (await ok(t.api.GET('/transactions/{id}', { params: { path: { id: settled.transaction_id! } } }))).data;
    expect(posting).toMatchObject({ date: '2026-09-30', source: 'vat_settlement' });
    expect(posting.lines.map((l) => [l.account_number, l.debit, l.credit])).toEqual([
      ['7680', 7115, 0],
      ['7700', 1000, 0],
      ['7720', 500, 0],
      ['7740', 0, 5401.25],
      ['7780', 0, 150],
      ['7840', 0, 3063.75],
    ]);
    // The same Idempotency-Key replays; the settlement is not posted twice.
    const replay = await t.api.POST('/vat-returns/{period}/settle', { params: { path: { period: '2026-Q3' }, ...key }, body: {} });
    expect(replay.response.headers.get('x-idempotency-replayed')).toBe('true');
    expect(bodyOf(201, replay).data.transaction_id).toBe(settled.transaction_id);
    const company = await testDb().prisma.company.findUniqueOrThrow({ where: { id: t.company.companyId } });
    expect(company.lock_date?.toISOString().slice(0, 10)).toBe('2026-09-30');
    const events = await testDb().prisma.outboxEvent.findMany({
      where: { company_id: t.company.companyId, type: 'vat_return.settled' },
      orderBy: { sequence: 'asc' },
    });
    expect(events.map((e) => (e.data as { period: string }).period)).toEqual(['2026-Q2', '2026-Q3']);
    // The settled return answers as filed, and the settlement did not change its figures.
    expect(await vatReturn('2026-Q3')).toMatchObject({ status: 'settled', fields: settled.fields, changed_since_settlement: false });
  });

  it('refuses a second settlement, a correction with nothing changed, an unended period, another frequency and postings into the period', async () => {
    const again = await t.raw.post('/vat-returns/2026-Q3/settle', {});
    expect([again.status, again.body.code, again.body.version]).toEqual([409, 'vat_return_settled', 1]);
    const unchanged = await t.raw.post('/vat-returns/2026-Q3/settle', { correction: true });
    expect([unchanged.status, unchanged.body.code]).toEqual([409, 'vat_return_unchanged']);
    const current = await t.raw.post('/vat-returns/2026-Q4/settle', {});
    expect([current.status, current.body.code, current.body.field]).toEqual([409, 'vat_period_not_ended', 'period']);
    for (const bad of ['2026-10', '2026-H2', 'Q3-2026']) {
      const r = await t.raw.get(`/vat-returns?period=${bad}`);
      expect([r.status, r.body.code, r.body.field], bad).toEqual([400, 'invalid_request', 'period']);
    }
    const locked = await t.raw.post('/expenses', { date: '2026-09-29', amount: 100, vat_code: 'K25', book: true });
    expect([locked.status, locked.body.code]).toEqual([422, 'period_locked']);
  });

  it('keeps a filed return immutable; a correction after the books changed is the next version and posts only the change', async () => {
    await expect(testDb().pool.query(`UPDATE vat_returns SET fields = '{}' WHERE company_id = $1`, [t.company.companyId])).rejects.toThrow(/immutable/);
    await expect(testDb().pool.query(`DELETE FROM vat_returns WHERE company_id = $1`, [t.company.companyId])).rejects.toThrow(/immutable/);
    // The operator opens the period again and a forgotten bill is booked in it.
    await testDb().prisma.company.update({ where: { id: t.company.companyId }, data: { lock_date: new Date('2026-06-30') } });
    await expense('2026-09-29', 1000, 'K25'); // 200.00 more købsmoms
    expect(await vatReturn('2026-Q3')).toMatchObject({ status: 'settled', version: 1, changed_since_settlement: true });
    const correction = bodyOf(
      201,
      await t.api.POST('/vat-returns/{period}/settle', { params: { path: { period: '2026-Q3' }, ...idem() }, body: { correction: true } }),
    ).data;
    expect(correction).toMatchObject({ version: 2, fields: { input_vat: 5601, net_vat: 2864 }, changed_since_settlement: false });
    const posting = (await ok(t.api.GET('/transactions/{id}', { params: { path: { id: correction.transaction_id! } } }))).data;
    expect(posting.lines.map((l) => [l.account_number, l.debit, l.credit])).toEqual([
      ['7740', 0, 200],
      ['7840', 200, 0],
    ]);
    const { versions } = await vatReturn('2026-Q3');
    expect(versions.map((v) => [v.version, v.fields.net_vat, v.exact_fields.input_vat])).toEqual([
      [1, 3064, 5401.25],
      [2, 2864, 5601.25],
    ]);
  });

  it('exports the return as the draft document for Skattestyrelsen', async () => {
    const r = await t.raw.get('/vat-returns/2026-Q3/export');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/xml/);
    expect(r.headers.get('content-disposition')).toMatch(/^attachment; filename="momsangivelse-.*-2026-Q3\.xml"$/);
    const xml = r.text;
    expect(xml).toContain('<PeriodeFraDato>2026-07-01</PeriodeFraDato>');
    expect(xml).toContain('<KoebsMomsBeloeb>5601</KoebsMomsBeloeb>');
    expect(xml).toContain('<AfgiftTilsvarBeloeb>2864</AfgiftTilsvarBeloeb>');
  });

  it("lists the company's VAT codes with meta, and needs its scopes", async () => {
    const codes = await ok(t.api.GET('/vat-codes', { params: { query: { per_page: 200 } } }));
    expect(codes.meta.total).toBe(codes.data.length);
    expect(codes.data.find((c) => c.code === 'EUV')).toMatchObject({
      kind: 'eu_purchase_goods',
      side: 'purchase',
      return_box: 'box_a_goods',
      standard_code: 'K-EU-V-Fradrag',
    });
    const reader = await t.newKey(['invoices:read']);
    for (const [method, path] of [
      ['GET', '/vat-codes'],
      ['GET', '/vat-returns?period=2026-Q3'],
      ['POST', '/vat-returns/2026-Q3/settle'],
    ] as const) {
      const r = await reader.raw.call(method, path, method === 'POST' ? { body: {}, headers: idem().header } : {});
      expect([r.status, r.body.code], path).toEqual([403, 'forbidden']);
    }
  });
});
