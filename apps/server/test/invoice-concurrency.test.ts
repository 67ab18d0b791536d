// Invoices under concurrency, on three servers (this process and two server processes) sharing one
// database. Issue 8: approvals from many connections keep invoice numbers and the unified document
// number sequence gapless, unique and ordered across invoices, credit notes and manual transactions;
// racing transitions on one invoice (two approvals, pay against cancel, two full payments) end in
// exactly one outcome with one posting. The same for expenses, and for one voucher wanted by several.
import { describe, expect, it } from 'vitest';
import { addDays, today } from '@tlr/domain';
import { countRows, created, idem, newCompany, ok, testDb, twoLinePosting, useServers, type Api, type RequestBody } from './helpers.ts';

const servers = useServers();

const day = (offset = 0) => addDays(today(), offset);
const LINES = [{ description: 'Ydelse', quantity: 2, unit_price: 100 }];

/** A client per server and key: requests spread over the three servers and stay under the rate limit. */
async function clients(company: Awaited<ReturnType<typeof newCompany>>, count: number) {
  const keys = await Promise.all(Array.from({ length: count }, () => company.key()));
  return keys.map((k, i) => servers.api(i, k.key));
}

async function setup(name: string) {
  const company = await newCompany(name);
  const cs = await clients(company, 12);
  const customer = (await created(cs[0]!.POST('/customers', { params: idem(), body: { name: 'Samtidig Kunde ApS' } }))).data.id;
  const invoice = async (c = cs[0]!, extra: Partial<RequestBody<'/invoices', 'post'>> = {}) =>
    (await created(c.POST('/invoices', { params: idem(), body: { customer_id: customer, issue_date: day(), due_date: day(14), lines: LINES, ...extra } })))
      .data;
  return { company, cs, invoice };
}

async function postings(companyId: string) {
  const { rows } = await testDb().pool.query<{ id: string; document_number: number; system_id: number; source: string; source_id: string | null }>(
    `SELECT id, document_number::int, system_id::int, source, source_id FROM ledger_transactions WHERE company_id = $1 ORDER BY system_id`,
    [companyId],
  );
  return rows;
}

const statuses = (replies: { response: Response }[]) => replies.map((r) => r.response.status).sort();
const setInvoiceStatus = (c: Api, id: string, status: 'approved' | 'paid' | 'cancelled') =>
  c.PUT('/invoices/{id}/status', { params: { path: { id } }, body: { status } });

describe('numbering under concurrency', () => {
  it('approvals, auto-approved creates, credit notes and manual postings from three servers share one gapless ordered sequence', async () => {
    const { company, cs, invoice } = await setup('Samtidighed ApS');
    const drafts = await Promise.all(Array.from({ length: 24 }, (_, i) => invoice(cs[i % cs.length])));
    const approvedFirst = await Promise.all(Array.from({ length: 6 }, (_, i) => invoice(cs[i % cs.length], { auto_approve: true })));
    const c = (i: number) => cs[i % cs.length]!;

    const work: Promise<{ response: Response }>[] = [
      // Every draft approved twice at once, through different servers.
      ...drafts.flatMap((d, i) => [setInvoiceStatus(c(i), d.id, 'approved'), setInvoiceStatus(c(i + 1), d.id, 'approved')]),
      ...Array.from({ length: 12 }, (_, i) =>
        c(i).POST('/invoices', { params: idem(), body: { customer_id: undefined, issue_date: day(), due_date: day(14), lines: LINES, auto_approve: true } }),
      ),
      ...approvedFirst.map((inv, i) => setInvoiceStatus(c(i + 2), inv.id, 'cancelled')),
      ...Array.from({ length: 12 }, (_, i) =>
        c(i + 3).POST('/transactions', { params: idem(), body: twoLinePosting(day(), '6470', '6520', 1, `manuel ${i}`) }),
      ),
    ];
    const replies = await Promise.all(work);
    const approvals = replies.slice(0, 48);
    expect(statuses(approvals)).toEqual(Array(48).fill(200));
    // auto_approve without a customer: 400, and no number drawn for it.
    expect(statuses(replies.slice(48, 60))).toEqual(Array(12).fill(400));
    expect(statuses(replies.slice(60, 66))).toEqual(Array(6).fill(200));
    expect(statuses(replies.slice(66))).toEqual(Array(12).fill(201));

    const rows = await postings(company.companyId);
    // 24 + 6 invoices, 6 credit notes, 12 manual transactions: 48 postings numbered 1..48 in posting order.
    expect(rows).toHaveLength(48);
    expect(rows.map((r) => r.document_number)).toEqual(rows.map((_, i) => i + 1));
    expect(rows.map((r) => r.system_id)).toEqual(rows.map((_, i) => i + 1));
    expect(rows.filter((r) => r.source === 'invoice')).toHaveLength(30);
    expect(rows.filter((r) => r.source === 'credit_note')).toHaveLength(6);
    // Each invoice posted exactly once, and its number is its posting's document number.
    const bySource = new Map(rows.filter((r) => r.source === 'invoice').map((r) => [r.source_id, r]));
    expect(bySource.size).toBe(30);
    const { rows: invoices } = await testDb().pool.query<{ id: string; invoice_number: string; posted_transaction_id: string | null }>(
      `SELECT id, invoice_number, posted_transaction_id FROM invoices WHERE company_id = $1`,
      [company.companyId],
    );
    for (const inv of invoices) {
      const posting = bySource.get(inv.id);
      expect(posting).toBeDefined();
      expect(inv.invoice_number).toBe(String(posting?.document_number));
      expect(inv.posted_transaction_id).toBe(posting?.id);
    }
    const { rows: notes } = await testDb().pool.query<{ n: number; t: number }>(
      `SELECT n.document_number::int AS n, t.document_number::int AS t FROM credit_notes n JOIN ledger_transactions t ON t.id = n.transaction_id WHERE n.company_id = $1`,
      [company.companyId],
    );
    expect(notes).toHaveLength(6);
    for (const n of notes) expect(n.n).toBe(n.t);
    // Each approval announced once.
    expect(await countRows(`SELECT count(*)::int AS n FROM outbox_events WHERE company_id = $1 AND type = 'invoice.approved'`, [company.companyId])).toBe(30);
  });
});

describe('racing transitions on one invoice', () => {
  it('pay against cancel, through two servers: one wins, the other is 409, one posting', async () => {
    const { company, cs, invoice } = await setup('Kapløb ApS');
    const invs = await Promise.all(Array.from({ length: 10 }, (_, i) => invoice(cs[i % cs.length], { auto_approve: true })));
    const replies = await Promise.all(
      invs.flatMap((inv, i) => [setInvoiceStatus(cs[i % cs.length]!, inv.id, 'paid'), setInvoiceStatus(cs[(i + 1) % cs.length]!, inv.id, 'cancelled')]),
    );
    const rows = await postings(company.companyId);
    for (const [i, inv] of invs.entries()) {
      const [pay, cancel] = [replies[2 * i]!, replies[2 * i + 1]!];
      expect(statuses([pay, cancel])).toEqual([200, 409]);
      const loser = pay.response.status === 409 ? pay : cancel;
      expect(loser.error).toMatchObject({ code: 'invalid_transition', allowed_statuses: [] });
      const winner = pay.response.status === 200 ? 'paid' : 'cancelled';
      const { rows: state } = await testDb().pool.query<{ status: string }>(`SELECT status FROM invoices WHERE id = $1`, [inv.id]);
      expect(state[0]?.status).toBe(winner);
      const mine = rows.filter((r) => r.source_id === inv.id).map((r) => r.source);
      expect(mine).toEqual(['invoice', winner === 'paid' ? 'payment' : 'credit_note']);
    }
    expect(rows.map((r) => r.document_number)).toEqual(rows.map((_, i) => i + 1));
  });

  it('two full payments at once: one is registered, the other refused; the invoice is paid once', async () => {
    const { company, cs, invoice } = await setup('Dobbeltbetaling ApS');
    const invs = await Promise.all(Array.from({ length: 8 }, (_, i) => invoice(cs[i % cs.length], { auto_approve: true })));
    const pay = (c: Api, id: string) => c.POST('/invoices/{id}/payments', { params: { path: { id }, ...idem() }, body: { amount: 250 } });
    const replies = await Promise.all(invs.flatMap((inv, i) => [pay(cs[i % cs.length]!, inv.id), pay(cs[(i + 1) % cs.length]!, inv.id)]));
    for (let i = 0; i < invs.length; i++) {
      const pair = [replies[2 * i]!, replies[2 * i + 1]!];
      expect(statuses(pair)).toEqual([201, 409]);
      // The second finds the invoice paid: a payment is only registered on an open invoice.
      expect(pair.find((r) => r.response.status === 409)?.error?.code).toBe('invalid_transition');
    }
    const rows = await postings(company.companyId);
    expect(rows.filter((r) => r.source === 'payment')).toHaveLength(8);
    expect(await countRows(`SELECT count(*)::int AS n FROM outbox_events WHERE company_id = $1 AND type = 'invoice.paid'`, [company.companyId])).toBe(8);
  });
});

// The same for expenses (issue 9): racing transitions on one expense post once, and one voucher is
// attached to one expense however many ask for it at once.
describe('expenses and vouchers through three servers', () => {
  const postings = async (id: string) =>
    (await testDb().pool.query<{ source: string }>(`SELECT source FROM ledger_transactions WHERE source_id = $1 ORDER BY system_id`, [id])).rows.map(
      (r) => r.source,
    );
  const setExpenseStatus = (c: Api, id: string, status: 'booked' | 'paid' | 'cancelled') =>
    c.PUT('/expenses/{id}/status', { params: { path: { id } }, body: { status } });

  it('two bookings of one draft: one posting; pay against cancel: one wins, the other is 409, one posting', async () => {
    const company = await newCompany('Udgiftskapløb ApS');
    const cs = await clients(company, 3);
    const drafts = await Promise.all(
      Array.from(
        { length: 6 },
        async (_, i) =>
          (await created(cs[i % 3]!.POST('/expenses', { params: idem(), body: { date: day(), description: `Udgift ${i}`, amount: 125, vat_amount: 25 } }))).data
            .id,
      ),
    );
    for (const id of drafts) {
      const twice = await Promise.all([setExpenseStatus(cs[0]!, id, 'booked'), setExpenseStatus(cs[1]!, id, 'booked')]);
      expect(twice.map((r) => r.response.status)).toEqual([200, 200]); // the second finds it booked: the same status again is a no-op
      expect(await postings(id)).toEqual(['expense']);
    }
    for (const id of drafts) {
      const race = await Promise.all([setExpenseStatus(cs[1]!, id, 'paid'), setExpenseStatus(cs[2]!, id, 'cancelled')]);
      const won = race.filter((r) => r.response.status === 200);
      expect(won, JSON.stringify(race.map((r) => r.data ?? r.error))).toHaveLength(1);
      expect(race.find((r) => r.response.status !== 200)?.error).toMatchObject({ status: 409, code: 'invalid_transition' });
      const outcome = won[0]?.data?.data.status;
      expect(await postings(id)).toEqual(['expense', outcome === 'paid' ? 'payment' : 'expense']); // a cancellation posts the booking's reversal
    }
  });

  it('one voucher asked for by five expenses at once: one is created with it, the rest are refused and create nothing', async () => {
    const company = await newCompany('Bilagskapløb ApS');
    const cs = await clients(company, 5);
    const voucher = (
      await created(
        cs[0]!.POST('/vouchers', { params: idem(), body: { filename: 'kvittering.txt', content_base64: Buffer.from('kvittering').toString('base64') } }),
      )
    ).data.id;
    const replies = await Promise.all(
      cs.map((c, i) => c.POST('/expenses', { params: idem(), body: { voucher_id: voucher, date: day(), description: `Forsøg ${i}`, amount: 10 } })),
    );
    const made = replies.filter((r) => r.response.status === 201);
    expect(made).toHaveLength(1);
    for (const r of replies.filter((x) => x.response.status !== 201)) expect(r.error).toMatchObject({ status: 400, field: 'voucher_id' });
    expect(await countRows(`SELECT count(*)::int AS n FROM expenses WHERE company_id = $1`, [company.companyId])).toBe(1);
    expect((await ok(cs[1]!.GET('/vouchers/{id}', { params: { path: { id: voucher } } }))).data.expense_id).toBe(made[0]?.data?.data.id);
  });
});
