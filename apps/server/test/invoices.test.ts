// Invoices through HTTP against PostgreSQL: the contract's shapes, the arithmetic, approval with
// numbering and posting, the status lifecycle, payments, credit notes, the overdue sweep and the
// refusals. Contract: Resources > Invoice, Invoice create input; States and transitions > Invoice.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '@tlr/db';
import { addDays, sweepOverdue, today as businessDay } from '@tlr/domain';
import { QUEUES, startBoss } from '@tlr/jobs';
import { client, databaseUrl, internal, newCompany, startTestService, testDb } from './helpers.ts';
import type { Service } from '../src/service.ts';

let svc: Service;
let company: Awaited<ReturnType<typeof newCompany>>;
let customerId: string;
// The company's business day (calendar.ts), which dated defaults such as a payment date use.
const today = businessDay();
const plus = (days: number) => addDays(today, days);

// A fresh key per test keeps each test under the contract's 100 requests per minute per credential.
const api = async () => client(svc.url, (await company.key()).key);

beforeAll(async () => {
  svc = await startTestService();
  company = await newCompany('Fakturafirma ApS');
  const c = await api();
  customerId = (await c.post('/customers', { name: 'Kunde A/S', address_line1: 'Vestergade 12', postal_code: '8000', city: 'Aarhus C', cvr: '12345674' })).body
    .data.id;
});
afterAll(() => svc.stop());

// The issue's hand-checked invoice: 3 × 19.96 at 25 % + 1.5 × 10.10 at 0 %.
const HAND_CHECKED = [
  { description: 'Skruer', quantity: 3, unit_price: 19.96 },
  { description: 'Momsfri ydelse', quantity: 1.5, unit_price: 10.1, vat_rate: 0 },
];
const body = (extra: object = {}) => ({ customer_id: customerId, issue_date: today, due_date: plus(14), lines: HAND_CHECKED, ...extra });

/** The document numbers of the company's postings and credit notes, in order. */
async function documentNumbers(companyId: string): Promise<number[]> {
  const { rows } = await testDb().pool.query(`SELECT DISTINCT document_number::int AS n FROM ledger_transactions WHERE company_id = $1 ORDER BY 1`, [
    companyId,
  ]);
  return rows.map((r) => r.n);
}

const postingOf = async (c: Awaited<ReturnType<typeof api>>, id: string) => {
  const t = (await c.get(`/transactions/${id}`)).body.data;
  return { ...t, lines: t.lines.map((l: any) => [l.account_number, l.debit, l.credit, l.vat_code]) };
};

describe('create and read', () => {
  it('computes the hand-checked invoice: 75.03 + 14.97 VAT = 90.00, lines as sent, vat_rate 25 when omitted', async () => {
    const c = await api();
    const r = await c.post('/invoices', body({ customer_id: undefined, notes: 'Første faktura' }));
    expect(r.status).toBe(201);
    // Contract: "Create response (201): id, invoice_number (empty for a draft), status, subtotal, vat_amount, total."
    expect(r.body.data).toEqual({ id: expect.any(String), invoice_number: '', status: 'draft', subtotal: 75.03, vat_amount: 14.97, total: 90 });
    const got = (await c.get(`/invoices/${r.body.data.id}`)).body.data;
    expect(got).toMatchObject({
      invoice_number: '',
      customer_id: null,
      customer_name: '',
      status: 'draft',
      issue_date: today,
      due_date: plus(14),
      currency: 'DKK',
      notes: 'Første faktura',
    });
    expect(got.lines).toEqual([
      { line_number: 1, product_id: null, description: 'Skruer', quantity: 3, unit_price: 19.96, vat_rate: 25, amount: 59.88 },
      { line_number: 2, product_id: null, description: 'Momsfri ydelse', quantity: 1.5, unit_price: 10.1, vat_rate: 0, amount: 15.15 },
    ]);
    // The list shape carries every field of the contract's table with its type.
    const listed = (await c.get('/invoices?search=F%C3%B8rste')).body.data;
    expect(listed).toHaveLength(1);
    for (const f of ['id', 'invoice_number', 'customer_name', 'status', 'issue_date', 'due_date', 'currency', 'created_at', 'updated_at'])
      expect(typeof listed[0][f]).toBe('string');
    for (const f of ['subtotal', 'vat_amount', 'total']) expect(typeof listed[0][f]).toBe('number');
    expect(listed[0].customer_id).toBeNull();
    expect(listed[0].lines).toBeUndefined();
  });

  it('rounds each line to øre once and VAT per rate group, half up', async () => {
    const c = await api();
    // 3 × 33.333 is refused (2 decimals); 0.3333 × 10.01 = 3.336333 -> 3.34; 2 × 0.01 VAT 25 % per group: 0.005 -> 0.01
    const r = await c.post(
      '/invoices',
      body({
        lines: [
          { description: 'a', quantity: 0.3333, unit_price: 10.01 },
          { description: 'b', quantity: 2, unit_price: 0.01 },
        ],
      }),
    );
    expect(r.body.data).toMatchObject({ subtotal: 3.36, vat_amount: 0.84, total: 4.2 });
    const bad = await c.post('/invoices', body({ lines: [{ description: 'a', quantity: 1.23456, unit_price: 1 }] }));
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'invalid_request', field: 'lines[0].quantity' });
  });

  it('takes description, unit price and VAT rate from a product, and refuses what it cannot invoice', async () => {
    const c = await api();
    const product = (await c.post('/products', { name: 'Timepris', unit_price: 850, vat_rate: 25 })).body.data;
    const r = await c.post('/invoices', body({ lines: [{ product_id: product.id, quantity: 2 }] }));
    expect(r.body.data).toMatchObject({ subtotal: 1700, vat_amount: 425, total: 2125 });
    const lines = (await c.get(`/invoices/${r.body.data.id}`)).body.data.lines;
    expect(lines[0]).toMatchObject({ product_id: product.id, description: 'Timepris', unit_price: 850, vat_rate: 25 });
    const refusals: [object, string][] = [
      [{ lines: [] }, 'lines'],
      [{ lines: [{ quantity: 1, unit_price: 1 }] }, 'lines[0].description'],
      [{ lines: [{ description: 'x', quantity: 1 }] }, 'lines[0].unit_price'],
      [{ lines: [{ description: 'x', quantity: 1, unit_price: 1, vat_rate: 12 }] }, 'lines[0].vat_rate'],
      [{ lines: [{ description: 'x', quantity: 1, unit_price: 1.001 }] }, 'lines[0].unit_price'],
      [{ lines: [{ description: 'x', quantity: -1, unit_price: 10 }] }, 'lines'],
      [{ due_date: '2020-01-01' }, 'due_date'],
      [{ issue_date: '2026-02-30' }, 'issue_date'],
      [{ issue_date: undefined }, 'issue_date'],
      [{ customer_id: '00000000-0000-4000-8000-000000000000' }, 'customer_id'],
      [{ lines: [{ product_id: '00000000-0000-4000-8000-000000000000', quantity: 1 }] }, 'lines[0].product_id'],
    ];
    for (const [extra, field] of refusals) {
      const bad = await c.post('/invoices', body(extra));
      expect([bad.status, bad.body.code, bad.body.field], JSON.stringify(extra)).toEqual([400, 'invalid_request', field]);
    }
  });

  it('refuses a customer of another company and of the sandbox; nothing is created', async () => {
    const other = await newCompany('Anden ApS');
    const oc = client(svc.url, (await other.key()).key);
    const foreign = (await oc.post('/customers', { name: 'Fremmed' })).body.data.id;
    const sandbox = client(svc.url, (await company.key(undefined, 'test')).key);
    const sandboxCustomer = (await sandbox.post('/customers', { name: 'Sandkasse' })).body.data.id;
    const c = await api();
    const before = (await c.get('/invoices')).body.meta.total;
    for (const id of [foreign, sandboxCustomer]) {
      for (const auto_approve of [false, true]) {
        const r = await c.post('/invoices', body({ customer_id: id, auto_approve }));
        expect([r.status, r.body.code, r.body.field]).toEqual([400, 'invalid_request', 'customer_id']);
      }
    }
    expect((await c.get('/invoices')).body.meta.total).toBe(before);
  });
});

describe('approval', () => {
  it('auto_approve numbers from the unified sequence and posts receivables, revenue per rate and output VAT', async () => {
    const c = await api();
    const manual = (
      await c.post('/transactions', {
        date: today,
        lines: [
          { account_number: '6470', debit: 1 },
          { account_number: '6520', credit: 1 },
        ],
      })
    ).body.data;
    const r = await c.post('/invoices', body({ auto_approve: true }));
    expect(r.status).toBe(201);
    expect(r.body.data).toEqual({
      id: expect.any(String),
      invoice_number: String(manual.document_number + 1),
      status: 'approved',
      subtotal: 75.03,
      vat_amount: 14.97,
      total: 90,
      posted_transaction_id: expect.any(String),
      posted_system_id: manual.system_id + 1,
    });
    const posting = await postingOf(c, r.body.data.posted_transaction_id);
    expect(posting).toMatchObject({ document_number: manual.document_number + 1, source: 'invoice', date: today });
    expect(posting.lines).toEqual([
      ['6190', 90, 0, ''],
      ['1010', 0, 59.88, 'S25'],
      ['1010', 0, 15.15, 'S0'],
      ['7680', 0, 14.97, 'S25'],
    ]);
    const got = (await c.get(`/invoices/${r.body.data.id}`)).body.data;
    expect(got).toMatchObject({ customer_id: customerId, customer_name: 'Kunde A/S', status: 'approved', posted_transaction_id: posting.id });
    // The posting of a document is changed through the document: no plain reversal.
    const rev = await c.post(`/transactions/${posting.id}/reverse`, {});
    expect([rev.status, rev.body.code]).toEqual([409, 'reversal_of_document']);
  });

  it('auto_approve records its events in the order they happened, committed with the invoice', async () => {
    const c = await api();
    const r = await c.post('/invoices', body({ auto_approve: true }));
    expect(r.status).toBe(201);
    const { rows } = await testDb().pool.query(
      `SELECT type, data->>'id' AS id FROM outbox_events WHERE company_id = $1 AND (data->>'id' = $2 OR data->>'id' = $3) ORDER BY sequence`,
      [company.companyId, r.body.data.id, r.body.data.posted_transaction_id],
    );
    expect(rows.map((e) => e.type)).toEqual(['invoice.created', 'transaction.created', 'invoice.approved']);
    // The invoice the events carry is built from what the transaction wrote, not read back: it is what GET reads.
    const got = (await c.get(`/invoices/${r.body.data.id}`)).body.data;
    const { rows: data } = await testDb().pool.query(`SELECT type, data FROM outbox_events WHERE company_id = $1 AND data->>'id' = $2 ORDER BY sequence`, [
      company.companyId,
      r.body.data.id,
    ]);
    const approved = data.find((e) => e.type === 'invoice.approved')!.data;
    expect(Object.keys(approved).length).toBeGreaterThan(5);
    for (const [field, value] of Object.entries(approved)) expect({ field, value }).toEqual({ field, value: got[field] });
    expect(data[0].data).toMatchObject({ id: got.id, status: 'draft', total: got.total, customer_id: got.customer_id });
    // A refused create records nothing: its held events roll back with it.
    const before = (await testDb().pool.query('SELECT count(*)::int AS n FROM outbox_events WHERE company_id = $1', [company.companyId])).rows[0].n;
    expect((await c.post('/invoices', body({ auto_approve: true, issue_date: '1999-01-01', due_date: '1999-01-15' }))).status).toBe(422);
    expect((await testDb().pool.query('SELECT count(*)::int AS n FROM outbox_events WHERE company_id = $1', [company.companyId])).rows[0].n).toBe(before);
  });

  it('auto_approve without customer_id is 400 and draws no number; a replay draws none and posts nothing', async () => {
    const c = await api();
    const before = await documentNumbers(company.companyId);
    const r = await c.post('/invoices', body({ customer_id: undefined, auto_approve: true }));
    expect([r.status, r.body.code, r.body.field]).toEqual([400, 'invalid_request', 'customer_id']);
    expect(await documentNumbers(company.companyId)).toEqual(before);

    const headers = { 'Idempotency-Key': `approve-${Date.now()}` };
    const first = await c.post('/invoices', body({ auto_approve: true }), headers);
    const again = await c.post('/invoices', body({ auto_approve: true }), headers);
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get('x-idempotency-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await documentNumbers(company.companyId)).toEqual([...before, Number(first.body.data.invoice_number)]);
  });

  it('PUT status approved approves a draft; without a customer it is 422 invoice_incomplete and nothing is drawn', async () => {
    const c = await api();
    const draft = (await c.post('/invoices', body({ customer_id: null }))).body.data;
    const before = await documentNumbers(company.companyId);
    const refused = await c.put(`/invoices/${draft.id}/status`, { status: 'approved' });
    expect([refused.status, refused.body.code, refused.body.field]).toEqual([422, 'invoice_incomplete', 'customer_id']);
    expect(await documentNumbers(company.companyId)).toEqual(before);
    expect((await c.put(`/invoices/${draft.id}`, { customer_id: customerId })).body.data.customer_name).toBe('Kunde A/S');
    const ok = await c.put(`/invoices/${draft.id}/status`, { status: 'approved' });
    expect(ok.status).toBe(200);
    expect(ok.body.data).toMatchObject({ status: 'approved', invoice_number: String(before.at(-1)! + 1), lines: expect.any(Array) });
    // The answer is the invoice as stored (built without reading it back).
    expect(ok.body.data).toEqual((await c.get(`/invoices/${draft.id}`)).body.data);
  });

  it("freezes the customer's name at approval; a later rename does not change the invoice", async () => {
    const c = await api();
    const cust = (await c.post('/customers', { name: 'Før Navn ApS' })).body.data.id;
    const inv = (await c.post('/invoices', body({ customer_id: cust, auto_approve: true }))).body.data;
    await c.put(`/customers/${cust}`, { name: 'Efter Navn ApS' });
    expect((await c.get(`/invoices/${inv.id}`)).body.data.customer_name).toBe('Før Navn ApS');
  });

  it('refuses an issue date outside the open fiscal years (422) and draws no number', async () => {
    const c = await api();
    const before = await documentNumbers(company.companyId);
    const r = await c.post('/invoices', body({ issue_date: '2001-03-01', due_date: '2001-03-15', auto_approve: true }));
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ code: 'fiscal_year_not_open', field: 'date' });
    expect(await documentNumbers(company.companyId)).toEqual(before);
  });
});

describe('drafts only change while drafts', () => {
  it('updates and deletes a draft; an approved invoice is 409 invoice_not_draft for both', async () => {
    const c = await api();
    const draft = (await c.post('/invoices', body())).body.data;
    const upd = await c.put(`/invoices/${draft.id}`, { lines: [{ description: 'Ny linje', quantity: 2, unit_price: 100 }], notes: 'rettet' });
    expect(upd.status).toBe(200);
    expect(upd.body.data).toMatchObject({
      subtotal: 200,
      vat_amount: 50,
      total: 250,
      notes: 'rettet',
      lines: [{ description: 'Ny linje', quantity: 2, vat_rate: 25 }],
    });
    expect((await c.put(`/invoices/${draft.id}`, { due_date: '2000-01-01' })).body.field).toBe('due_date');
    const del = await c.del(`/invoices/${draft.id}`);
    expect(del.body).toEqual({ data: { id: draft.id, deleted: true } });
    expect((await c.get(`/invoices/${draft.id}`)).status).toBe(404);

    const approved = (await c.post('/invoices', body({ auto_approve: true }))).body.data;
    const put = await c.put(`/invoices/${approved.id}`, { notes: 'ændret' });
    const rm = await c.del(`/invoices/${approved.id}`);
    for (const r of [put, rm]) expect([r.status, r.body.code, r.headers.get('content-type')]).toEqual([409, 'invoice_not_draft', 'application/problem+json']);
    expect((await c.get(`/invoices/${approved.id}`)).body.data.notes).toBe('');
  });
});

describe('status lifecycle', () => {
  it('follows the transition table: 409 invalid_transition with the allowed statuses, 400 for an unknown status, 200 no-op for the current one', async () => {
    const c = await api();
    const draft = (await c.post('/invoices', body())).body.data;
    const sent = await c.put(`/invoices/${draft.id}/status`, { status: 'sent' });
    expect(sent.status).toBe(409);
    expect(sent.body).toMatchObject({ code: 'invalid_transition', current_status: 'draft', allowed_statuses: ['approved'] });
    const unknown = await c.put(`/invoices/${draft.id}/status`, { status: 'archived' });
    expect([unknown.status, unknown.body.code, unknown.body.field]).toEqual([400, 'invalid_request', 'status']);
    const inv = (await c.post('/invoices', body({ auto_approve: true }))).body.data;
    const before = await documentNumbers(company.companyId);
    const same = await c.put(`/invoices/${inv.id}/status`, { status: 'approved' });
    expect([same.status, same.body.data.status]).toEqual([200, 'approved']);
    expect(await documentNumbers(company.companyId)).toEqual(before);
    expect((await c.put(`/invoices/${inv.id}/status`, { status: 'sent' })).body.data.status).toBe('sent');
    expect((await c.put(`/invoices/${inv.id}/status`, { status: 'approved' })).body).toMatchObject({
      code: 'invalid_transition',
      allowed_statuses: ['paid', 'overdue', 'cancelled'],
    });
    expect((await c.put(`/invoices/${inv.id}/status`, { status: 'overdue' })).body.data.status).toBe('overdue');
  });

  it('paid registers the balance as a payment: debit bank, credit receivables, on the given date', async () => {
    const c = await api();
    const inv = (await c.post('/invoices', body({ auto_approve: true }))).body.data;
    const paid = await c.put(`/invoices/${inv.id}/status`, { status: 'paid', date: today, account_number: '6480' });
    expect(paid.status).toBe(200);
    expect(paid.body.data).toMatchObject({ status: 'paid', paid_amount: 90, balance_due: 0 });
    const [payment] = paid.body.data.payments;
    expect(payment).toMatchObject({ amount: 90, date: today });
    expect((await postingOf(c, payment.transaction_id)).lines).toEqual([
      ['6480', 90, 0, ''],
      ['6190', 0, 90, ''],
    ]);
    expect((await c.put(`/invoices/${inv.id}/status`, { status: 'cancelled' })).body).toMatchObject({ code: 'invalid_transition', allowed_statuses: [] });
    const wrongAccount = (await c.post('/invoices', body({ auto_approve: true }))).body.data;
    expect((await c.put(`/invoices/${wrongAccount.id}/status`, { status: 'paid', account_number: '1010' })).body).toMatchObject({
      status: 400,
      field: 'account_number',
    });
    expect((await c.put(`/invoices/${wrongAccount.id}/status`, { status: 'sent', account_number: '6470' })).body).toMatchObject({
      status: 400,
      field: 'account_number',
    });
  });

  it('partial payments: the invoice becomes paid when they cover the total; over-payment is 422', async () => {
    const c = await api();
    const inv = (await c.post('/invoices', body({ auto_approve: true }))).body.data;
    const draft = (await c.post('/invoices', body())).body.data;
    expect((await c.post(`/invoices/${draft.id}/payments`, { amount: 10 })).body).toMatchObject({ status: 409, code: 'invalid_transition' });
    const first = await c.post(`/invoices/${inv.id}/payments`, { amount: 40.5 });
    expect(first.status).toBe(201);
    expect((await c.get(`/invoices/${inv.id}`)).body.data).toMatchObject({ status: 'approved', paid_amount: 40.5, balance_due: 49.5 });
    const over = await c.post(`/invoices/${inv.id}/payments`, { amount: 49.51 });
    expect(over.body).toMatchObject({ status: 422, code: 'overpayment', field: 'amount', balance_due: 49.5 });
    expect((await c.post(`/invoices/${inv.id}/payments`, { amount: 0 })).body).toMatchObject({ status: 400, field: 'amount' });
    // Cancelling an invoice with money on it is refused: the payment is refunded first.
    expect((await c.put(`/invoices/${inv.id}/status`, { status: 'cancelled' })).body).toMatchObject({ status: 409, code: 'invoice_has_payments' });
    const rest = await c.post(`/invoices/${inv.id}/payments`, { amount: 49.5 });
    expect(rest.status).toBe(201);
    expect((await c.get(`/invoices/${inv.id}`)).body.data).toMatchObject({ status: 'paid', paid_amount: 90, balance_due: 0 });
    const events = await testDb().prisma.outboxEvent.findMany({
      where: { company_id: company.companyId, type: 'invoice.paid', data: { path: ['id'], equals: inv.id } },
    });
    expect(events).toHaveLength(1);
    // Contract: "for invoice.paid: id, invoice_number, status, total, currency"
    expect(events[0]!.data).toMatchObject({ id: inv.id, invoice_number: inv.invoice_number, status: 'paid', total: 90, currency: 'DKK' });
  });

  it('cancelled issues a credit note with its own number whose posting reverses the invoice', async () => {
    const c = await api();
    const inv = (await c.post('/invoices', body({ auto_approve: true }))).body.data;
    const r = await c.put(`/invoices/${inv.id}/status`, { status: 'cancelled' });
    expect(r.status).toBe(200);
    const note = r.body.data.credit_note;
    expect(r.body.data).toMatchObject({ status: 'cancelled', invoice_number: inv.invoice_number, balance_due: 0 });
    expect(Number(note.credit_note_number)).toBeGreaterThan(Number(inv.invoice_number));
    const reversal = await postingOf(c, note.transaction_id);
    expect(reversal).toMatchObject({
      source: 'credit_note',
      reverses_transaction_id: inv.posted_transaction_id,
      document_number: Number(note.credit_note_number),
    });
    expect(reversal.lines).toEqual([
      ['6190', 0, 90, ''],
      ['1010', 59.88, 0, 'S25'],
      ['1010', 15.15, 0, 'S0'],
      ['7680', 14.97, 0, 'S25'],
    ]);
    // The invoice's own posting is untouched, only marked as reversed.
    const original = await postingOf(c, inv.posted_transaction_id);
    expect(original).toMatchObject({
      reversed_by_transaction_id: note.transaction_id,
      lines: [['6190', 90, 0, ''], expect.anything(), expect.anything(), expect.anything()],
    });
    expect((await c.put(`/invoices/${inv.id}/status`, { status: 'cancelled' })).body.data.credit_note).toEqual(note);
  });

  it('records one event per change, each with the compact invoice data', async () => {
    const c = await api();
    const inv = (await c.post('/invoices', body())).body.data;
    await c.put(`/invoices/${inv.id}`, { notes: 'x' });
    await c.put(`/invoices/${inv.id}/status`, { status: 'approved' });
    await c.put(`/invoices/${inv.id}/status`, { status: 'sent' });
    await c.put(`/invoices/${inv.id}/status`, { status: 'overdue' });
    await c.put(`/invoices/${inv.id}/status`, { status: 'cancelled' });
    const events = await testDb().prisma.outboxEvent.findMany({
      where: { company_id: company.companyId, data: { path: ['id'], equals: inv.id } },
      orderBy: { created_at: 'asc' },
    });
    expect(events.map((e) => e.type)).toEqual([
      'invoice.created',
      'invoice.updated',
      'invoice.approved',
      'invoice.sent',
      'invoice.overdue',
      'invoice.cancelled',
    ]);
    expect(events.at(-1)!.data).toMatchObject({ id: inv.id, status: 'cancelled', total: 90, currency: 'DKK' });
  });
});

describe('the books', () => {
  it("balance: balanced, receivables (6190) equal the open invoices' balance due", async () => {
    const fresh = await newCompany('Bogfirma ApS');
    const c = client(svc.url, (await fresh.key()).key);
    const cust = (await c.post('/customers', { name: 'K' })).body.data.id;
    const mk = () =>
      c.post('/invoices', { customer_id: cust, issue_date: today, due_date: plus(10), lines: HAND_CHECKED, auto_approve: true }).then((r) => r.body.data);
    const [a, b, d, e] = [await mk(), await mk(), await mk(), await mk()];
    await c.post(`/invoices/${a.id}/payments`, { amount: 30 });
    await c.put(`/invoices/${b.id}/status`, { status: 'paid' });
    await c.put(`/invoices/${d.id}/status`, { status: 'cancelled' });
    const open = (await c.get('/invoices?per_page=200')).body.data.filter((i: any) => ['approved', 'sent', 'overdue'].includes(i.status));
    expect(open.map((i: any) => i.id).sort()).toEqual([a.id, e.id].sort());
    const due = open.reduce((s: number, i: any) => s + Math.round(i.balance_due * 100), 0) / 100;
    expect(due).toBe(150);
    const sheet = (await c.get(`/reports/balance?as_of=${today}`)).body.data;
    expect(sheet.balanced).toBe(true);
    expect(accountAmount(sheet, '6190')).toBe(due);
    expect(accountAmount(sheet, '7680')).toBe(44.91); // 3 × 14.97: four invoices, one credited
  });
});

/** The amount an account shows in a report (found anywhere in its sections). */
function accountAmount(report: unknown, accountNumber: string): number | undefined {
  let found: number | undefined;
  const walk = (v: unknown) => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      if (o.account_number === accountNumber) found = (o.amount ?? o.balance) as number;
      Object.values(o).forEach(walk);
    }
  };
  walk(report);
  return found;
}

describe('overdue sweep', () => {
  it('moves approved and sent invoices past their due date to overdue, each once, when two sweeps run at once', async () => {
    const c = await api();
    const past = (due: string, auto_approve = true) =>
      c.post('/invoices', body({ issue_date: '2026-01-05', due_date: due, auto_approve })).then((r) => r.body.data);
    const [late, sent, notYet, draft] = [await past('2026-01-10'), await past('2026-01-11'), await past(plus(30)), await past('2026-01-10', false)];
    await c.put(`/invoices/${sent.id}/status`, { status: 'sent' });
    const db = testDb();
    const run = <T>(fn: (tx: Db) => Promise<T>) => db.prisma.$transaction((tx) => fn(tx));
    const [m1, m2] = await Promise.all([sweepOverdue(run, today, 2), sweepOverdue(run, today, 2)]);
    expect(m1 + m2).toBeGreaterThanOrEqual(2);
    const status = async (id: string) => (await c.get(`/invoices/${id}`)).body.data.status;
    expect([await status(late.id), await status(sent.id), await status(notYet.id), await status(draft.id)]).toEqual([
      'overdue',
      'overdue',
      'approved',
      'draft',
    ]);
    const events = await testDb().pool.query(`SELECT data->>'id' AS id FROM outbox_events WHERE type = 'invoice.overdue' AND data->>'id' = ANY($1)`, [
      [late.id, sent.id],
    ]);
    expect(events.rows.map((r) => r.id).sort()).toEqual([late.id, sent.id].sort());
    // On demand, as support staff would run it: the moved invoices are not announced again.
    await internal().internal.sweepOverdueInvoices({ date: today });
    expect(
      (await testDb().pool.query(`SELECT count(*)::int AS n FROM outbox_events WHERE type = 'invoice.overdue' AND data->>'id' = ANY($1)`, [[late.id, sent.id]]))
        .rows[0].n,
    ).toBe(2);
  });
});

describe('list', () => {
  it('sorts invoice numbers numerically, filters by status and creation date, searches number and notes', async () => {
    const fresh = await newCompany('Listefirma ApS');
    const c = client(svc.url, (await fresh.key()).key);
    const cust = (await c.post('/customers', { name: 'K' })).body.data.id;
    const made = [];
    for (let i = 0; i < 11; i++) {
      made.push(
        (
          await c.post('/invoices', {
            customer_id: cust,
            issue_date: today,
            due_date: today,
            notes: `nr ${i}`,
            lines: [{ description: 'x', quantity: 1, unit_price: 100 - i }],
            auto_approve: i < 10,
          })
        ).body.data,
      );
    }
    const numbers = (await c.get('/invoices?sort=invoice_number&order=asc&status=approved&per_page=200')).body.data.map((i: any) => i.invoice_number);
    expect(numbers).toHaveLength(10);
    expect(numbers.map(Number)).toEqual([...numbers.map(Number)].sort((a, b) => a - b));
    // "9" < "10" numerically, not as text
    expect(numbers.map(Number).at(-1)).toBeGreaterThanOrEqual(10);
    const drafts = await c.get('/invoices?status=draft');
    expect(drafts.body.data.map((i: any) => i.id)).toEqual([made[10].id]);
    expect((await c.get('/invoices?status=unknown')).body).toMatchObject({ status: 400, field: 'status' });
    expect((await c.get('/invoices?sort=total&order=asc&per_page=1')).body.data[0].total).toBe(112.5); // the draft: 90 + 25 %
    expect((await c.get(`/invoices?search=${made[3].invoice_number}`)).body.data.map((i: any) => i.id)).toContain(made[3].id);
    expect((await c.get('/invoices?search=NR%2010')).body.data.map((i: any) => i.id)).toEqual([made[10].id]);
    expect((await c.get(`/invoices?since=${plus(1)}`)).body.meta.total).toBe(0);
    expect((await c.get(`/invoices?until=${today}`)).body.meta).toMatchObject({ total: 11, total_pages: 1 });
  });

  // The totals of unfiltered and status-filtered lists come from counts kept by triggers (lists/kept-counts.ts).
  it('keeps meta.total exact per status through creates, transitions, deletes, a sandbox reset and folds racing creates', async () => {
    const fresh = await newCompany('Tællefirma ApS');
    const c = client(svc.url, (await fresh.key()).key);
    const cust = (await c.post('/customers', { name: 'K' })).body.data.id;
    const invoice = (approve: boolean) =>
      c.post('/invoices', {
        customer_id: cust,
        issue_date: today,
        due_date: today,
        lines: [{ description: 'x', quantity: 1, unit_price: 10 }],
        auto_approve: approve,
      });
    const made = [];
    for (let i = 0; i < 6; i++) made.push((await invoice(i < 4)).body.data);
    expect((await c.put(`/invoices/${made[0].id}/status`, { status: 'paid' })).status).toBe(200);
    expect((await c.put(`/invoices/${made[1].id}/status`, { status: 'cancelled' })).status).toBe(200);
    expect((await c.put(`/invoices/${made[2].id}/status`, { status: 'sent' })).status).toBe(200);
    expect((await c.del(`/invoices/${made[5].id}`)).status).toBe(200);
    const rows = async () => {
      const { rows } = await testDb().pool.query(`SELECT status, count(*)::int AS n FROM invoices WHERE company_id = $1 GROUP BY status`, [fresh.companyId]);
      return Object.fromEntries(rows.map((r) => [r.status, r.n]));
    };
    const totals = async () => {
      const out: Record<string, number> = {};
      for (const status of ['draft', 'approved', 'sent', 'paid', 'overdue', 'cancelled']) {
        const n = (await c.get(`/invoices?status=${status}`)).body.meta.total;
        if (n) out[status] = n;
      }
      return { ...out, all: (await c.get('/invoices')).body.meta.total };
    };
    expect(await rows()).toEqual({ paid: 1, cancelled: 1, sent: 1, approved: 1, draft: 1 });
    expect(await totals()).toEqual({ paid: 1, cancelled: 1, sent: 1, approved: 1, draft: 1, all: 5 });

    // Creates racing the fold: nothing is lost or counted twice, and the company ends with few rows.
    const ops = internal().internal;
    const [created] = await Promise.all([
      Promise.all(Array.from({ length: 12 }, (_, i) => invoice(i % 2 === 0))),
      (async () => {
        for (let i = 0; i < 5; i++) await ops.foldKeptCounts({});
      })(),
    ]);
    expect(created.map((r) => r.status)).toEqual(Array(12).fill(201));
    const expected = { ...(await rows()), all: 17 };
    expect(expected).toMatchObject({ approved: 7, draft: 7 });
    expect(await totals()).toEqual(expected);
    await ops.foldKeptCounts({});
    const kept = async () =>
      (await testDb().pool.query(`SELECT count(*)::int AS n FROM invoice_count_deltas WHERE company_id = $1`, [fresh.companyId])).rows[0].n as number;
    expect(await kept()).toBeLessThanOrEqual(5);
    expect(await totals()).toEqual(expected);

    // The scheduled job runs the same fold in the worker.
    // (An update that changes no status adds nothing; these rows sum to zero, as churn does.)
    await testDb().pool.query(`UPDATE invoices SET status = status WHERE company_id = $1`, [fresh.companyId]);
    await testDb().pool.query(
      `INSERT INTO invoice_count_deltas (company_id, status, delta) SELECT $1, 'draft', d FROM unnest(ARRAY[1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1]) d`,
      [fresh.companyId],
    );
    expect(await kept()).toBeGreaterThan(12);
    const worker = await startTestService({ RUN_WORKER: 'true' });
    const boss = await startBoss(databaseUrl(), () => {});
    try {
      await boss.send(QUEUES.foldKeptCounts.name, {});
      for (let i = 0; (await kept()) > 5; i++) {
        if (i > 200) throw new Error('the fold job did not run');
        await new Promise((r) => setTimeout(r, 100));
      }
    } finally {
      await boss.stop({ graceful: false });
      await worker.stop();
    }
    expect(await totals()).toEqual(expected);

    // Sandbox companies are counted apart, and a reset's deletes are counted too.
    const sandbox = client(svc.url, (await fresh.key(undefined, 'test')).key);
    const sc = (await sandbox.post('/customers', { name: 'S' })).body.data.id;
    await sandbox.post('/invoices', { customer_id: sc, issue_date: today, due_date: today, lines: [{ description: 'x', quantity: 1, unit_price: 1 }] });
    expect((await sandbox.get('/invoices')).body.meta.total).toBe(1);
    expect((await sandbox.call('POST', '/sandbox/reset', {})).status).toBe(200);
    expect((await sandbox.get('/invoices')).body.meta.total).toBe(0);
    expect((await c.get('/invoices')).body.meta.total).toBe(17);
  }, 60_000);
});
