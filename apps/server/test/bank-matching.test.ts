// Matching bank lines through HTTP against PostgreSQL: every automatic rule (FI payment
// id, invoice number and amount, supplier and amount, posting by amount and date), the ambiguous line's
// ranked suggestions, manual match, unmatch and post with their refusals, and exactly-once posting when
// matchers race. "A match posts the payment through the existing payment functions, in one transaction."
import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { inTransaction } from '@tlr/db';
import { autoMatch, Decimal, fiPaymentId, newId, postBatch, updateAccountingSettings, type Posting, type PostingLine } from '@tlr/domain';
import { countRows, created, idem, ok, testDb, useCompany, type Api } from './helpers.ts';

const t = useCompany({ name: 'Bankafstemning ApS', cvr: '12345674' });
const path = (id: string) => ({ params: { path: { id } } });
const db = testDb();
// A key per test: each key has its own rate limit (100 a minute), which this file would exceed on one.
let k: Awaited<ReturnType<typeof t.newKey>>;
beforeEach(async () => {
  k = await t.newKey();
});

interface LineInput {
  date: string;
  amount: string;
  text?: string;
  reference?: string;
  counterparty_name?: string;
  counterparty_iban?: string;
}

/**
 * Bank lines as an import stores them, written straight to bank_lines (the statement import is its own
 * endpoint, tested in bank-statements.test.ts); then automatic matching runs as the import runs it.
 */
async function importLines(bankAccountId: string, lines: LineInput[]): Promise<string[]> {
  const statement = randomUUID();
  await db.pool.query(`INSERT INTO bank_statements (id, company_id, bank_account_id, format, file_sha256) VALUES ($1, $2, $3, 'csv', $4)`, [
    statement,
    t.company.companyId,
    bankAccountId,
    randomUUID(),
  ]);
  const ids: string[] = [];
  for (const l of lines) {
    const id = randomUUID();
    ids.push(id);
    await db.pool.query(
      `INSERT INTO bank_lines (id, company_id, bank_account_id, statement_id, identity, booking_date, amount, currency, text, reference, counterparty_name, counterparty_iban)
       VALUES ($1, $2, $3, $4, $5, $6, $7, 'DKK', $8, $9, $10, $11)`,
      [
        id,
        t.company.companyId,
        bankAccountId,
        statement,
        `test:${id}`,
        l.date,
        l.amount,
        l.text ?? '',
        l.reference ?? '',
        l.counterparty_name ?? '',
        l.counterparty_iban ?? '',
      ],
    );
  }
  await autoMatch(inTransaction(db), db.prisma, { bankAccountId });
  return ids;
}

const line = async (id: string, c: Api = k.api) => (await ok(c.GET('/bank-lines/{id}', path(id)))).data;
const invoice = async (id: string) => (await ok(k.api.GET('/invoices/{id}', path(id)))).data;
const expense = async (id: string) => (await ok(k.api.GET('/expenses/{id}', path(id)))).data;
const transactionLines = async (id: string) =>
  (await ok(k.api.GET('/transactions/{id}', path(id)))).data.lines.map((l) => `${l.account_number} ${l.debit.toFixed(2)}/${l.credit.toFixed(2)}`);

let bank: string;
let customer: string;
/** An approved invoice of `total` DKK incl. 25 % VAT (unit price is the net), dated in the open year. */
async function newInvoice(net: number): Promise<{ id: string; invoice_number: string; payment_id: string; total: number }> {
  const body = {
    customer_id: customer,
    issue_date: '2026-11-02',
    due_date: '2026-11-16',
    auto_approve: true,
    lines: [{ description: 'Ydelse', quantity: 1, unit_price: net }],
  };
  const { id } = (await created(k.api.POST('/invoices', { params: idem(), body }))).data;
  return invoice(id);
}

describe('setup', () => {
  it('a bank account on 6470, an FI creditor number, a customer', async () => {
    await ok(k.api.PUT('/settings/company', { body: { fi_creditor_number: '81234567' } }));
    bank = (await created(k.api.POST('/bank-accounts', { params: idem(), body: { name: 'Driftskonto' } }))).data.id;
    customer = (await created(k.api.POST('/customers', { params: idem(), body: { name: 'Kunde A/S', cvr: '29190925' } }))).data.id;
  });
});

describe('automatic matching', () => {
  it('an FI payment id (+71) pays its invoice, in full or in part, through the bank account', async () => {
    const full = await newInvoice(300); // 375.00
    const part = await newInvoice(800); // 1000.00
    expect(full.payment_id).toMatch(/^\d{15}$/);
    const [a, b] = await importLines(bank, [
      { date: '2026-11-10', amount: '375.00', reference: `+71<${full.payment_id} +81234567<`, text: 'Indbetaling' },
      { date: '2026-11-11', amount: '400.00', text: `FI ${part.payment_id}` },
    ]);
    const la = await line(a!);
    expect(la).toMatchObject({ status: 'matched', match: { type: 'invoice', invoice_id: full.id, matched_by: 'auto' }, suggestions: [] });
    const paid = await invoice(full.id);
    expect(paid).toMatchObject({ status: 'paid', paid_amount: 375 });
    expect(paid.payments[0]).toMatchObject({ amount: 375, date: '2026-11-10', transaction_id: la.match!.transaction_id });
    expect(await transactionLines(la.match!.transaction_id!)).toEqual(['6470 375.00/0.00', '6190 0.00/375.00']);
    expect(await invoice(part.id)).toMatchObject({ status: 'approved', paid_amount: 400 });
    expect((await line(b!)).match).toMatchObject({ type: 'invoice', invoice_id: part.id });
  });

  it("a payment the rules refuse (its date in the locked period) leaves its line unmatched with the reason; the batch's other lines are paid", async () => {
    const [a, b] = [await newInvoice(80), await newInvoice(80)]; // 100.00 each
    await updateAccountingSettings(db.prisma, t.company.companyId, { lock_date: '2026-10-31' });
    try {
      const [locked, open] = await importLines(bank, [
        { date: '2026-10-30', amount: '100.00', reference: a.payment_id },
        { date: '2026-11-20', amount: '100.00', reference: b.payment_id },
      ]);
      const refused = await line(locked!);
      expect(refused).toMatchObject({ status: 'unmatched', match: null });
      expect(refused.suggestions[0]).toMatchObject({ type: 'invoice', id: a.id });
      expect(refused.suggestions[0]!.reasons.at(-1)).toMatch(/^not matched: The books are locked up to and including 2026-10-31/);
      expect(await line(open!)).toMatchObject({ status: 'matched', match: { type: 'invoice', invoice_id: b.id } });
      expect([(await invoice(a.id)).status, (await invoice(b.id)).status]).toEqual(['approved', 'paid']);
    } finally {
      await updateAccountingSettings(db.prisma, t.company.companyId, { lock_date: null });
    }
  });

  it('two lines of one batch paying one invoice in part are both paid, one after the other', async () => {
    const inv = await newInvoice(80); // 100.00
    const [first, second] = await importLines(bank, [
      { date: '2026-11-12', amount: '40.00', reference: inv.payment_id },
      { date: '2026-11-13', amount: '60.00', reference: inv.payment_id },
    ]);
    for (const id of [first!, second!]) expect(await line(id)).toMatchObject({ status: 'matched', match: { type: 'invoice', invoice_id: inv.id } });
    const paid = await invoice(inv.id);
    expect(paid).toMatchObject({ status: 'paid', paid_amount: 100 });
    expect(paid.payments.map((p) => [p.amount, p.date])).toEqual([
      [40, '2026-11-12'],
      [60, '2026-11-13'],
    ]);
  });

  it('the amount and an invoice number in the text pay the invoice; a number whose balance differs is only suggested', async () => {
    const exact = await newInvoice(100); // 125.00
    const other = await newInvoice(200); // 250.00
    const [a, b] = await importLines(bank, [
      { date: '2026-11-12', amount: '125.00', text: `Faktura nr. ${exact.invoice_number} tak` },
      { date: '2026-11-12', amount: '240.00', text: `Fakt ${other.invoice_number}` },
    ]);
    expect((await line(a!)).match).toMatchObject({ type: 'invoice', invoice_id: exact.id, matched_by: 'auto' });
    expect((await invoice(exact.id)).status).toBe('paid');
    const lb = await line(b!);
    expect(lb).toMatchObject({ status: 'unmatched', match: null });
    expect(lb.suggestions[0]).toMatchObject({
      type: 'invoice',
      id: other.id,
      reasons: [`invoice number ${other.invoice_number} in the text`, 'the balance due is 250.00'],
    });
    expect((await invoice(other.id)).paid_amount).toBe(0);
  });

  it('two invoices that fit equally are not chosen between: the line keeps both as ranked suggestions', async () => {
    const x = await newInvoice(40); // 50.00
    const y = await newInvoice(40);
    const [a] = await importLines(bank, [{ date: '2026-11-13', amount: '50.00', text: `Betaling ${x.invoice_number} og ${y.invoice_number}` }]);
    const la = await line(a!);
    expect(la.status).toBe('unmatched');
    expect(la.suggestions.map((s) => s.id).sort()).toEqual([x.id, y.id].sort());
    expect(la.suggestions.every((s) => s.score === 90 && s.reasons.includes('the amount equals the balance due'))).toBe(true);
    expect((await invoice(x.id)).paid_amount).toBe(0);
  });

  it('the amount and the supplier (IBAN or name) pay a booked expense; the amount alone only suggests', async () => {
    const supplier = (await created(k.api.POST('/suppliers', { params: idem(), body: { name: 'Kontorland A/S', iban: 'DK5000400440116243' } }))).data.id;
    const newExpense = async (amount: number, supplier_id?: string) => {
      const { id } = (
        await created(
          k.api.POST('/expenses', {
            params: idem(),
            body: { date: '2026-11-03', amount, description: 'Kontorartikler', ...(supplier_id ? { supplier_id } : {}) },
          }),
        )
      ).data;
      await ok(k.api.PUT('/expenses/{id}/status', { ...path(id), body: { status: 'booked' } }));
      return id;
    };
    const byIban = await newExpense(812.5, supplier);
    const byName = await newExpense(99.95, supplier);
    const anonymous = await newExpense(64);
    const [a, b, c] = await importLines(bank, [
      { date: '2026-11-14', amount: '-812.50', text: 'Overførsel', counterparty_iban: 'DK50 0040 0440 1162 43' },
      { date: '2026-11-14', amount: '-99.95', text: 'Dankort KONTORLAND A/S' },
      { date: '2026-11-14', amount: '-64.00', text: 'Ukendt' },
    ]);
    expect((await line(a!)).match).toMatchObject({ type: 'expense', expense_id: byIban });
    expect(await expense(byIban)).toMatchObject({ status: 'paid', paid_date: '2026-11-14' });
    expect((await line(b!)).match).toMatchObject({ type: 'expense', expense_id: byName });
    const lc = await line(c!);
    expect(lc.status).toBe('unmatched');
    expect(lc.suggestions[0]).toMatchObject({ type: 'expense', id: anonymous, score: 30 });
    expect((await expense(anonymous)).status).toBe('booked');
  });

  it(`an unreconciled posting on the bank account of the amount within 7 days is linked; outside the window it is not`, async () => {
    const posting = (date: string, amount: number) =>
      k.api.POST('/transactions', {
        params: idem(),
        body: {
          date,
          description: 'Indskud',
          lines: [
            { account_number: '6470', debit: amount, credit: 0 },
            { account_number: '7590', debit: 0, credit: amount },
          ],
        },
      });
    const near = (await created(posting('2026-11-08', 777))).data;
    const far = (await created(posting('2026-10-20', 666))).data;
    const [a, b] = await importLines(bank, [
      { date: '2026-11-13', amount: '777.00', text: 'Indskud ejer' },
      { date: '2026-11-13', amount: '666.00', text: 'Indskud ejer' },
    ]);
    expect((await line(a!)).match).toMatchObject({ type: 'transaction', transaction_id: near.id, matched_by: 'auto' });
    expect((await line(b!)).status).toBe('unmatched');
    expect(far.id).toBeTruthy();
  });
});

describe('by hand', () => {
  it('match pays the named invoice; a second match is 409 bank_line_matched; unmatch reverses the payment and reopens the invoice', async () => {
    const inv = await newInvoice(1000); // 1250.00
    const [id] = await importLines(bank, [{ date: '2026-11-15', amount: '1250.00', text: 'Uden henvisning' }]);
    expect((await line(id!)).status).toBe('unmatched');
    const matched = (await ok(k.api.POST('/bank-lines/{id}/match', { ...path(id!), params: { ...path(id!).params, ...idem() }, body: { invoice_id: inv.id } })))
      .data;
    expect(matched).toMatchObject({ status: 'matched', match: { type: 'invoice', invoice_id: inv.id, matched_by: 'manual' } });
    expect((await invoice(inv.id)).status).toBe('paid');

    const again = await k.raw.post(`/bank-lines/${id}/match`, { invoice_id: inv.id }, idem().header);
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: 'bank_line_matched', current_status: 'matched' });

    const unmatched = (await ok(k.api.POST('/bank-lines/{id}/unmatch', { params: { ...path(id!).params, ...idem() } }))).data;
    expect(unmatched).toMatchObject({ status: 'unmatched', match: null });
    const reopened = await invoice(inv.id);
    expect(reopened).toMatchObject({ status: 'overdue', paid_amount: 0 });
    const payment = reopened.payments[0]!;
    expect(payment.reversed_transaction_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await transactionLines(payment.reversed_transaction_id!)).toEqual(['6470 0.00/1250.00', '6190 1250.00/0.00']);

    const twice = await k.raw.post(`/bank-lines/${id}/unmatch`, {}, idem().header);
    expect(twice.status).toBe(409);
    expect(twice.body).toMatchObject({ code: 'bank_line_not_matched', current_status: 'unmatched' });
    // Paid again by the same line: the invoice's payments count only the live one.
    await ok(k.api.POST('/bank-lines/{id}/match', { params: { ...path(id!).params, ...idem() }, body: { invoice_id: inv.id } }));
    expect(await invoice(inv.id)).toMatchObject({ status: 'paid', paid_amount: 1250 });
  });

  it('post books a fee with its VAT against the bank, and unmatch reverses that posting', async () => {
    const [id] = await importLines(bank, [{ date: '2026-11-16', amount: '-125.00', text: 'Gebyr netbank' }]);
    const posted = (
      await ok(k.api.POST('/bank-lines/{id}/post', { params: { ...path(id!).params, ...idem() }, body: { account_number: '2390', vat_code: 'K25' } }))
    ).data;
    expect(posted.match).toMatchObject({ type: 'posting', matched_by: 'manual' });
    expect(await transactionLines(posted.match!.transaction_id!)).toEqual(['2390 100.00/0.00', '7740 25.00/0.00', '6470 0.00/125.00']);
    const tx = (await ok(k.api.GET('/transactions/{id}', path(posted.match!.transaction_id!)))).data;
    expect(tx).toMatchObject({ date: '2026-11-16', description: 'Gebyr netbank', source: 'bank' });
    await ok(k.api.POST('/bank-lines/{id}/unmatch', { params: { ...path(id!).params, ...idem() } }));
    expect(await countRows(`SELECT count(*)::int AS n FROM ledger_transactions WHERE reverses_id = $1`, [tx.id])).toBe(1);
  });

  it('refuses by name what does not fit, and changes nothing', async () => {
    const inv = await newInvoice(10);
    const [out, into] = await importLines(bank, [
      { date: '2026-11-17', amount: '-33.00', text: 'Ud' },
      { date: '2026-11-17', amount: '44.00', text: 'Ind' },
    ]);
    const refused = async (id: string, action: string, body: object, status: number, match: object) => {
      const r = await k.raw.post(`/bank-lines/${id}/${action}`, body, idem().header);
      expect(r.status, JSON.stringify(body)).toBe(status);
      expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(r.body).toMatchObject(match);
    };
    await refused(out!, 'match', { invoice_id: inv.id, expense_id: inv.id }, 400, { code: 'invalid_request', field: 'expense_id' });
    await refused(out!, 'match', {}, 400, { code: 'invalid_request', field: 'invoice_id' });
    await refused(out!, 'match', { invoice_id: inv.id }, 400, { field: 'invoice_id', detail: expect.stringMatching(/money out/) });
    await refused(into!, 'match', { invoice_id: inv.id }, 422, { code: 'overpayment' });
    // A DKK line does not pay a EUR invoice: its 44.00 would be read as euros.
    const eurBody = {
      customer_id: customer,
      issue_date: '2026-11-02',
      due_date: '2026-11-16',
      currency: 'EUR',
      exchange_rate: 7.46,
      auto_approve: true,
      lines: [{ description: 'Ydelse', quantity: 1, unit_price: 100 }],
    };
    const eur = (await created(k.api.POST('/invoices', { params: idem(), body: eurBody }))).data.id;
    await refused(into!, 'match', { invoice_id: eur }, 400, { field: 'invoice_id', detail: 'The invoice is in EUR; the bank account is in DKK.' });
    await refused(into!, 'match', { invoice_id: randomUUID() }, 404, { code: 'not_found' });
    await refused(into!, 'match', { transaction_id: randomUUID() }, 400, { field: 'transaction_id' });
    const unrelated = (
      await created(
        k.api.POST('/transactions', {
          params: idem(),
          body: {
            date: '2026-11-17',
            description: 'Andet',
            lines: [
              { account_number: '2390', debit: 44, credit: 0 },
              { account_number: '7590', debit: 0, credit: 44 },
            ],
          },
        }),
      )
    ).data;
    await refused(into!, 'match', { transaction_id: unrelated.id }, 400, {
      field: 'transaction_id',
      detail: expect.stringMatching(/no line of 44.00 DKK on account 6470/),
    });
    await refused(out!, 'post', { account_number: '999999' }, 400, { field: 'account_number' });
    await refused(out!, 'post', { account_number: '6470' }, 400, { field: 'account_number', detail: expect.stringMatching(/own ledger account/) });
    await refused(out!, 'post', { account_number: '2390', vat_code: 'NOPE' }, 400, { field: 'vat_code' });
    for (const id of [out!, into!]) expect((await line(id)).status).toBe('unmatched');
    // The key is optional: the line's state refuses a repeat, with or without one.
    expect((await k.raw.post(`/bank-lines/${out}/post`, { account_number: '2390' }, {})).status).toBe(200);
    await refused(out!, 'post', { account_number: '2390' }, 409, { code: 'bank_line_matched' });
    expect((await invoice(inv.id)).paid_amount).toBe(0);
  });

  it("another company's line is not found", async () => {
    const [id] = await importLines(bank, [{ date: '2026-11-18', amount: '-1.00', text: 'X' }]);
    const other = await t.another();
    expect((await other.raw.get(`/bank-lines/${id}`)).status).toBe(404);
    expect((await other.raw.post(`/bank-lines/${id}/post`, { account_number: '2390' }, idem().header)).status).toBe(404);
  });
});

describe('exactly once', () => {
  it('two matchers and a manual match racing over the same lines post each line once', async () => {
    const invoices = await Promise.all(Array.from({ length: 12 }, () => newInvoice(80))); // 100.00 each
    const statement = randomUUID();
    await db.pool.query(`INSERT INTO bank_statements (id, company_id, bank_account_id, format, file_sha256) VALUES ($1, $2, $3, 'csv', $4)`, [
      statement,
      t.company.companyId,
      bank,
      randomUUID(),
    ]);
    const ids = invoices.map(() => randomUUID());
    for (const [i, inv] of invoices.entries()) {
      await db.pool.query(
        `INSERT INTO bank_lines (id, company_id, bank_account_id, statement_id, identity, booking_date, amount, currency, reference)
         VALUES ($1, $2, $3, $4, $5, '2026-11-19', 100.00, 'DKK', $6)`,
        [ids[i], t.company.companyId, bank, statement, `race:${ids[i]}`, inv.payment_id],
      );
    }
    const run = inTransaction(db);
    const manual = k.raw.post(`/bank-lines/${ids[0]}/match`, { invoice_id: invoices[0]!.id }, idem().header);
    const [r1, r2, m] = await Promise.all([autoMatch(run, db.prisma, { bankAccountId: bank }), autoMatch(run, db.prisma, { bankAccountId: bank }), manual]);
    expect([200, 409]).toContain(m.status);
    expect(r1.matched + r2.matched + (m.status === 200 ? 1 : 0)).toBe(12);
    for (const inv of invoices) {
      const v = await invoice(inv.id);
      expect(v.status).toBe('paid');
      expect(v.payments.length).toBe(1);
    }
    expect(await countRows(`SELECT count(*)::int AS n FROM bank_lines WHERE id = ANY($1::uuid[]) AND status = 'matched'`, [ids])).toBe(12);
    expect(await countRows(`SELECT count(*)::int AS n FROM invoice_payments WHERE invoice_id = ANY($1::uuid[])`, [invoices.map((i) => i.id)])).toBe(12);
  });

  it('two set-based matchers and manual matches racing over 1,000 lines pay each invoice exactly once; the trial balance stays balanced', async () => {
    const n = 1_000;
    const companyId = t.company.companyId;
    // 1,000 approved invoices of 100.00 seeded in bulk: their approval postings through the journal
    // writer's batch, the rows in SQL (invoice numbers far from the company's own, each with its FI payment id).
    const accounts = new Map(
      (await db.prisma.account.findMany({ where: { company_id: companyId, account_number: { in: ['6190', '1010', '7680'] } } })).map((a) => [
        a.account_number,
        a,
      ]),
    );
    const posting = (number: string, debit: string, credit: string, vatCode: string): PostingLine => {
      const a = accounts.get(number)!;
      return { accountId: a.id, account: a, debit: new Decimal(debit), credit: new Decimal(credit), description: '', vatCode };
    };
    const invoiceIds = Array.from({ length: n }, () => newId());
    const posted = await inTransaction(db)((tx) =>
      postBatch(
        tx,
        { companyId, livemode: true },
        invoiceIds.map((id, i): Posting => ({
          date: '2026-11-20',
          description: `Faktura ${7_000_001 + i}`,
          source: 'invoice',
          sourceId: id,
          lines: [posting('6190', '100', '0', ''), posting('1010', '0', '80', 'S25'), posting('7680', '0', '20', 'S25')],
        })),
        { events: false },
      ),
    );
    const paymentIds = invoiceIds.map((_, i) => fiPaymentId(String(7_000_001 + i)));
    await db.pool.query(
      `INSERT INTO invoices (id, company_id, invoice_number, document_number, payment_id, status, issue_date, due_date, currency, exchange_rate,
                             subtotal, vat_amount, total, total_dkk, approved_at, posted_transaction_id, posted_system_id)
       SELECT u.id, $1, (7000000 + u.i)::text, u.n, u.p, 'approved', '2026-11-20', '2026-12-04', 'DKK', 1, 80, 20, 100, 100, now(), u.tx, u.sys
         FROM unnest($2::uuid[], $3::int[], $4::bigint[], $5::text[], $6::uuid[], $7::bigint[]) AS u(id, i, n, p, tx, sys)`,
      [
        companyId,
        invoiceIds,
        invoiceIds.map((_, i) => i + 1),
        posted.map((r) => r.documentNumber.toString()),
        paymentIds,
        posted.map((r) => r.id),
        posted.map((r) => r.systemId.toString()),
      ],
    );
    const statement = randomUUID();
    await db.pool.query(`INSERT INTO bank_statements (id, company_id, bank_account_id, format, file_sha256) VALUES ($1, $2, $3, 'csv', $4)`, [
      statement,
      companyId,
      bank,
      randomUUID(),
    ]);
    const lineIds = invoiceIds.map(() => randomUUID());
    await db.pool.query(
      `INSERT INTO bank_lines (id, company_id, bank_account_id, statement_id, identity, booking_date, amount, currency, text, reference)
       SELECT u.id, $1, $2, $3, 'race1000:' || u.id, '2026-11-21', 100, 'DKK', 'Indbetaling', u.p FROM unnest($4::uuid[], $5::text[]) AS u(id, p)`,
      [companyId, bank, statement, lineIds, paymentIds],
    );
    const run = inTransaction(db);
    // A manual match on the first line and on one in the middle of the matchers' second batch.
    const manual = [0, 700].map((i) => k.raw.post(`/bank-lines/${lineIds[i]}/match`, { invoice_id: invoiceIds[i] }, idem().header));
    const [r1, r2, ...m] = await Promise.all([
      autoMatch(run, db.prisma, { bankAccountId: bank }),
      autoMatch(run, db.prisma, { bankAccountId: bank }),
      ...manual,
    ]);
    for (const r of m) expect([200, 409]).toContain(r.status);
    expect(r1.matched + r2.matched + m.filter((r) => r.status === 200).length).toBe(n);
    expect(await countRows(`SELECT count(*)::int AS n FROM bank_lines WHERE id = ANY($1::uuid[]) AND status = 'matched'`, [lineIds])).toBe(n);
    // Each invoice paid exactly once, by the line that carries its payment id, and paid in full.
    expect(
      await countRows(
        `SELECT count(*)::int AS n FROM invoices i
          WHERE i.id = ANY($1::uuid[]) AND i.status = 'paid' AND i.paid_amount = 100
            AND (SELECT count(*) FROM invoice_payments p WHERE p.invoice_id = i.id) = 1
            AND (SELECT count(*) FROM bank_lines b WHERE b.invoice_id = i.id AND b.reference = i.payment_id) = 1`,
        [invoiceIds],
      ),
    ).toBe(n);
    expect(
      await countRows(`SELECT count(*)::int AS n FROM ledger_transactions WHERE company_id = $1 AND source = 'payment' AND source_id = ANY($2::uuid[])`, [
        companyId,
        invoiceIds,
      ]),
    ).toBe(n);
    // The trial balance balances, and the balances agree with the journal's lines account by account.
    const trial = await ok(k.api.GET('/reports/trial-balance', { params: { query: { from: '2026-01-01', to: '2026-12-31' } } }));
    const totals = (trial as Exclude<typeof trial, string>).meta.totals;
    expect(totals.debit).toBe(totals.credit);
    expect(
      await countRows(
        `SELECT count(*)::int AS n FROM (SELECT account_id, sum(debit) AS d, sum(credit) AS c FROM transaction_lines WHERE company_id = $1 GROUP BY account_id) l
           FULL JOIN (SELECT account_id, sum(debit) AS d, sum(credit) AS c FROM account_daily_balances WHERE company_id = $1 GROUP BY account_id) b USING (account_id)
          WHERE l.d IS DISTINCT FROM b.d OR l.c IS DISTINCT FROM b.c`,
        [companyId],
      ),
    ).toBe(0);
  });
});
