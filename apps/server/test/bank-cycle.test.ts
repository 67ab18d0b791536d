// The full cycle of the bank through HTTP against PostgreSQL: an invoice with an FI payment id, its PDF's
// payment line, the bank's CSV carrying the id, the invoice paid by the import's own matching, a reminder
// refused for it, while another unpaid invoice gets its three reminders with fees and interest (worked out
// by hand below) and a fourth refused; then the reconciliation agrees. And "two processes import the same
// statement and match at once, and every line is posted exactly once".
import { describe, expect, it } from 'vitest';
import { extractText, getDocumentProxy } from 'unpdf';
import { countRows, created, idem, ok, useCompany, useServers } from './helpers.ts';

const t = useCompany({ name: 'Kredsløb ApS', cvr: '12345674' });
const servers = useServers(1);
const path = (id: string) => ({ params: { path: { id } } });

/** A Danske Bank CSV export (the preset is known by its header), newest line first as the bank writes it. */
function danskeCsv(lines: { date: string; text: string; amount: string; balance: string }[]): string {
  const dk = (iso: string) => iso.split('-').reverse().join('.');
  return [
    '"Dato";"Tekst";"Beløb";"Saldo";"Status";"Afstemt"',
    ...lines.map((l) => `"${dk(l.date)}";"${l.text}";"${l.amount}";"${l.balance}";"Udført";"Nej"`),
  ].join('\r\n');
}

async function upload(baseUrl: string, key: string, accountId: string, csv: string) {
  const res = await fetch(`${baseUrl}/api/v1/bank-accounts/${accountId}/statements`, {
    method: 'POST',
    headers: { 'Content-Type': 'text/csv; charset=utf-8', 'X-API-Key': key, 'Idempotency-Key': `cycle-${crypto.randomUUID()}` },
    body: csv,
  });
  return { status: res.status, body: (await res.json()) as { data: { lines: { total: number; new: number; duplicates: number } } } };
}

describe('invoice with FI id -> PDF -> bank line -> paid -> reminder refused; another invoice reminded', () => {
  it('runs the cycle', async () => {
    const c = (await t.newKey()).api;
    await ok(
      c.PUT('/settings/company', {
        body: {
          fi_creditor_number: '81234567',
          reminder_fee_enabled: true,
          reminder_fee: 100,
          reminder_interest_enabled: true,
          reminder_reference_rate: '1.60',
        },
      }),
    );
    const bank = (await created(c.POST('/bank-accounts', { params: idem(), body: { name: 'Driftskonto' } }))).data;
    const customer = (await created(c.POST('/customers', { params: idem(), body: { name: 'Erhvervskunde A/S', cvr: '29190925' } }))).data.id;
    const invoiceOf = async (net: number) => {
      const body = {
        customer_id: customer,
        issue_date: '2026-10-22',
        due_date: '2026-11-05',
        auto_approve: true,
        lines: [{ description: 'Rådgivning', quantity: 1, unit_price: net }],
      };
      const { id } = (await created(c.POST('/invoices', { params: idem(), body }))).data;
      return (await ok(c.GET('/invoices/{id}', path(id)))).data;
    };
    const paidBy = await invoiceOf(2000); // 2,500.00 with VAT
    const unpaid = await invoiceOf(800); // 1,000.00 with VAT

    // The PDF prints the payment line the payer types into the bank.
    const pdf = await c.GET('/invoices/{id}/pdf', { ...path(paidBy.id), parseAs: 'arrayBuffer' });
    const { text } = await extractText(await getDocumentProxy(new Uint8Array(pdf.data as ArrayBuffer)), { mergePages: true });
    expect(text.replace(/\s+/g, ' ')).toContain(`+71<${paidBy.payment_id} +81234567<`);

    // The bank's file: the customer paid with the id; a fee the bank took.
    const csv = danskeCsv([
      { date: '2026-11-04', text: 'Gebyr', amount: '-25,00', balance: '2.475,00' },
      { date: '2026-11-03', text: `Indbetalingskort 71${paidBy.payment_id}`, amount: '2.500,00', balance: '2.500,00' },
    ]);
    const r = await upload(t.svc.url, t.key, bank.id, csv);
    expect(r.status).toBe(201);
    expect(r.body.data.lines).toEqual({ total: 2, new: 2, duplicates: 0 });
    expect(await ok(c.GET('/invoices/{id}', path(paidBy.id)))).toMatchObject({ data: { status: 'paid', paid_amount: 2500 } });
    // The control trail: the import is the key's, the match automatic matching's own (decision 310).
    const trail = async (query: { type: 'bank_statement' | 'bank_line' | 'invoice'; action?: string; resource_id?: string }) =>
      (await ok(c.GET('/audit-trail', { params: { query } }))).data.map((e) => e.registered_by);
    expect(await trail({ type: 'bank_statement' })).toEqual([expect.objectContaining({ type: 'api_key' })]);
    const automatic = { type: 'system', id: 'match-bank-lines', name: 'tlr: automatic bank matching' };
    expect(await trail({ type: 'bank_line', action: 'matched' })).toEqual([automatic]);
    expect(await trail({ type: 'invoice', resource_id: paidBy.id, action: 'paid' })).toEqual([automatic]);
    const lines = (await ok(c.GET('/bank-accounts/{id}/lines', { params: { path: { id: bank.id }, query: { status: 'unmatched' } } }))).data;
    expect(lines.map((l) => l.text)).toEqual(['Gebyr']);
    await ok(c.POST('/bank-lines/{id}/post', { params: { path: { id: lines[0]!.id }, ...idem() }, body: { account_number: '2390' } }));

    // Paid: no reminder.
    const refused = await c.POST('/invoices/{id}/reminders', { params: { path: { id: paidBy.id }, ...idem() }, body: {} });
    expect(refused.response.status).toBe(409);
    expect(refused.error).toMatchObject({ code: 'invoice_not_remindable', current_status: 'paid' });

    // Unpaid, a business buyer: 100 DKK each and interest at 1.60 + 8 = 9.60 % a year on 1,000.00, pro rata by day:
    //   1st on 2026-11-06: 1 day from the due date  -> 1000 × 9.60/100 × 1/365  = 0.263 -> 0.26
    //   2nd on 2026-11-16: 10 days from the 1st      -> 1000 × 9.60/100 × 10/365 = 2.630 -> 2.63
    //   3rd on 2026-11-26: 10 days from the 2nd      -> 2.63
    const remind = (date: string) => c.POST('/invoices/{id}/reminders', { params: { path: { id: unpaid.id }, ...idem() }, body: { date } });
    const first = (await created(remind('2026-11-06'))).data;
    expect(first).toMatchObject({ number: 1, fee: 100, interest: 0.26, interest_days: 1, interest_rate: '9.60', balance_due: 1000, charges_total: 100.26 });
    const early = await remind('2026-11-15');
    expect(early.response.status).toBe(409);
    expect(early.error).toMatchObject({ code: 'reminder_too_early', next_allowed_date: '2026-11-16' });
    expect((await created(remind('2026-11-16'))).data).toMatchObject({ number: 2, fee: 100, interest: 2.63, interest_days: 10, charges_total: 202.89 });
    expect((await created(remind('2026-11-26'))).data).toMatchObject({ number: 3, fee: 100, interest: 2.63, charges_total: 305.52 });
    const fourth = await remind('2026-11-27');
    expect(fourth.response.status).toBe(409);
    expect(fourth.error).toMatchObject({ code: 'reminder_limit_reached' });

    // The books agree with the bank at the statement's end: every line is matched or posted.
    const rec = (await ok(c.GET('/bank-accounts/{id}/reconciliation', { params: { path: { id: bank.id }, query: { as_of: '2026-11-04' } } }))).data;
    expect(rec).toMatchObject({ bank_balance: 2475, ledger_balance: 2475, difference: 0, last_matched_date: '2026-11-04' });
  });
});

describe('two processes import the same statement and match at once', () => {
  it('every line is stored once and posted once', async () => {
    const c = (await t.newKey()).api;
    const bank =
      (await created(c.POST('/accounts', { params: idem(), body: { account_number: '6475', name: 'Bank 2', type: 'asset' } }))) &&
      (await created(c.POST('/bank-accounts', { params: idem(), body: { name: 'Konto 2', account_number: '6475' } }))).data;
    const customer = (await created(c.POST('/customers', { params: idem(), body: { name: 'Kunde B A/S' } }))).data.id;
    const invoices = [];
    for (let i = 0; i < 15; i++) {
      const body = {
        customer_id: customer,
        issue_date: '2026-11-02',
        due_date: '2026-11-30',
        auto_approve: true,
        lines: [{ description: 'Vare', quantity: 1, unit_price: 100 + i }],
      };
      const { id } = (await created(c.POST('/invoices', { params: idem(), body }))).data;
      invoices.push((await ok(c.GET('/invoices/{id}', path(id)))).data);
    }
    let balance = 0;
    const rows = invoices.map((inv) => {
      balance += inv.total;
      return {
        date: '2026-11-20',
        text: `FIK 71${inv.payment_id}`,
        amount: inv.total.toFixed(2).replace('.', ','),
        balance: balance.toFixed(2).replace('.', ','),
      };
    });
    const csv = danskeCsv(rows.reverse());
    const keys = [(await t.newKey()).key, (await t.newKey()).key];
    const [a, b] = await Promise.all([upload(servers.urls[0]!, keys[0]!, bank.id, csv), upload(servers.urls[1]!, keys[1]!, bank.id, csv)]);
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(a.body.data.lines.new + b.body.data.lines.new).toBe(15);
    expect(await countRows(`SELECT count(*)::int AS n FROM bank_lines WHERE bank_account_id = $1 AND status = 'matched'`, [bank.id])).toBe(15);
    expect(await countRows(`SELECT count(*)::int AS n FROM invoice_payments WHERE invoice_id = ANY($1::uuid[])`, [invoices.map((i) => i.id)])).toBe(15);
    for (const inv of invoices) expect((await ok(c.GET('/invoices/{id}', path(inv.id)))).data).toMatchObject({ status: 'paid', paid_amount: inv.total });
  });
});
