// A supplier's credit note (kreditnota) as a negative expense, through HTTP against PostgreSQL:
// its VAT has the amount's sign, booking posts the mirror of a bill, the VAT return shows the purchase
// VAT reduced, paying it is the supplier's refund (in EUR with the realised kursdifference on 3610),
// cancelling reverses it, and the refusals name their field. Bills behave as before.
import { describe, expect, it } from 'vitest';
import { created, idem, ok, useCompany } from './helpers.ts';

const t = useCompany({ name: 'Kreditnota Indkøb ApS' });

const posting = async (id: string | null) => {
  if (id === null) throw new Error('expected the id of a posting, got null');
  return (await ok(t.api.GET('/transactions/{id}', { params: { path: { id } } }))).data.lines.map((l) => [l.account_number, l.debit, l.credit, l.vat_code]);
};
const inEur = async (id: string | null) => {
  if (id === null) throw new Error('expected the id of a posting, got null');
  return (await ok(t.api.GET('/transactions/{id}', { params: { path: { id } } }))).data.lines.map((l) => [l.account_number, l.debit, l.credit, l.currency]);
};

/** Creates an expense (booked unless told otherwise); answers it. */
async function expense(body: { date: string; amount: number; vat_code?: string; vat_amount?: number; currency?: string; book?: boolean }) {
  return (await created(t.api.POST('/expenses', { params: idem(), body: { description: 'Kreditnota', book: true, ...body } }))).data;
}

const status = async (id: string, body: { status: 'paid' | 'cancelled'; date: string; exchange_rate?: number }) =>
  (await ok(t.api.PUT('/expenses/{id}/status', { params: { path: { id } }, body }))).data;

const vatReturn = async (period: string) => (await ok(t.api.GET('/vat-returns', { params: { query: { period } } }))).data;

describe('a credit note from a supplier (negative expense)', () => {
  let creditNote: string;

  it('books a K25 bill as before, and a K25 credit note as its mirror with negative VAT', async () => {
    // A bill of 6250.00 including 1250.00 købsmoms: unchanged.
    const bill = await expense({ date: '2026-07-08', amount: 6250, vat_code: 'K25' });
    expect(bill).toMatchObject({ amount: 6250, vat_amount: 1250, net_amount: 5000, status: 'booked' });
    expect(await posting(bill.posted_transaction_id)).toEqual([
      ['2810', 5000, 0, 'K25'],
      ['7740', 1250, 0, 'K25'],
      ['7440', 0, 6250, ''],
    ]);
    // The supplier credits 1250.00 of it: the VAT defaults to the -250.00 contained, and the posting is
    // the bill's of that size with debit and credit swapped.
    const credit = await expense({ date: '2026-08-05', amount: -1250, vat_code: 'K25' });
    creditNote = credit.id;
    expect(credit).toMatchObject({ amount: -1250, vat_amount: -250, net_amount: -1000, vat_code: 'K25', status: 'booked' });
    expect(await posting(credit.posted_transaction_id)).toEqual([
      ['2810', 0, 1000, 'K25'],
      ['7740', 0, 250, 'K25'],
      ['7440', 1250, 0, ''],
    ]);
  });

  it('credits a purchase in the EU (reverse charge): the VAT owed and deducted both go down, and box A with them', async () => {
    await expense({ date: '2026-07-20', amount: 4000, vat_code: 'EUV' }); // 1000.00 on 7700 and 7740, box A 4000
    const credit = await expense({ date: '2026-08-20', amount: -400, vat_code: 'EUV' });
    expect(credit).toMatchObject({ amount: -400, vat_amount: -100, net_amount: -400 });
    expect(await posting(credit.posted_transaction_id)).toEqual([
      ['2810', 0, 400, 'EUV'],
      ['7700', 100, 0, 'EUV'],
      ['7740', 0, 100, 'EUV'],
      ['7440', 400, 0, ''],
    ]);
  });

  it('shows the purchase VAT of the quarter reduced by the credit notes', async () => {
    const r = await vatReturn('2026-Q3');
    // købsmoms: 1250.00 − 250.00 (K25 credit note) + 1000.00 − 100.00 (EUV credit note) = 1900.00
    // erhvervelsesmoms: 1000.00 − 100.00 = 900.00; box A goods: 4000 − 400 = 3600; net: 900 − 1900 = −1000.
    expect(r.fields).toMatchObject({ input_vat: 1900, vat_on_goods_purchased_abroad: 900, box_a_goods: 3600, output_vat: 0, net_vat: -1000 });
    expect(r.exact_fields).toMatchObject({ input_vat: 1900, net_vat: -1000 });
  });

  it('cancels a credit note with the reversal of its posting, and the return has the purchase VAT back', async () => {
    const cancelled = await status(creditNote, { status: 'cancelled', date: '2026-09-30' });
    expect(cancelled.status).toBe('cancelled');
    const { data: original } = await ok(t.api.GET('/transactions/{id}', { params: { path: { id: cancelled.posted_transaction_id! } } }));
    expect(await posting(original.reversed_by_transaction_id!)).toEqual([
      ['2810', 1000, 0, 'K25'],
      ['7740', 250, 0, 'K25'],
      ['7440', 0, 1250, ''],
    ]);
    expect((await vatReturn('2026-Q3')).fields).toMatchObject({ input_vat: 2150, net_vat: -1250 });
  });

  it('pays a DKK credit note as the refund: the bank debited, payables credited', async () => {
    const credit = await expense({ date: '2026-09-01', amount: -500, vat_amount: -100 });
    // Without a code, as before codes: the VAT is K25's.
    expect(credit).toMatchObject({ vat_code: 'K25', vat_amount: -100, net_amount: -400 });
    const paid = await status(credit.id, { status: 'paid', date: '2026-09-10' });
    expect(paid).toMatchObject({ status: 'paid', paid_date: '2026-09-10' });
    expect(await posting(paid.payment_transaction_id)).toEqual([
      ['6470', 500, 0, ''],
      ['7440', 0, 500, ''],
    ]);
    // A bill is paid as before: payables debited, the bank credited.
    const bill = await expense({ date: '2026-09-01', amount: 300 });
    expect(await posting((await status(bill.id, { status: 'paid', date: '2026-09-10' })).payment_transaction_id)).toEqual([
      ['7440', 300, 0, ''],
      ['6470', 0, 300, ''],
    ]);
  });

  it('books a EUR credit note in DKK and pays the refund at other rates with the kursdifference on 3610', async () => {
    await ok(
      t.api.PUT('/exchange-rates', {
        body: {
          rates: [
            { currency: 'EUR', date: '2026-11-02', rate: 7.4612 },
            { currency: 'EUR', date: '2026-11-20', rate: 7.5 },
          ],
        },
      }),
    );
    // -100.00 EUR incl. -20.00 VAT at 7.4612 (the rate of 2 November): cost 596.90 (596.896), VAT 149.22
    // (149.224), payables 746.12, all credited but payables, debited.
    const credit = await expense({ date: '2026-11-03', amount: -100, vat_code: 'K25', currency: 'EUR' });
    expect(credit).toMatchObject({ currency: 'EUR', exchange_rate: 7.4612, amount: -100, vat_amount: -20 });
    expect(await inEur(credit.posted_transaction_id)).toEqual([
      ['2810', 0, 596.9, 'EUR'],
      ['7740', 0, 149.22, 'EUR'],
      ['7440', 746.12, 0, 'EUR'],
    ]);
    // Refunded on 20 November at the table's 7.50: the bank gets 750.00, payables are cleared with the
    // 746.12 booked, and the 3.88 gained is credited to 3610.
    const paid = await status(credit.id, { status: 'paid', date: '2026-11-20' });
    expect(await inEur(paid.payment_transaction_id)).toEqual([
      ['6470', 750, 0, 'EUR'],
      ['7440', 0, 746.12, 'EUR'],
      ['3610', 0, 3.88, null],
    ]);
    // Another, refunded at a stated 7.40: the bank gets 740.00 for the 746.12 booked, 6.12 lost is debited.
    const other = await expense({ date: '2026-11-03', amount: -100, vat_code: 'K25', currency: 'EUR' });
    const lost = await status(other.id, { status: 'paid', date: '2026-11-21', exchange_rate: 7.4 });
    expect(await inEur(lost.payment_transaction_id)).toEqual([
      ['6470', 740, 0, 'EUR'],
      ['7440', 0, 746.12, 'EUR'],
      ['3610', 6.12, 0, null],
    ]);
  });

  it('balances a EUR credit note off by an øre on payables, as a bill is', async () => {
    // -33.33 EUR incl. -6.67 VAT at 7.4612: cost 198.92 (198.9156) and VAT 49.77 (49.7662) credited make
    // 248.69; payables at 248.68 (248.6818) are debited the missing øre on a line of its own, in DKK.
    const credit = await expense({ date: '2026-11-03', amount: -33.33, vat_code: 'K25', currency: 'EUR' });
    expect(await inEur(credit.posted_transaction_id)).toEqual([
      ['2810', 0, 198.92, 'EUR'],
      ['7740', 0, 49.77, 'EUR'],
      ['7440', 248.68, 0, 'EUR'],
      ['7440', 0.01, 0, null],
    ]);
    // The refund clears payables at the booking's 248.69: 248.68 in EUR (33.33 × 7.4612) and the øre in DKK
    // beside it, as the booking made it; the bank gets 33.33 × 7.5 = 249.98, the gain 1.29 on 3610.
    const refunded = await status(credit.id, { status: 'paid', date: '2026-11-20', exchange_rate: 7.5 });
    expect(await inEur(refunded.payment_transaction_id)).toEqual([
      ['6470', 249.98, 0, 'EUR'],
      ['7440', 0, 248.68, 'EUR'],
      ['7440', 0, 0.01, null],
      ['3610', 0, 1.29, null],
    ]);
  });

  it('refuses an amount of 0 and VAT of the other sign, naming the field; a draft may become a credit note', async () => {
    const refused = async (body: object, field: string, detail: RegExp) => {
      const r = await t.raw.post('/expenses', { date: '2026-09-01', ...body }, idem().header);
      expect([r.status, r.body.code, r.body.field]).toEqual([400, 'invalid_request', field]);
      expect(r.body.detail).toMatch(detail);
    };
    await refused({ amount: 0 }, 'amount', /must not be 0/);
    await refused({ amount: 0, vat_code: 'K25' }, 'amount', /must not be 0/);
    await refused({ amount: -1250, vat_amount: 250 }, 'vat_amount', /other sign/);
    await refused({ amount: -1250, vat_amount: 250, vat_code: 'K25' }, 'vat_amount', /other sign/);
    await refused({ amount: 1250, vat_amount: -250, vat_code: 'K25' }, 'vat_amount', /other sign/);
    await refused({ amount: -1000, vat_amount: 250, vat_code: 'EUV' }, 'vat_amount', /other sign/);
    // Bounded in size as a bill: -125.00 contains at most -25.00.
    await refused({ amount: -125, vat_amount: -25.01, vat_code: 'K25' }, 'vat_amount', /more in size than/);
    await refused({ amount: 125, vat_amount: 25.01 }, 'vat_amount', /more than/);

    const draft = await expense({ date: '2026-09-01', amount: 625, vat_code: 'K25', book: false });
    const zero = await t.raw.put(`/expenses/${draft.id}`, { amount: 0 });
    expect([zero.status, zero.body.field]).toEqual([400, 'amount']);
    const wrong = await t.raw.put(`/expenses/${draft.id}`, { vat_amount: -125 });
    expect([wrong.status, wrong.body.field]).toEqual([400, 'vat_amount']);
    // A changed amount recomputes the VAT: -625.00 contains -125.00.
    const changed = (await ok(t.api.PUT('/expenses/{id}', { params: { path: { id: draft.id } }, body: { amount: -625 } }))).data;
    expect(changed).toMatchObject({ amount: -625, vat_amount: -125, net_amount: -500, status: 'draft' });
  });
});
