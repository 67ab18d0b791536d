// Invoices and expenses in foreign currency through HTTP: the rate from the document
// or the company's table, the DKK posting with each line's currency, partial payments at other rates and
// the realised exchange difference, the lists' currency filter and sort, and the PDF.
import { extractText, getDocumentProxy } from 'unpdf';
import { describe, expect, it } from 'vitest';
import { created, idem, ok, useCompany } from './helpers.ts';

const t = useCompany({ name: 'Valuta Handel ApS' });

const posting = async (id: string) =>
  (await ok(t.api.GET('/transactions/{id}', { params: { path: { id } } }))).data.lines.map((l) => [l.account_number, l.debit, l.credit, l.currency]);

describe('documents in foreign currency', () => {
  let invoiceId: string;

  it('posts a EUR invoice at the rate of its date in the table; payments at other rates post the kursdifference, the rest stays open in EUR', async () => {
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
    const customer = (await created(t.api.POST('/customers', { params: idem(), body: { name: 'Kunde i euro' } }))).data.id;
    // 3 × 33.33 = 99.99 EUR + 25 % (24.9975 -> 25.00) = 124.99 EUR. At 7.4612 (the table's rate of 2 November,
    // the invoice dated 4 November): revenue 746.05 (746.0454), VAT 186.53 (186.53), receivables 932.58.
    const invoice = (
      await created(
        t.api.POST('/invoices', {
          params: idem(),
          body: {
            customer_id: customer,
            issue_date: '2026-11-04',
            due_date: '2026-11-30',
            currency: 'EUR',
            auto_approve: true,
            lines: [{ description: 'Konsulent', quantity: 3, unit_price: 33.33 }],
          },
        }),
      )
    ).data;
    invoiceId = invoice.id;
    expect(invoice).toMatchObject({ subtotal: 99.99, vat_amount: 25, total: 124.99 });
    expect(await posting(invoice.posted_transaction_id!)).toEqual([
      ['6190', 932.58, 0, 'EUR'],
      ['1010', 0, 746.05, 'EUR'],
      ['7680', 0, 186.53, 'EUR'],
    ]);
    // 50.00 EUR on 20 November at the table's 7.50: the bank gets 375.00, receivables are cleared with
    // 50.00 × 7.4612 = 373.06, and the 1.94 gained is credited to 3610.
    const first = (
      await created(t.api.POST('/invoices/{id}/payments', { params: { path: { id: invoice.id }, ...idem() }, body: { amount: 50, date: '2026-11-20' } }))
    ).data;
    expect(first.exchange_rate).toBe(7.5);
    expect(await posting(first.transaction_id)).toEqual([
      ['6470', 375, 0, 'EUR'],
      ['6190', 0, 373.06, 'EUR'],
      ['3610', 0, 1.94, null],
    ]);
    const open = (await ok(t.api.GET('/invoices/{id}', { params: { path: { id: invoice.id } } }))).data;
    expect(open).toMatchObject({ status: 'approved', paid_amount: 50, balance_due: 74.99, currency: 'EUR', total_dkk: 932.58 });
    // The rest, 74.99 EUR at a stated 7.40: the bank gets 554.93, what is left of receivables (932.58 − 373.06
    // = 559.52) is cleared, and the 4.59 lost is debited to 3610.
    const last = (
      await created(
        t.api.POST('/invoices/{id}/payments', {
          params: { path: { id: invoice.id }, ...idem() },
          body: { amount: 74.99, date: '2026-11-25', exchange_rate: 7.4 },
        }),
      )
    ).data;
    expect(await posting(last.transaction_id)).toEqual([
      ['6470', 554.93, 0, 'EUR'],
      ['6190', 0, 559.52, 'EUR'],
      ['3610', 4.59, 0, null],
    ]);
    expect((await ok(t.api.GET('/invoices/{id}', { params: { path: { id: invoice.id } } }))).data).toMatchObject({ status: 'paid', balance_due: 0 });
  });

  it('marks a EUR invoice paid at a stated rate, and refuses a rate with another status', async () => {
    const customer = (await created(t.api.POST('/customers', { params: idem(), body: { name: 'Betaler på én gang' } }))).data.id;
    const body = {
      customer_id: customer,
      issue_date: '2026-11-02',
      due_date: '2026-11-30',
      currency: 'EUR',
      exchange_rate: 7.45,
      auto_approve: true,
      lines: [{ description: 'Vare', quantity: 1, unit_price: 80 }],
    };
    const id = (await created(t.api.POST('/invoices', { params: idem(), body }))).data.id;
    const refused = await t.raw.put(`/invoices/${id}/status`, { status: 'sent', exchange_rate: 7.5 });
    expect([refused.status, refused.body.field]).toEqual([400, 'exchange_rate']);
    const paid = (await ok(t.api.PUT('/invoices/{id}/status', { params: { path: { id } }, body: { status: 'paid', date: '2026-11-21', exchange_rate: 7.5 } })))
      .data;
    // 100.00 EUR: received 750.00 at 7.50, receivables cleared with the 745.00 the invoice was posted at.
    expect(paid).toMatchObject({ status: 'paid', exchange_rate: 7.45, total_dkk: 745 });
    expect(paid.payments.map((p) => [p.amount, p.exchange_rate])).toEqual([[100, 7.5]]);
    expect(await posting(paid.payments[0]!.transaction_id)).toEqual([
      ['6470', 750, 0, 'EUR'],
      ['6190', 0, 745, 'EUR'],
      ['3610', 0, 5, null],
    ]);
  });

  it('pays a EUR invoice whose booking rounded an øre onto receivables in full: the øre is cleared beside the EUR line, as it was booked', async () => {
    const customer = (await created(t.api.POST('/customers', { params: idem(), body: { name: 'Øre i euro' } }))).data.id;
    const body = {
      customer_id: customer,
      issue_date: '2026-11-04',
      due_date: '2026-11-30',
      currency: 'EUR',
      exchange_rate: 7.4612,
      auto_approve: true,
      lines: [{ description: 'Vare', quantity: 1, unit_price: 26.66 }],
    };
    // 26.66 + 6.67 VAT = 33.33 EUR at 7.4612: revenue 198.92 and VAT 49.77 credited make 248.69; receivables
    // 33.33 × 7.4612 = 248.68 in EUR, and the missing øre in DKK beside it.
    const invoice = (await created(t.api.POST('/invoices', { params: idem(), body }))).data;
    expect(await posting(invoice.posted_transaction_id!)).toEqual([
      ['6190', 248.68, 0, 'EUR'],
      ['1010', 0, 198.92, 'EUR'],
      ['7680', 0, 49.77, 'EUR'],
      ['6190', 0.01, 0, null],
    ]);
    const paid = (
      await ok(t.api.PUT('/invoices/{id}/status', { params: { path: { id: invoice.id } }, body: { status: 'paid', date: '2026-11-21', exchange_rate: 7.5 } }))
    ).data;
    // Received 33.33 × 7.50 = 249.98; receivables cleared with the 248.69 booked: 248.68 in EUR and the øre; gain 1.29.
    expect(await posting(paid.payments[0]!.transaction_id)).toEqual([
      ['6470', 249.98, 0, 'EUR'],
      ['6190', 0, 248.68, 'EUR'],
      ['6190', 0, 0.01, null],
      ['3610', 0, 1.29, null],
    ]);
    expect(paid).toMatchObject({ status: 'paid', balance_due: 0 });
  });

  it('books a EUR purchase in the EU (reverse charge) and pays it at another rate', async () => {
    // 1000.00 EUR at 7.4612 (dated 3 November: the rate of the 2nd): cost 7461.20, VAT 250.00 EUR = 1865.30 owed and deducted.
    const expense = (
      await created(t.api.POST('/expenses', { params: idem(), body: { date: '2026-11-03', amount: 1000, vat_code: 'EUV', currency: 'EUR', book: true } }))
    ).data;
    expect(expense).toMatchObject({ currency: 'EUR', exchange_rate: 7.4612, vat_amount: 250, net_amount: 1000, vat_code: 'EUV' });
    expect(await posting(expense.posted_transaction_id!)).toEqual([
      ['2810', 7461.2, 0, 'EUR'],
      ['7700', 0, 1865.3, 'EUR'],
      ['7740', 1865.3, 0, 'EUR'],
      ['7440', 0, 7461.2, 'EUR'],
    ]);
    const paid = (await ok(t.api.PUT('/expenses/{id}/status', { params: { path: { id: expense.id } }, body: { status: 'paid', date: '2026-11-20' } }))).data;
    expect(await posting(paid.payment_transaction_id!)).toEqual([
      ['7440', 7461.2, 0, 'EUR'],
      ['6470', 0, 7500, 'EUR'],
      ['3610', 38.8, 0, null],
    ]);
  });

  it('filters and sorts the lists by currency', async () => {
    await created(
      t.api.POST('/invoices', {
        params: idem(),
        body: { issue_date: '2026-11-05', due_date: '2026-11-05', lines: [{ description: 'I kroner', quantity: 1, unit_price: 10 }] },
      }),
    );
    const eur = await ok(t.api.GET('/invoices', { params: { query: { currency: 'EUR' } } }));
    // The three EUR invoices of the tests above; not the DKK draft.
    expect([eur.meta.total, eur.data.map((i) => i.currency)]).toEqual([3, ['EUR', 'EUR', 'EUR']]);
    const sorted = await ok(t.api.GET('/invoices', { params: { query: { sort: 'currency', order: 'asc' } } }));
    expect(sorted.data.map((i) => i.currency)).toEqual(['DKK', 'EUR', 'EUR', 'EUR']);
    expect((await ok(t.api.GET('/expenses', { params: { query: { currency: 'EUR' } } }))).meta.total).toBe(1);
    expect((await ok(t.api.GET('/expenses', { params: { query: { currency: 'SEK' } } }))).meta.total).toBe(0);
    const bad = await t.raw.get('/invoices?currency=eur');
    expect([bad.status, bad.body.field]).toEqual([400, 'currency']);
  });

  it('prints the invoice in its currency and states its VAT in DKK', async () => {
    const { data } = await t.api.GET('/invoices/{id}/pdf', { params: { path: { id: invoiceId }, query: {} }, parseAs: 'arrayBuffer' });
    const { text } = await extractText(await getDocumentProxy(new Uint8Array(data!)), { mergePages: true });
    const flat = text.replace(/\s+/g, ' ');
    expect(flat).toContain('Beløb EUR');
    expect(flat).toContain('Total EUR inkl. moms 124,99');
    // 25.00 EUR × 7.4612 = 186.53 DKK.
    expect(flat).toContain('Moms i DKK (kurs 7,4612) 186,53');
  });
});
