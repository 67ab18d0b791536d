// Accruals (periodisering) through HTTP against PostgreSQL (issue 43, item 3): a yearly insurance booked in
// July on prepaid expenses and moved 1,000.00 a month by the job (called with the day it runs on, no
// waiting), catching up a downtime, two runs at once posting each month once; an invoice line of 100.00
// deferred over three months (33.33, 33.33, 33.34) and credited after two, the credit note giving back the
// third; a received e-invoice's line accrued on its own; and the refusals by field. Every figure worked out by hand here.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Db } from '@tlr/db';
import { runAccruals, updateAccountingSettings } from '@tlr/domain';
import { countRows, created, idem, ok, testDb, useCompany } from './helpers.ts';

const t = useCompany({ name: 'Periodisering ApS', cvr: '12345674' });
const path = (id: string) => ({ params: { path: { id } } });
const db = testDb();
const run = <T>(fn: (tx: Db) => Promise<T>) => db.prisma.$transaction((tx) => fn(tx));
/** The daily job as it would run on `day`. */
const job = (day: string) => runAccruals(run, day);
/** The balance of an account from the postings (debit − credit), as the ledger holds it. */
const balance = async (account: string) => {
  const { rows } = await db.pool.query<{ b: string }>(
    `SELECT COALESCE(SUM(l.debit - l.credit), 0)::text AS b FROM transaction_lines l JOIN accounts a ON a.id = l.account_id
     WHERE l.company_id = $1 AND a.account_number = $2`,
    [t.company.companyId, account],
  );
  return Number(rows[0]!.b);
};

describe('accruals', () => {
  it('refuse a range that is not one, naming the field', async () => {
    const base = { date: '2026-07-01', description: 'Forsikring', amount: 1200, account_number: '2180' };
    const cases: [Record<string, unknown>, string][] = [
      [{ accrual: { from: '2026-07', to: '2026-06' } }, 'accrual.to'],
      [{ accrual: { from: '2026-13', to: '2027-06' } }, 'accrual.from'],
      [{ accrual: { from: '2026-7', to: '2027-06' } }, 'accrual.from'],
      // July 2026 to July 2031 is 61 months: one over the bound (decision 821).
      [{ accrual: { from: '2026-07', to: '2031-07' } }, 'accrual.to'],
      [{ accrual: { from: '2026-07' } }, 'accrual.to'],
    ];
    for (const [over, field] of cases) {
      const r = await t.raw.post('/expenses', { ...base, ...over });
      expect([r.status, r.body], JSON.stringify(over)).toMatchObject([400, { code: 'invalid_request', field }]);
    }
    const line = { description: 'Abonnement', quantity: 1, unit_price: 100, accrual: { from: '2026-09', to: '2026-08' } };
    const r = await t.raw.post('/invoices', {
      issue_date: '2026-08-01',
      due_date: '2026-08-15',
      lines: [{ ...line, accrual: { from: '2026-08', to: '2026-09' } }, line],
    });
    expect([r.status, r.body]).toMatchObject([400, { code: 'invalid_request', field: 'lines[1].accrual.to' }]);
    // 0.10 over 12 months is less than 0.01 a month: refused at booking (decision 822), nothing created.
    const tiny = await t.raw.post('/expenses', { ...base, amount: 0.1, book: true, accrual: { from: '2026-07', to: '2027-06' } });
    expect([tiny.status, tiny.body]).toMatchObject([400, { code: 'invalid_request', field: 'accrual.to' }]);
    expect((await ok(t.api.GET('/expenses'))).meta.total).toBe(0);
    // 60 months (July 2026 to June 2031) is the bound itself: accepted.
    const ok60 = await t.raw.post<{ data: { id: string; accrual: unknown } }>('/expenses', { ...base, accrual: { from: '2026-07', to: '2031-06' } });
    expect([ok60.status, ok60.body.data.accrual]).toEqual([201, { from: '2026-07', to: '2031-06', schedule: [] }]);
    expect((await t.raw.del(`/expenses/${ok60.body.data.id}`)).status).toBe(200);
  });

  let insurance = '';
  it('a yearly insurance booked in July goes to prepaid expenses, and each month moves 1,000.00 to its account', async () => {
    const e = (
      await created(
        t.api.POST('/expenses', {
          params: idem(),
          body: {
            date: '2026-07-10',
            description: 'Erhvervsforsikring 2026/27',
            amount: 12000,
            account_number: '2180',
            accrual: { from: '2026-07', to: '2027-06' },
          },
        }),
      )
    ).data;
    insurance = e.id;
    expect(e.accrual).toEqual({ from: '2026-07', to: '2027-06', schedule: [] });
    const booked = (await ok(t.api.PUT('/expenses/{id}/status', { ...path(insurance), body: { status: 'booked' } }))).data;
    // Booking: debit 6390 (prepaid) 12,000.00, credit 7440 (payables) 12,000.00; nothing on 2180 yet.
    expect([await balance('6390'), await balance('2180'), await balance('7440')]).toEqual([12000, 0, -12000]);
    // 12,000.00 / 12 = 1,000.00 each month, the last one too.
    expect(booked.accrual!.schedule).toHaveLength(12);
    expect(booked.accrual!.schedule.every((m) => m.amount === 1000 && m.status === 'pending')).toBe(true);

    await job('2026-07-30');
    expect(await balance('2180')).toBe(0);
    await job('2026-07-31');
    await job('2026-07-31');
    expect([await balance('6390'), await balance('2180')]).toEqual([11000, 1000]);
    const july = (await ok(t.api.GET('/expenses/{id}', path(insurance)))).data.accrual!.schedule[0]!;
    expect(july).toMatchObject({ month: '2026-07-01', amount: 1000, status: 'posted', date: '2026-07-31' });
    const tx = (await ok(t.api.GET('/transactions/{id}', path(july.transaction_id!)))).data;
    expect(tx).toMatchObject({ date: '2026-07-31', source: 'accrual' });
    expect(tx.lines.map((l) => [l.account_number, l.debit, l.credit])).toEqual([
      ['2180', 1000, 0],
      ['6390', 0, 1000],
    ]);
  });

  it('catches up a downtime in order, a settled period on its first open day, and two runs at once post each month once', async () => {
    // The third quarter was settled and locked meanwhile (decision 824): August and September go to 1 October.
    await updateAccountingSettings(db.prisma, t.company.companyId, { lock_date: '2026-09-30' });
    // Down from August to mid December: August to November on the next runs, December not yet; two runs at once.
    const [r1, r2] = await Promise.all([job('2026-12-15'), job('2026-12-15')]);
    await updateAccountingSettings(db.prisma, t.company.companyId, { lock_date: null });
    expect(r1.failed.concat(r2.failed)).toEqual([]);
    expect(r1.posted + r2.posted).toBe(4);
    const s = (await ok(t.api.GET('/expenses/{id}', path(insurance)))).data.accrual!.schedule;
    expect(s.filter((m) => m.status === 'posted').map((m) => [m.month, m.date])).toEqual([
      ['2026-07-01', '2026-07-31'],
      ['2026-08-01', '2026-10-01'],
      ['2026-09-01', '2026-10-01'],
      ['2026-10-01', '2026-10-31'],
      ['2026-11-01', '2026-11-30'],
    ]);
    // Five months moved: 5,000.00 on 2180, 7,000.00 left on 6390.
    expect([await balance('6390'), await balance('2180')]).toEqual([7000, 5000]);
    // The rest of the year: December to June, the last in the next fiscal year.
    const [r3, r4] = await Promise.all([job('2027-06-30'), job('2027-06-30')]);
    expect(r3.posted + r4.posted).toBe(7);
    expect([await balance('6390'), await balance('2180')]).toEqual([0, 12000]);
    expect(
      await countRows(`SELECT count(*)::int AS n FROM accrual_postings p JOIN accruals a ON a.id = p.accrual_id WHERE a.document_id = $1`, [insurance]),
    ).toBe(12);
    expect(await countRows(`SELECT count(*)::int AS n FROM ledger_transactions WHERE source = 'accrual' AND source_id = $1`, [insurance])).toBe(12);
    expect(await countRows(`SELECT count(*)::int AS n FROM outbox_events WHERE type = 'accrual.posted' AND data->>'document_id' = $1`, [insurance])).toBe(12);
    expect((await job('2027-12-31')).posted).toBe(0);
  });

  it('an invoice line deferred over three months moves 33.33, 33.33 and 33.34; a credit note after two gives back the third', async () => {
    const customer = (await created(t.api.POST('/customers', { params: idem(), body: { name: 'Abonnent A/S' } }))).data.id;
    const inv = (
      await created(
        t.api.POST('/invoices', {
          params: idem(),
          body: {
            customer_id: customer,
            issue_date: '2026-08-01',
            due_date: '2026-08-15',
            lines: [
              { description: 'Abonnement august-oktober', quantity: 1, unit_price: 100, accrual: { from: '2026-08', to: '2026-10' } },
              { description: 'Opstart', quantity: 1, unit_price: 40 },
            ],
          },
        }),
      )
    ).data;
    const before1010 = await balance('1010');
    const approved = (await ok(t.api.PUT('/invoices/{id}/status', { ...path(inv.id), body: { status: 'approved' } }))).data;
    // Approval: receivables 175.00 (140.00 + 25 % VAT 35.00); 8070 credited 100.00, 1010 credited 40.00 (the line not accrued), VAT 35.00.
    expect([await balance('6190'), await balance('8070'), (await balance('1010')) - before1010, await balance('7680')]).toEqual([175, -100, -40, -35]);
    // Signed as the revenue account takes it: a credit, so negative. 100.00 / 3 = 33.333… → 33.33 twice, the last 100.00 − 66.66 = 33.34.
    expect(approved.lines[0]!.accrual!.schedule.map((m) => [m.month, m.amount])).toEqual([
      ['2026-08-01', -33.33],
      ['2026-09-01', -33.33],
      ['2026-10-01', -33.34],
    ]);
    expect(approved.lines[1]!.accrual).toBeNull();

    await job('2026-09-30');
    // August and September moved: 8070 holds −100.00 + 66.66 = −33.34, 1010 −40.00 − 66.66 = −106.66.
    expect([await balance('8070'), (await balance('1010')) - before1010]).toEqual([-33.34, -106.66]);

    const cancelled = (await ok(t.api.PUT('/invoices/{id}/status', { ...path(inv.id), body: { status: 'cancelled', date: '2026-10-05' } }))).data;
    // The credit note: 8070 debited 33.34 (what was left), 1010 debited 66.66 (moved) + 40.00, VAT 35.00, receivables credited 175.00.
    const note = (await ok(t.api.GET('/transactions/{id}', path(cancelled.credit_note!.transaction_id)))).data;
    expect(note.lines.map((l) => [l.account_number, l.debit, l.credit]).sort()).toEqual(
      [
        ['6190', 0, 175],
        ['8070', 33.34, 0],
        ['1010', 40, 0],
        ['7680', 35, 0],
        ['1010', 66.66, 0],
      ].sort(),
    );
    expect([await balance('8070'), (await balance('1010')) - before1010, await balance('6190')]).toEqual([0, 0, 0]);
    // October is never moved: the job after its end posts nothing for the invoice.
    await job('2026-12-31');
    expect(await balance('8070')).toBe(0);
    const s = (await ok(t.api.GET('/invoices/{id}', path(inv.id)))).data.lines[0]!.accrual!.schedule;
    expect(s.map((m) => m.status)).toEqual(['posted', 'posted', 'cancelled']);
    expect(s[1]).toMatchObject({ date: '2026-09-30', transaction_id: expect.any(String) });
  });

  it("a received e-invoice's line is accrued on its own: booking debits 6390 for it under its VAT code, the rest as before", async () => {
    const REFERENCE = ['/work/shared/reference', join(import.meta.dirname, '..', '..', '..', '..', 'shared', 'reference')].find(existsSync)!;
    // The OIOUBL package's invoice: Hejsetavle 5,000.00 and 2 × Beslag 25.00 (50.00), 25 % VAT (1,262.50), dated 20 November 2026.
    const xml = readFileSync(join(REFERENCE, 'einvoice', 'oioubl', 'examples', 'OIOUBL_Invoice_v2p2.xml'), 'utf8')
      .replace('<cbc:IssueDate>2005-11-20', '<cbc:IssueDate>2026-11-20')
      .replace('<cbc:PaymentDueDate>2005-11-25', '<cbc:PaymentDueDate>2026-11-25');
    const m = await t.raw.call<{ data: { expense_id: string } }>('POST', '/einvoices/inbound', {
      raw: xml,
      headers: { 'Content-Type': 'application/xml', ...idem().header },
    });
    expect(m.status, m.text.slice(0, 500)).toBe(201);
    const id = m.body.data.expense_id;
    const draft = (await ok(t.api.GET('/expenses/{id}', path(id)))).data;
    // An expense with lines is accrued line by line.
    const whole = await t.raw.put(`/expenses/${id}`, { accrual: { from: '2026-11', to: '2027-01' } });
    expect([whole.status, whole.body]).toMatchObject([409, { code: 'expense_has_lines', field: 'accrual' }]);
    const line = draft.lines[1]!;
    const set = (
      await ok(
        t.api.PUT('/expenses/{id}/lines/{line_id}', { params: { path: { id, line_id: line.id } }, body: { accrual: { from: '2026-11', to: '2027-01' } } }),
      )
    ).data;
    expect(set.lines.map((l) => [l.account_number, l.accrual])).toEqual([
      ['2810', null],
      ['2810', { from: '2026-11', to: '2027-01', schedule: [] }],
    ]);
    const booked = (await ok(t.api.PUT('/expenses/{id}/status', { ...path(id), body: { status: 'booked' } }))).data;
    const posting = (await ok(t.api.GET('/transactions/{id}', path(booked.posted_transaction_id!)))).data;
    expect(posting.lines.map((l) => [l.account_number, l.debit, l.credit, l.vat_code])).toEqual([
      ['2810', 5000, 0, 'K25'],
      ['6390', 50, 0, 'K25'],
      ['7740', 1262.5, 0, 'K25'],
      ['7440', 0, 6312.5, ''],
    ]);
    // 50.00 / 3 = 16.666… → 16.67 twice (33.34), the last 50.00 − 33.34 = 16.66.
    expect(booked.lines[1]!.accrual!.schedule.map((m) => [m.month, m.amount])).toEqual([
      ['2026-11-01', 16.67],
      ['2026-12-01', 16.67],
      ['2027-01-01', 16.66],
    ]);
    const before = await balance('2810');
    await job('2027-01-31');
    expect([await balance('6390'), (await balance('2810')) - before]).toEqual([0, 50]);
  });
});
