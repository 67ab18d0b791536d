// Payment reminders (rykkere) through HTTP against PostgreSQL: the company settings and
// their refusals by field, the renteloven rules (the day after the due date, 10 days apart, three at most,
// no reminder on a draft, paid or cancelled invoice), the fee and the interest against hand arithmetic and
// their posting, the balance due left alone, two requests at once, the Danish PDF, the event and the
// daily job with two runs at once.
import { describe, expect, it } from 'vitest';
import { extractText, getDocumentProxy } from 'unpdf';
import type { Db } from '@tlr/db';
import { addDays, sendDueReminders, today as businessDay } from '@tlr/domain';
import { bodyOf, countRows, created, idem, ok, testDb, useCompany, type Api, type RequestBody } from './helpers.ts';

const t = useCompany({ name: 'Rykker Tømrer ApS', cvr: '31415926' });
const today = businessDay();
const path = (id: string) => ({ params: { path: { id } } });

type Settings = RequestBody<'/settings/company', 'put'>;
const settings = async (c: Api, body: Settings) => (await ok(c.PUT('/settings/company', { body }))).data;
const FEES_AND_INTEREST: Settings = { reminder_fee_enabled: true, reminder_fee: 100, reminder_interest_enabled: true, reminder_reference_rate: '1.60' };

async function customer(c: Api, cvr?: string) {
  const body = { name: cvr ? 'Erhverv A/S' : 'Privat Person', address_line1: 'Vestergade 12', postal_code: '8000', city: 'Aarhus C', ...(cvr ? { cvr } : {}) };
  return (await created(c.POST('/customers', { params: idem(), body }))).data.id;
}

/** An approved invoice of 8,000.00 + 25 % VAT = 10,000.00 DKK, due on `due`. */
async function invoice(c: Api, customer_id: string, due: string, issue = addDays(due, -14)) {
  const body = { customer_id, issue_date: issue, due_date: due, auto_approve: true, lines: [{ description: 'Tømrerarbejde', quantity: 1, unit_price: 8000 }] };
  return (await created(c.POST('/invoices', { params: idem(), body }))).data;
}

const remind = (c: Api, id: string, date?: string, key?: string) =>
  c.POST('/invoices/{id}/reminders', { params: { path: { id }, ...idem(key) }, body: date ? { date } : {} });
const reminders = async (c: Api, id: string) => ok(c.GET('/invoices/{id}/reminders', { params: { path: { id }, query: { order: 'asc' } } }));
const refusal = async (call: ReturnType<typeof remind>) => {
  const { error, response } = await call;
  return { status: response.status, ...(error as object) };
};

describe('reminder settings (PUT /settings/company)', () => {
  it('start off: no fee (100.00 when turned on), no interest, reference rate "1.60", not automatic', async () => {
    const other = await t.another('Standard Rykker ApS');
    expect((await ok(other.api.GET('/settings/company'))).data).toMatchObject({
      reminder_fee_enabled: false,
      reminder_fee: 100,
      reminder_interest_enabled: false,
      reminder_reference_rate: '1.60',
      reminders_automatic: false,
    });
  });

  it('are stored, kept by other changes, the rate answered as a decimal string', async () => {
    const { api: c } = await t.newKey();
    expect(await settings(c, { reminder_fee_enabled: true, reminder_fee: '65.50', reminder_reference_rate: 2.35, reminders_automatic: true })).toMatchObject({
      reminder_fee_enabled: true,
      reminder_fee: 65.5,
      reminder_reference_rate: '2.35',
      reminders_automatic: true,
    });
    expect(await settings(c, { city: 'Vejle' })).toMatchObject({ reminder_fee: 65.5, reminder_reference_rate: '2.35', reminders_automatic: true });
    await settings(c, { ...FEES_AND_INTEREST, reminders_automatic: false });
  });

  it('refuses a fee of 0 or above 100.00, a bad rate or a non-boolean, naming the field, and changes nothing', async () => {
    const { raw } = await t.newKey();
    const before = (await ok(t.api.GET('/settings/company'))).data;
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ reminder_fee: 0 }, 'reminder_fee', /greater than 0/],
      [{ reminder_fee: 100.01 }, 'reminder_fee', /at most 100.00/],
      [{ reminder_fee: 50.123 }, 'reminder_fee', /decimals/],
      [{ reminder_reference_rate: 'abc' }, 'reminder_reference_rate', /./],
      [{ reminder_reference_rate: -1 }, 'reminder_reference_rate', /0 to 100/],
      [{ reminder_fee_enabled: 'yes' }, 'reminder_fee_enabled', /./],
    ];
    for (const [body, field, detail] of cases) {
      const r = await raw.put('/settings/company', { city: 'Odense', ...body });
      expect(r.status, field).toBe(400);
      expect(r.body, JSON.stringify(body)).toMatchObject({ code: 'invalid_request', field, detail: expect.stringMatching(detail) });
    }
    expect((await ok(t.api.GET('/settings/company'))).data).toEqual(before);
  });
});

describe('POST /invoices/{id}/reminders', () => {
  it('charges no fee or interest while both are off, spaces reminders 10 days apart and refuses a fourth by name', async () => {
    const other = await t.another('Uden Gebyr ApS');
    const c = other.api;
    const inv = await invoice(c, await customer(c, '12345674'), '2026-09-15');
    // The due date itself is too early: the first reminder comes the day after.
    expect(await refusal(remind(c, inv.id, '2026-09-15'))).toMatchObject({
      status: 409,
      code: 'reminder_too_early',
      field: 'date',
      next_allowed_date: '2026-09-16',
    });
    const key = 'rykker-1';
    const first = bodyOf(201, await remind(c, inv.id, '2026-09-16', key)).data;
    expect(first).toMatchObject({
      invoice_id: inv.id,
      invoice_number: inv.invoice_number,
      number: 1,
      date: '2026-09-16',
      currency: 'DKK',
      balance_due: 10000,
      fee: 0,
      interest: 0,
      interest_rate: null,
      interest_days: 0,
      charges_total: 0,
      transaction_id: null,
    });
    // The same Idempotency-Key again: the stored answer, no second reminder.
    const again = await remind(c, inv.id, '2026-09-16', key);
    expect(again.response.headers.get('X-Idempotency-Replayed')).toBe('true');
    expect(bodyOf(201, again).data).toEqual(first);
    // Day 9 after the first is refused naming day 10; day 10 is allowed.
    expect(await refusal(remind(c, inv.id, '2026-09-25'))).toMatchObject({ status: 409, code: 'reminder_too_early', next_allowed_date: '2026-09-26' });
    expect(bodyOf(201, await remind(c, inv.id, '2026-09-26')).data.number).toBe(2);
    expect(bodyOf(201, await remind(c, inv.id, '2026-10-06')).data.number).toBe(3);
    expect(await refusal(remind(c, inv.id))).toMatchObject({ status: 409, code: 'reminder_limit_reached' });

    const list = await reminders(c, inv.id);
    expect(list.meta).toEqual({ page: 1, per_page: 50, total: 3, total_pages: 1 });
    expect(list.data.map((r) => [r.number, r.date])).toEqual([
      [1, '2026-09-16'],
      [2, '2026-09-26'],
      [3, '2026-10-06'],
    ]);
    const page = await ok(
      c.GET('/invoices/{id}/reminders', { params: { path: { id: inv.id }, query: { per_page: 1, page: 2, sort: 'date', order: 'desc' } } }),
    );
    expect([page.data.map((r) => r.number), page.meta.total_pages]).toEqual([[2], 3]);
    // Nothing was posted: the reminders' fee and interest were 0.
    expect(await countRows(`SELECT count(*)::int AS n FROM ledger_transactions WHERE company_id = $1 AND source = 'reminder'`, [other.company.companyId])).toBe(
      0,
    );
  });

  it('charges the fee and interest at the reference rate + 8 on a business invoice, posts them, and leaves the balance due alone', async () => {
    const { api: c } = await t.newKey();
    await settings(c, FEES_AND_INTEREST);
    const inv = await invoice(c, await customer(c, '12345674'), '2026-09-15');
    const first = bodyOf(201, await remind(c, inv.id, '2026-09-25')).data;
    // 10,000.00 × 9.60 % × 10 days / 365 = 26.3013... -> 26.30; fee 100.00.
    expect(first).toMatchObject({ number: 1, fee: 100, interest: 26.3, interest_rate: '9.60', interest_days: 10, charges_total: 126.3 });
    const posting = (await ok(c.GET('/transactions/{id}', path(first.transaction_id!)))).data;
    expect(posting).toMatchObject({ date: '2026-09-25', source: 'reminder', total_debit: 126.3, total_credit: 126.3 });
    expect(posting.lines.map((l) => [l.account_number, l.debit, l.credit])).toEqual([
      ['6190', 126.3, 0],
      ['1550', 0, 100],
      ['3490', 0, 26.3],
    ]);
    // A part payment of 4,000.00: reminder 2 charges interest on 6,000.00 for the 10 days since reminder 1.
    await created(c.POST('/invoices/{id}/payments', { params: { path: { id: inv.id }, ...idem() }, body: { amount: 4000 } }));
    const second = bodyOf(201, await remind(c, inv.id, '2026-10-05')).data;
    // 6,000.00 × 9.60 % × 10 / 365 = 15.7808... -> 15.78; charges 126.30 + 100.00 + 15.78 = 242.08.
    expect(second).toMatchObject({ number: 2, balance_due: 6000, fee: 100, interest: 15.78, interest_days: 10, charges_total: 242.08 });
    // The fees and interest are claims beside the invoice: its total and balance due do not change.
    const after = (await ok(c.GET('/invoices/{id}', path(inv.id)))).data;
    expect([after.total, after.paid_amount, after.balance_due, after.status]).toEqual([10000, 4000, 6000, 'approved']);
    const events = await testDb().pool.query<{ data: { number: number; charges_total: number; invoice_id: string } }>(
      `SELECT data FROM outbox_events WHERE type = 'invoice.reminder_sent' AND data->>'invoice_id' = $1 ORDER BY sequence`,
      [inv.id],
    );
    expect(events.rows.map((e) => [e.data.number, e.data.charges_total])).toEqual([
      [1, 126.3],
      [2, 242.08],
    ]);
  });

  it('charges a consumer the fee but no interest', async () => {
    const { api: c } = await t.newKey();
    await settings(c, FEES_AND_INTEREST);
    const inv = await invoice(c, await customer(c), '2026-09-15');
    expect(bodyOf(201, await remind(c, inv.id, '2026-10-15')).data).toMatchObject({
      fee: 100,
      interest: 0,
      interest_rate: null,
      interest_days: 0,
      charges_total: 100,
    });
  });

  it('refuses a paid, cancelled or draft invoice naming its status, one not yet due, a future date and another company’s invoice', async () => {
    const { api: c } = await t.newKey();
    const buyer = await customer(c, '12345674');
    const paid = await invoice(c, buyer, '2026-09-15');
    await ok(c.PUT('/invoices/{id}/status', { ...path(paid.id), body: { status: 'paid' } }));
    const cancelled = await invoice(c, buyer, '2026-09-15');
    await ok(c.PUT('/invoices/{id}/status', { ...path(cancelled.id), body: { status: 'cancelled' } }));
    const draft = (
      await created(
        c.POST('/invoices', {
          params: idem(),
          body: { customer_id: buyer, issue_date: '2026-09-01', due_date: '2026-09-15', lines: [{ description: 'X', quantity: 1, unit_price: 1 }] },
        }),
      )
    ).data;
    for (const [inv, status] of [
      [paid, 'paid'],
      [cancelled, 'cancelled'],
      [draft, 'draft'],
    ] as const) {
      expect(await refusal(remind(c, inv.id, '2026-10-01'))).toMatchObject({ status: 409, code: 'invoice_not_remindable', current_status: status });
    }
    const notDue = await invoice(c, buyer, addDays(today, 5), today);
    expect(await refusal(remind(c, notDue.id))).toMatchObject({ status: 409, code: 'reminder_too_early', next_allowed_date: addDays(today, 6) });
    const due = await invoice(c, buyer, '2026-09-15');
    expect(await refusal(remind(c, due.id, addDays(today, 1)))).toMatchObject({ status: 400, code: 'invalid_request', field: 'date' });
    const stranger = await t.another('Fremmed ApS');
    expect(await refusal(remind(stranger.api, due.id, '2026-10-01'))).toMatchObject({ status: 404, code: 'not_found' });
    expect((await stranger.api.GET('/invoices/{id}/reminders', path(due.id))).response.status).toBe(404);
    expect(
      await countRows(`SELECT count(*)::int AS n FROM invoice_reminders WHERE invoice_id = ANY($1)`, [[paid.id, cancelled.id, draft.id, notDue.id, due.id]]),
    ).toBe(0);
    // Writing needs invoices:write; reading invoices:read.
    const reader = await t.newKey(['invoices:read']);
    expect((await remind(reader.api, due.id, '2026-10-01')).response.status).toBe(403);
    expect((await reader.api.GET('/invoices/{id}/reminders', path(due.id))).response.status).toBe(200);
  });

  it('issues one reminder when two requests with different Idempotency-Keys arrive at once', async () => {
    const { api: c } = await t.newKey();
    const inv = await invoice(c, await customer(c, '12345674'), '2026-09-15');
    const answers = await Promise.all([remind(c, inv.id, '2026-10-01'), remind(c, inv.id, '2026-10-01'), remind(c, inv.id, '2026-10-02')]);
    const statuses = answers.map((a) => a.response.status).sort();
    expect(statuses).toEqual([201, 409, 409]);
    expect(answers.filter((a) => a.response.status === 409).map((a) => (a.error as { code: string }).code)).toEqual([
      'reminder_too_early',
      'reminder_too_early',
    ]);
    expect(await countRows(`SELECT count(*)::int AS n FROM invoice_reminders WHERE invoice_id = $1`, [inv.id])).toBe(1);
    expect(await countRows(`SELECT count(*)::int AS n FROM ledger_transactions WHERE source_id = $1 AND source = 'reminder'`, [inv.id])).toBe(1);
  });
});

describe('the sandbox', () => {
  it("mirrors the live company's reminder settings, and a reset removes its reminders and their postings", async () => {
    await settings(t.api, FEES_AND_INTEREST);
    const { api: sb, companyId } = await t.newKey(undefined, 'test');
    expect((await ok(sb.GET('/settings/company'))).data).toMatchObject({
      reminder_fee_enabled: true,
      reminder_interest_enabled: true,
      reminder_reference_rate: '1.60',
    });
    const inv = await invoice(sb, await customer(sb, '12345674'), '2026-09-15');
    expect(bodyOf(201, await remind(sb, inv.id, '2026-09-25')).data).toMatchObject({ fee: 100, interest: 26.3 });
    bodyOf(200, await sb.POST('/sandbox/reset'));
    expect(await countRows(`SELECT count(*)::int AS n FROM invoice_reminders WHERE company_id = $1`, [companyId])).toBe(0);
    expect(await countRows(`SELECT count(*)::int AS n FROM ledger_transactions WHERE company_id = $1`, [companyId])).toBe(0);
  });
});

describe('GET /invoices/{id}/reminders/{number}/pdf', () => {
  it('is a Danish PDF: Rykker n, the invoice, paid and balance, fee, interest with rate and days, the total, the FI line and the bank details', async () => {
    const { api: c } = await t.newKey();
    await settings(c, { ...FEES_AND_INTEREST, fi_creditor_number: '81234567', bank_reg_number: '0040', bank_account_number: '0440116243' });
    const inv = await invoice(c, await customer(c, '12345674'), '2026-09-15');
    await created(c.POST('/invoices/{id}/payments', { params: { path: { id: inv.id }, ...idem() }, body: { amount: 2500 } }));
    await created(remind(c, inv.id, '2026-09-25'));
    const second = bodyOf(201, await remind(c, inv.id, '2026-10-05')).data;
    // Both reminders after the payment: 7,500.00 × 9.60 % × 10 / 365 = 19.7260... -> 19.73 each, + 100.00 fee each:
    // charges 2 × 119.73 = 239.46; to pay 7,500.00 + 239.46 = 7,739.46.
    expect([second.interest, second.charges_total]).toEqual([19.73, 239.46]);
    const r = await c.GET('/invoices/{id}/reminders/{number}/pdf', { params: { path: { id: inv.id, number: '2' } }, parseAs: 'arrayBuffer' });
    expect(r.response.status).toBe(200);
    expect(r.response.headers.get('content-type')).toMatch(/^application\/pdf/);
    expect(r.response.headers.get('content-disposition')).toBe(`inline; filename="rykker-2-faktura-${inv.invoice_number}.pdf"`);
    const bytes = new Uint8Array(r.data!);
    expect(new TextDecoder().decode(bytes.slice(0, 5))).toBe('%PDF-');
    const text = (await extractText(await getDocumentProxy(bytes), { mergePages: true })).text.replace(/\s+/g, ' ');
    const invoiceData = (await ok(c.GET('/invoices/{id}', path(inv.id)))).data;
    for (const expected of [
      'RYKKER 2',
      'Rykker Tømrer ApS',
      'Erhverv A/S',
      `Fakturanr. ${inv.invoice_number}`,
      'Rykkerdato 05.10.2026',
      'Forfaldsdato 15.09.2026',
      'Fakturabeløb DKK 10.000,00',
      'Betalt DKK -2.500,00',
      'Restbeløb DKK 7.500,00',
      'Rykkergebyr DKK (renteloven § 9 b) 100,00',
      'Renter 9,6 % p.a. i 10 dage DKK 19,73',
      'Gebyrer og renter fra tidligere rykkere DKK 119,73',
      'I alt at betale DKK 7.739,46',
      `+71<${invoiceData.payment_id} +81234567<`,
      'Reg.nr. 0040 Kontonr. 0440116243',
    ]) {
      expect(text).toContain(expected);
    }
    const missing = await c.GET('/invoices/{id}/reminders/{number}/pdf', { params: { path: { id: inv.id, number: '3' } }, parseAs: 'arrayBuffer' });
    expect(missing.response.status).toBe(404);
    expect((await t.raw.get(`/invoices/${inv.id}/reminders/4/pdf`)).status).toBe(400);
  });
});

describe('the daily job (send-due-reminders)', () => {
  it('sends each due reminder once when two runs go at once, only for companies that turned it on, and the next 10 days later', async () => {
    const auto = await t.another('Automatisk Rykker ApS');
    await settings(auto.api, { reminders_automatic: true, reminder_fee_enabled: true, reminder_fee: 60 });
    const buyer = await customer(auto.api, '12345674');
    const [a, b] = [await invoice(auto.api, buyer, addDays(today, -3)), await invoice(auto.api, buyer, addDays(today, -20))];
    const notDue = await invoice(auto.api, buyer, today, addDays(today, -10));
    const manual = await t.another('Manuel Rykker ApS');
    const untouched = await invoice(manual.api, await customer(manual.api, '12345674'), addDays(today, -3));

    const db = testDb();
    const run = <T>(fn: (tx: Db) => Promise<T>) => db.prisma.$transaction((tx) => fn(tx));
    const [r1, r2] = await Promise.all([sendDueReminders(run, today, 1), sendDueReminders(run, today, 1)]);
    expect(r1.failed.concat(r2.failed)).toEqual([]);
    const count = (id: string) => countRows(`SELECT count(*)::int AS n FROM invoice_reminders WHERE invoice_id = $1`, [id]);
    expect([await count(a.id), await count(b.id), await count(notDue.id), await count(untouched.id)]).toEqual([1, 1, 0, 0]);
    expect((await reminders(auto.api, a.id)).data[0]).toMatchObject({ number: 1, date: today, fee: 60, charges_total: 60 });
    expect(
      await countRows(`SELECT count(*)::int AS n FROM outbox_events WHERE type = 'invoice.reminder_sent' AND data->>'invoice_id' = ANY($1)`, [[a.id, b.id]]),
    ).toBe(2);

    // Again the same day, and 9 days later: nothing is due. 10 days later: the second reminders.
    await sendDueReminders(run, today);
    await sendDueReminders(run, addDays(today, 9));
    expect([await count(a.id), await count(b.id)]).toEqual([1, 1]);
    await Promise.all([sendDueReminders(run, addDays(today, 10)), sendDueReminders(run, addDays(today, 10))]);
    expect([await count(a.id), await count(b.id), await count(notDue.id)]).toEqual([2, 2, 1]);
    expect((await reminders(auto.api, b.id)).data.map((r) => [r.number, r.date])).toEqual([
      [1, today],
      [2, addDays(today, 10)],
    ]);
  });
});
