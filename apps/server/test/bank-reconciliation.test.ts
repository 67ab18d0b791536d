// GET /bank-accounts/{id}/reconciliation through HTTP: the balances, the unmatched
// lines of each side and the difference, worked out by hand; the window from the opening balance date;
// the first 100 items and `more`; a EUR account in EUR; the refusals by field, scope and company.
// Bank lines are written with SQL until the statement import lands (bank-lines.ts); ledger postings go
// through POST /transactions.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { today } from '@tlr/domain';
import { bankLines as statementLines, type Line } from './bank-lines.ts';
import { created, idem, ok, testDb, twoLinePosting, useCompany, type Api, type RequestBody } from './helpers.ts';

const t = useCompany({ name: 'Afstemning ApS' });

const reconciliation = (c: Api, id: string, as_of?: string) =>
  c.GET('/bank-accounts/{id}/reconciliation', { params: { path: { id }, query: as_of ? { as_of } : {} } });
const reconciled = async (id: string, as_of?: string) => (await ok(reconciliation(t.api, id, as_of))).data;

async function bankAccount(body: RequestBody<'/bank-accounts', 'post'>) {
  return (await created(t.api.POST('/bank-accounts', { params: idem(), body }))).data;
}
async function post(body: RequestBody<'/transactions', 'post'>) {
  return (await created(t.api.POST('/transactions', { params: idem(), body }))).data;
}
const bankLines = (account: { id: string; currency: string }, lines: Line[]) => statementLines(t.company.companyId, account, lines);

describe('a DKK bank account with an opening balance date, worked out by hand', () => {
  let drift: { id: string; currency: string };
  let fee: string;
  let posted3: string;
  const late = { bank: '2026-04-01', ledger: '2026-04-02' };

  beforeAll(async () => {
    drift = await bankAccount({ name: 'Driftskonto', opening_balance_date: '2026-03-01' });
    // Before the window: the opening balance (1000.00), and a bank line the window leaves out.
    await post(twoLinePosting('2026-02-15', '6470', '6520', '1000.00', 'Indskud'));
    const p1 = await post(twoLinePosting('2026-03-05', '6470', '1010', '500.00', 'Indbetaling faktura 1'));
    const p2 = await post(twoLinePosting('2026-03-10', '6520', '6470', '200.00', 'Husleje marts'));
    posted3 = (await post(twoLinePosting('2026-03-20', '6470', '1010', '300.00', 'Kontantsalg'))).id;
    await post(twoLinePosting(late.ledger, '6520', '6470', '75.25', 'Efter as_of'));
    const lines = await bankLines(drift, [
      { date: '2026-02-20', amount: '999.00', text: 'Før vinduet' },
      { date: '2026-03-05', amount: '500.00', text: 'Faktura 1', matched: p1.id },
      { date: '2026-03-11', amount: '-200.00', text: 'Husleje', matched: p2.id },
      { date: '2026-03-15', amount: '-45.50', text: 'Gebyr' },
      { date: '2026-03-28', amount: '1200.75', text: 'Ukendt indbetaling' },
      { date: late.bank, amount: '10.00', text: 'Renter' },
    ]);
    fee = lines[3]!;
  });

  it('at the end of March: bank 2455.25, ledger 1600.00, difference 855.25, and what is unmatched on each side', async () => {
    const r = await reconciled(drift.id, '2026-03-31');
    // bank: 1000.00 opening + 500.00 − 200.00 − 45.50 + 1200.75; ledger: 1000.00 + 500.00 − 200.00 + 300.00.
    expect(r).toMatchObject({
      bank_account_id: drift.id,
      as_of: '2026-03-31',
      currency: 'DKK',
      window_start: '2026-03-01',
      opening_balance: 1000,
      bank_balance: 2455.25,
      ledger_balance: 1600,
      difference: 855.25,
      last_matched_date: '2026-03-11',
    });
    // 855.25 = the unmatched bank lines (−45.50 + 1200.75 = 1155.25) − the unmatched ledger entry (300.00).
    expect(r.unmatched_bank_lines).toEqual({
      count: 2,
      sum: 1155.25,
      more: false,
      items: [
        { id: fee, booking_date: '2026-03-15', amount: -45.5, text: 'Gebyr', counterparty_name: 'Modpart A/S', reference: 'ref-Gebyr' },
        expect.objectContaining({ booking_date: '2026-03-28', amount: 1200.75, text: 'Ukendt indbetaling' }),
      ],
    });
    expect(r.unmatched_ledger_entries).toMatchObject({
      count: 1,
      sum: 300,
      more: false,
      items: [{ transaction_id: posted3, line_number: 1, date: '2026-03-20', amount: 300, description: 'Kontantsalg' }],
    });
    const entry = r.unmatched_ledger_entries.items[0]!;
    const tx = (await ok(t.api.GET('/transactions/{id}', { params: { path: { id: posted3 } } }))).data;
    expect(entry.document_number).toBe(tx.document_number);
    expect(entry.journal_line_id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('defaults as_of to today (Europe/Copenhagen), which takes in the April lines on both sides', async () => {
    const r = await reconciled(drift.id);
    expect(r.as_of).toBe(today());
    // bank: 2455.25 + 10.00; ledger: 1600.00 − 75.25; difference 940.50 = (1155.25 + 10.00) − (300.00 − 75.25).
    expect(r).toMatchObject({ bank_balance: 2465.25, ledger_balance: 1524.75, difference: 940.5 });
    expect(r.unmatched_bank_lines).toMatchObject({ count: 3, sum: 1165.25 });
    expect(r.unmatched_ledger_entries).toMatchObject({ count: 2, sum: 224.75 });
    expect(await reconciled(drift.id, today())).toEqual(r);
  });

  it('on the opening balance date itself: the window is one day long, before any line of it', async () => {
    const r = await reconciled(drift.id, '2026-03-01');
    expect(r).toMatchObject({ opening_balance: 1000, bank_balance: 1000, ledger_balance: 1000, difference: 0, last_matched_date: null });
    expect(r.unmatched_bank_lines).toEqual({ count: 0, sum: 0, items: [], more: false });
    expect(r.unmatched_ledger_entries).toEqual({ count: 0, sum: 0, items: [], more: false });
  });

  it('refuses as_of that is not a date, or before the opening balance date, naming as_of', async () => {
    for (const asOf of ['2026-02-30', '31-03-2026', 'today', '2026-02-28']) {
      const r = await t.raw.get(`/bank-accounts/${drift.id}/reconciliation?as_of=${asOf}`);
      expect(r.status, asOf).toBe(400);
      expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(r.body, asOf).toMatchObject({ code: 'invalid_request', field: 'as_of' });
    }
    const before = await t.raw.get(`/bank-accounts/${drift.id}/reconciliation?as_of=2026-02-28`);
    expect(before.body.detail).toContain('opening_balance_date (2026-03-01)');
  });

  it("answers 404 for another company's bank account and an unknown id, 400 for a malformed id, 403 without transactions:read", async () => {
    const other = await t.another();
    expect((await reconciliation(other.api, drift.id)).response.status).toBe(404);
    expect((await reconciliation(t.api, randomUUID())).response.status).toBe(404);
    const bad = await t.raw.get('/bank-accounts/not-a-uuid/reconciliation');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'invalid_request', field: 'id' });
    const reader = await t.newKey(['transactions:read']);
    expect((await reconciliation(reader.api, drift.id, '2026-03-31')).response.status).toBe(200);
    const outsider = await t.newKey(['accounts:read', 'reports:read']);
    const refused = await reconciliation(outsider.api, drift.id, '2026-03-31');
    expect(refused.response.status).toBe(403);
  });
});

describe('a bank account without an opening balance date, with more than 100 unmatched on each side', () => {
  it('counts and sums them all, lists the first 100 by date then id, and says there are more', async () => {
    await created(t.api.POST('/accounts', { params: idem(), body: { account_number: '6479', name: 'Opsparingskonto', type: 'asset' } }));
    const savings = await bankAccount({ name: 'Opsparing', account_number: '6479' });
    // 101 ledger entries on 6479 in one posting: 1.00 to 101.00, dated 2026-05-02.
    const amounts = Array.from({ length: 101 }, (_, i) => i + 1);
    await post({
      date: '2026-05-02',
      description: 'Mange linjer',
      lines: [...amounts.map((a) => ({ account_number: '6479', debit: a })), { account_number: '6520', credit: 5151 }],
    });
    // 102 unmatched bank lines of 0.01 each, one a day from 2026-05-01.
    await bankLines(
      savings,
      Array.from({ length: 102 }, (_, i) => ({ date: new Date(Date.UTC(2026, 4, 1 + i)).toISOString().slice(0, 10), amount: '0.01' })),
    );
    const r = await reconciled(savings.id, '2026-08-31');
    expect(r).toMatchObject({ window_start: null, opening_balance: 0, bank_balance: 1.02, ledger_balance: 5151, difference: -5149.98 });
    expect(r.unmatched_bank_lines).toMatchObject({ count: 102, sum: 1.02, more: true });
    expect(r.unmatched_bank_lines.items).toHaveLength(100);
    expect(r.unmatched_bank_lines.items.at(-1)!.booking_date).toBe('2026-08-08');
    expect(r.unmatched_ledger_entries).toMatchObject({ count: 101, sum: 5151, more: true });
    expect(r.unmatched_ledger_entries.items.map((i) => i.date)).toEqual(Array(100).fill('2026-05-02'));
    // By date, then the journal line's id: each line listed once, the 101st left for `more`.
    const ids = r.unmatched_ledger_entries.items.map((i) => i.journal_line_id);
    expect(ids).toEqual([...ids].sort());
    expect(new Set(ids).size).toBe(100);
    // The drift account's lines and postings are not this one's.
    expect(r.last_matched_date).toBeNull();
  });
});

describe('a EUR bank account', () => {
  it('is reconciled in EUR: the ledger side counts the lines registered in EUR by their currency amount, not the DKK adjustment', async () => {
    await created(t.api.POST('/accounts', { params: idem(), body: { account_number: '6471', name: 'Bankkonto EUR', type: 'asset' } }));
    const eur = await bankAccount({ name: 'Valutakonto', currency: 'EUR', account_number: '6471', opening_balance_date: '2026-06-01' });
    const rate = '7.46';
    const foreign = { currency: 'EUR', exchange_rate: rate };
    const inEur = (date: string, side: 'debit' | 'credit', eurAmount: string, dkk: string) =>
      post({
        date,
        description: `EUR ${eurAmount}`,
        lines:
          side === 'debit'
            ? [
                { account_number: '6471', debit: dkk, currency_amount: eurAmount, ...foreign },
                { account_number: '1010', credit: dkk },
              ]
            : [
                { account_number: '6471', credit: dkk, currency_amount: eurAmount, ...foreign },
                { account_number: '1010', debit: dkk },
              ],
      });
    await inEur('2026-05-20', 'debit', '1000.00', '7460.00');
    const received = await inEur('2026-06-03', 'debit', '250.00', '1865.00');
    await inEur('2026-06-10', 'credit', '40.00', '298.40');
    // A revaluation in DKK (kursregulering): moves DKK, no euro.
    await post(twoLinePosting('2026-06-30', '6471', '1010', '12.34', 'Kursregulering'));
    await bankLines(eur, [
      { date: '2026-06-03', amount: '250.00', matched: received.id },
      { date: '2026-06-11', amount: '-40.00' },
      { date: '2026-06-15', amount: '-2.50', text: 'Gebyr' },
    ]);
    const r = await reconciled(eur.id, '2026-06-30');
    // opening 1000.00 EUR; bank 1000 + 250 − 40 − 2.50 = 1207.50; ledger 1000 + 250 − 40 = 1210.00.
    expect(r).toMatchObject({ currency: 'EUR', opening_balance: 1000, bank_balance: 1207.5, ledger_balance: 1210, difference: -2.5 });
    // −2.50 = unmatched bank (−40.00 − 2.50) − unmatched ledger (−40.00).
    expect(r.unmatched_bank_lines).toMatchObject({ count: 2, sum: -42.5 });
    expect(r.unmatched_ledger_entries).toMatchObject({ count: 1, sum: -40, items: [{ date: '2026-06-10', amount: -40 }] });
  });
});

describe('the running day totals the reconciliation reads', () => {
  it('equal a recount from the lines after the imports, postings, matches and unmatches above and here', async () => {
    await created(t.api.POST('/accounts', { params: idem(), body: { account_number: '6478', name: 'Tællekonto', type: 'asset' } }));
    const account = await bankAccount({ name: 'Tælling', account_number: '6478' });
    const paid = await post(twoLinePosting('2026-07-02', '6478', '1010', '80.00', 'Indbetaling'));
    const [line] = await bankLines(account, [
      { date: '2026-07-03', amount: '80.00' },
      { date: '2026-07-04', amount: '-5.00' },
    ]);
    const path = { path: { id: line! } };
    const match = () => ok(t.api.POST('/bank-lines/{id}/match', { params: { ...path, ...idem() }, body: { transaction_id: paid.id } }));
    await match();
    expect((await reconciled(account.id, '2026-07-31')).unmatched_ledger_entries).toMatchObject({ count: 0, sum: 0 });
    await ok(t.api.POST('/bank-lines/{id}/unmatch', { params: { ...path, ...idem() } }));
    expect((await reconciled(account.id, '2026-07-31')).unmatched_ledger_entries).toMatchObject({ count: 1, sum: 80 });
    await match();
    // Every bank account of the company, the DKK, EUR and window cases above included: the kept rows (a
    // day whose lines were all undone stays, at zero) against the same rows counted from scratch.
    const { rows } = await testDb().pool.query(
      `WITH kept AS (SELECT * FROM bank_reconciliation_days WHERE company_id = $1
                       AND (bank_sum, open_bank_count, open_bank_sum, ledger_count, ledger_sum, matched_count, matched_sum) <> (0, 0, 0, 0, 0, 0, 0)),
            counted AS (SELECT c.* FROM bank_accounts b CROSS JOIN LATERAL tlr_bank_days_count(b.id) c WHERE b.company_id = $1)
       SELECT 'kept' AS side, * FROM (SELECT * FROM kept EXCEPT SELECT * FROM counted) k
       UNION ALL SELECT 'counted', * FROM (SELECT * FROM counted EXCEPT SELECT * FROM kept) c`,
      [t.company.companyId],
    );
    expect(rows).toEqual([]);
    const { rows: days } = await testDb().pool.query(`SELECT count(*)::int AS n FROM bank_reconciliation_days WHERE company_id = $1`, [t.company.companyId]);
    expect(days[0].n).toBeGreaterThan(10);
  });
});
