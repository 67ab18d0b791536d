// Invoices under concurrency, on three servers (this process and two server processes) sharing one
// database. Issue 8: approvals from many connections keep invoice numbers and the unified document
// number sequence gapless, unique and ordered across invoices, credit notes and manual transactions;
// racing transitions on one invoice (two approvals, pay against cancel, two full payments) end in
// exactly one outcome with one posting. The same for expenses, and for one voucher wanted by several.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, today } from '@tlr/domain';
import { client, newCompany, startServers, testDb, type Reply } from './helpers.ts';

let servers: Awaited<ReturnType<typeof startServers>>;
let urls: string[] = [];

beforeAll(async () => {
  servers = await startServers();
  urls = servers.urls;
});
afterAll(() => servers?.stop());

const day = (offset = 0) => addDays(today(), offset);
const LINES = [{ description: 'Ydelse', quantity: 2, unit_price: 100 }];

/** A client per server and key: requests spread over the three servers and stay under the rate limit. */
async function clients(company: Awaited<ReturnType<typeof newCompany>>, count: number) {
  const keys = await Promise.all(Array.from({ length: count }, () => company.key()));
  return keys.map((k, i) => client(urls[i % urls.length]!, k.key));
}

async function setup(name: string) {
  const company = await newCompany(name);
  const cs = await clients(company, 12);
  const customer = (await cs[0]!.post('/customers', { name: 'Samtidig Kunde ApS' })).body.data.id as string;
  const invoice = (c = cs[0]!, extra: object = {}) =>
    c.post('/invoices', { customer_id: customer, issue_date: day(), due_date: day(14), lines: LINES, ...extra }).then((r: Reply) => {
      expect(r.status).toBe(201);
      return r.body.data as { id: string; invoice_number: string; posted_transaction_id?: string };
    });
  return { company, cs, invoice };
}

async function postings(companyId: string) {
  const { rows } = await testDb().pool.query<{ id: string; document_number: number; system_id: number; source: string; source_id: string | null }>(
    `SELECT id, document_number::int, system_id::int, source, source_id FROM ledger_transactions WHERE company_id = $1 ORDER BY system_id`,
    [companyId],
  );
  return rows;
}

const statuses = (replies: Reply[]) => replies.map((r) => r.status).sort();

describe('numbering under concurrency', () => {
  it('approvals, auto-approved creates, credit notes and manual postings from three servers share one gapless ordered sequence', async () => {
    const { company, cs, invoice } = await setup('Samtidighed ApS');
    const drafts = await Promise.all(Array.from({ length: 24 }, (_, i) => invoice(cs[i % cs.length])));
    const approvedFirst = await Promise.all(Array.from({ length: 6 }, (_, i) => invoice(cs[i % cs.length], { auto_approve: true })));
    const c = (i: number) => cs[i % cs.length]!;

    const work: Promise<Reply>[] = [
      // Every draft approved twice at once, through different servers.
      ...drafts.flatMap((d, i) => [
        c(i).put(`/invoices/${d.id}/status`, { status: 'approved' }),
        c(i + 1).put(`/invoices/${d.id}/status`, { status: 'approved' }),
      ]),
      ...Array.from({ length: 12 }, (_, i) =>
        c(i).post('/invoices', { customer_id: undefined, issue_date: day(), due_date: day(14), lines: LINES, auto_approve: true }),
      ),
      ...approvedFirst.map((inv, i) => c(i + 2).put(`/invoices/${inv.id}/status`, { status: 'cancelled' })),
      ...Array.from({ length: 12 }, (_, i) =>
        c(i + 3).post('/transactions', {
          date: day(),
          description: `manuel ${i}`,
          lines: [
            { account_number: '6470', debit: 1 },
            { account_number: '6520', credit: 1 },
          ],
        }),
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
    const { rows: invoices } = await testDb().pool.query(`SELECT id, invoice_number, posted_transaction_id FROM invoices WHERE company_id = $1`, [
      company.companyId,
    ]);
    for (const inv of invoices) {
      expect(inv.invoice_number).toBe(String(bySource.get(inv.id)!.document_number));
      expect(inv.posted_transaction_id).toBe(bySource.get(inv.id)!.id);
    }
    const { rows: notes } = await testDb().pool.query(
      `SELECT n.document_number::int AS n, t.document_number::int AS t FROM credit_notes n JOIN ledger_transactions t ON t.id = n.transaction_id WHERE n.company_id = $1`,
      [company.companyId],
    );
    expect(notes).toHaveLength(6);
    for (const n of notes) expect(n.n).toBe(n.t);
    // Each approval announced once.
    const { rows: events } = await testDb().pool.query(`SELECT count(*)::int AS n FROM outbox_events WHERE company_id = $1 AND type = 'invoice.approved'`, [
      company.companyId,
    ]);
    expect(events[0].n).toBe(30);
  });
});

describe('racing transitions on one invoice', () => {
  it('pay against cancel, through two servers: one wins, the other is 409, one posting', async () => {
    const { company, cs, invoice } = await setup('Kapløb ApS');
    const invs = await Promise.all(Array.from({ length: 10 }, (_, i) => invoice(cs[i % cs.length], { auto_approve: true })));
    const replies = await Promise.all(
      invs.flatMap((inv, i) => [
        cs[i % cs.length]!.put(`/invoices/${inv.id}/status`, { status: 'paid' }),
        cs[(i + 1) % cs.length]!.put(`/invoices/${inv.id}/status`, { status: 'cancelled' }),
      ]),
    );
    const rows = await postings(company.companyId);
    for (const [i, inv] of invs.entries()) {
      const [pay, cancel] = [replies[2 * i]!, replies[2 * i + 1]!];
      expect(statuses([pay, cancel])).toEqual([200, 409]);
      const loser = pay.status === 409 ? pay : cancel;
      expect(loser.body).toMatchObject({ code: 'invalid_transition', allowed_statuses: [] });
      const winner = pay.status === 200 ? 'paid' : 'cancelled';
      const { rows: state } = await testDb().pool.query(`SELECT status FROM invoices WHERE id = $1`, [inv.id]);
      expect(state[0].status).toBe(winner);
      const mine = rows.filter((r) => r.source_id === inv.id).map((r) => r.source);
      expect(mine).toEqual(['invoice', winner === 'paid' ? 'payment' : 'credit_note']);
    }
    expect(rows.map((r) => r.document_number)).toEqual(rows.map((_, i) => i + 1));
  });

  it('two full payments at once: one is registered, the other refused; the invoice is paid once', async () => {
    const { company, cs, invoice } = await setup('Dobbeltbetaling ApS');
    const invs = await Promise.all(Array.from({ length: 8 }, (_, i) => invoice(cs[i % cs.length], { auto_approve: true })));
    const replies = await Promise.all(
      invs.flatMap((inv, i) => [
        cs[i % cs.length]!.post(`/invoices/${inv.id}/payments`, { amount: 250 }),
        cs[(i + 1) % cs.length]!.post(`/invoices/${inv.id}/payments`, { amount: 250 }),
      ]),
    );
    for (let i = 0; i < invs.length; i++) {
      const pair = [replies[2 * i]!, replies[2 * i + 1]!];
      expect(statuses(pair)).toEqual([201, 409]);
      // The second finds the invoice paid: a payment is only registered on an open invoice.
      expect(pair.find((r) => r.status === 409)!.body.code).toBe('invalid_transition');
    }
    const rows = await postings(company.companyId);
    expect(rows.filter((r) => r.source === 'payment')).toHaveLength(8);
    const { rows: events } = await testDb().pool.query(`SELECT count(*)::int AS n FROM outbox_events WHERE company_id = $1 AND type = 'invoice.paid'`, [
      company.companyId,
    ]);
    expect(events[0].n).toBe(8);
  });
});

// The same for expenses (issue 9): racing transitions on one expense post once, and one voucher is
// attached to one expense however many ask for it at once.
describe('expenses and vouchers through three servers', () => {
  const postings = async (id: string) =>
    (await testDb().pool.query(`SELECT source FROM ledger_transactions WHERE source_id = $1 ORDER BY system_id`, [id])).rows.map((r) => r.source);

  it('two bookings of one draft: one posting; pay against cancel: one wins, the other is 409, one posting', async () => {
    const company = await newCompany('Udgiftskapløb ApS');
    const cs = await clients(company, 3);
    const drafts = await Promise.all(
      Array.from(
        { length: 6 },
        async (_, i) => (await cs[i % 3]!.post('/expenses', { date: day(), description: `Udgift ${i}`, amount: 125, vat_amount: 25 })).body.data.id as string,
      ),
    );
    for (const id of drafts) {
      const twice = await Promise.all([cs[0]!.put(`/expenses/${id}/status`, { status: 'booked' }), cs[1]!.put(`/expenses/${id}/status`, { status: 'booked' })]);
      expect(twice.map((r) => r.status)).toEqual([200, 200]); // the second finds it booked: the same status again is a no-op
      expect(await postings(id)).toEqual(['expense']);
    }
    for (const id of drafts) {
      const race = await Promise.all([cs[1]!.put(`/expenses/${id}/status`, { status: 'paid' }), cs[2]!.put(`/expenses/${id}/status`, { status: 'cancelled' })]);
      const won = race.filter((r) => r.status === 200);
      expect(won, JSON.stringify(race.map((r) => r.body))).toHaveLength(1);
      expect(race.find((r) => r.status !== 200)!.body).toMatchObject({ status: 409, code: 'invalid_transition' });
      const outcome = won[0]!.body.data.status as string;
      expect(await postings(id)).toEqual(['expense', outcome === 'paid' ? 'payment' : 'expense']); // a cancellation posts the booking's reversal
    }
  });

  it('one voucher asked for by five expenses at once: one is created with it, the rest are refused and create nothing', async () => {
    const company = await newCompany('Bilagskapløb ApS');
    const cs = await clients(company, 5);
    const voucher = (await cs[0]!.post('/vouchers', { filename: 'kvittering.txt', content_base64: Buffer.from('kvittering').toString('base64') })).body.data.id;
    const replies = await Promise.all(cs.map((c, i) => c.post('/expenses', { voucher_id: voucher, date: day(), description: `Forsøg ${i}`, amount: 10 })));
    const created = replies.filter((r) => r.status === 201);
    expect(created).toHaveLength(1);
    for (const r of replies.filter((x) => x.status !== 201)) expect(r.body).toMatchObject({ status: 400, field: 'voucher_id' });
    const { rows } = await testDb().pool.query(`SELECT count(*)::int AS n FROM expenses WHERE company_id = $1`, [company.companyId]);
    expect(rows[0].n).toBe(1);
    expect((await cs[1]!.get(`/vouchers/${voucher}`)).body.data.expense_id).toBe(created[0]!.body.data.id);
  });
});
