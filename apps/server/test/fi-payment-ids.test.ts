// FI payment ids (decisions 245 to 249) through HTTP: the company's FI creditor number in its
// settings, checked by name; the +71 payment id an invoice gets at approval, frozen with the creditor
// number, searched, printed on the PDF and named in the e-invoice.
import { describe, expect, it } from 'vitest';
import { extractText, getDocumentProxy } from 'unpdf';
import { fiPaymentId, isFiPaymentId } from '@tlr/domain';
import { created, idem, ok, useCompany, type Api } from './helpers.ts';

const t = useCompany({ name: 'FI Betaling ApS', cvr: '12345674' });
const path = (id: string) => ({ params: { path: { id } } });

async function customer(c: Api = t.api) {
  return (await created(c.POST('/customers', { params: idem(), body: { name: 'Kunde A/S', cvr: '29190925', city: 'Aarhus C', postal_code: '8000' } }))).data.id;
}

async function draft(customer_id: string, c: Api = t.api) {
  const body = { customer_id, issue_date: '2026-11-20', due_date: '2026-12-04', lines: [{ description: 'Ydelse', quantity: 2, unit_price: 150 }] };
  return (await created(c.POST('/invoices', { params: idem(), body }))).data.id;
}

const approve = async (id: string, c: Api = t.api) => (await ok(c.PUT('/invoices/{id}/status', { ...path(id), body: { status: 'approved' } }))).data;
const setCreditor = async (fi_creditor_number: string | null) => (await ok(t.api.PUT('/settings/company', { body: { fi_creditor_number } }))).data;

async function pdfText(id: string, document?: 'credit_note', c: Api = t.api) {
  const r = await c.GET('/invoices/{id}/pdf', { params: { path: { id }, query: document ? { document } : {} }, parseAs: 'arrayBuffer' });
  expect(r.response.status).toBe(200);
  const { text } = await extractText(await getDocumentProxy(new Uint8Array(r.data!)), { mergePages: true });
  return text.replace(/\s+/g, ' ');
}

describe('FI creditor number (company settings)', () => {
  it('refuses what is not 8 digits starting with 8, naming fi_creditor_number, and changes nothing', async () => {
    const before = (await ok(t.api.GET('/settings/company'))).data;
    expect(before.fi_creditor_number).toBe('');
    for (const value of ['71234567', '8123456', '812345678', '8123456x', '+81234567<']) {
      const r = await t.raw.put('/settings/company', { city: 'Odense', fi_creditor_number: value });
      expect(r.status, value).toBe(400);
      expect(r.body, value).toMatchObject({
        status: 400,
        code: 'invalid_request',
        field: 'fi_creditor_number',
        detail: expect.stringMatching(/FI creditor number/),
      });
    }
    expect((await ok(t.api.GET('/settings/company'))).data).toEqual(before);
  });

  it('is stored without spaces, kept by other changes, and "" or null removes it', async () => {
    const c = t.api;
    expect((await ok(c.PUT('/settings/company', { body: { fi_creditor_number: '8123 4567' } }))).data.fi_creditor_number).toBe('81234567');
    expect((await ok(c.PUT('/settings/company', { body: { city: 'Vejle' } }))).data.fi_creditor_number).toBe('81234567');
    expect((await ok(c.GET('/settings/company'))).data.fi_creditor_number).toBe('81234567');
    expect((await setCreditor(null)).fi_creditor_number).toBe('');
    expect((await setCreditor('')).fi_creditor_number).toBe('');
  });
});

describe('FI payment ids on invoices', () => {
  it('a company without a creditor number gives no payment id, and its PDF no payment line', async () => {
    const other = await t.another('Uden FI ApS');
    const id = await draft(await customer(other.api), other.api);
    const approved = await approve(id, other.api);
    expect(approved.invoice_number).not.toBe('');
    expect([approved.payment_id, approved.fi_creditor_number]).toEqual(['', '']);
    const text = await pdfText(id, undefined, other.api);
    expect(text).toContain(`Fakturanr. ${approved.invoice_number}`);
    expect(text).not.toContain('+71<');
  });

  it('an approved invoice gets the +71 payment id of its number, found by search, printed and frozen', async () => {
    expect((await setCreditor('81234567')).fi_creditor_number).toBe('81234567');
    const id = await draft(await customer());
    const before = (await ok(t.api.GET('/invoices/{id}', path(id)))).data;
    expect([before.payment_id, before.fi_creditor_number]).toEqual(['', '']);

    const approved = await approve(id);
    const paymentId = approved.payment_id;
    expect(paymentId).toMatch(/^\d{15}$/);
    expect(paymentId.slice(0, 14)).toBe(approved.invoice_number.padStart(14, '0'));
    expect(isFiPaymentId(paymentId)).toBe(true);
    expect(paymentId).toBe(fiPaymentId(approved.invoice_number));
    expect(approved.fi_creditor_number).toBe('81234567');

    const found = (await ok(t.api.GET('/invoices', { params: { query: { search: paymentId } } }))).data;
    expect(found.map((i) => i.id)).toEqual([id]);
    expect(found[0]!.payment_id).toBe(paymentId);

    const line = `+71<${paymentId} +81234567<`;
    expect(await pdfText(id)).toContain(line);

    // A later creditor number is for later invoices: this one keeps the line it was issued with.
    expect((await setCreditor('87654321')).fi_creditor_number).toBe('87654321');
    const after = (await ok(t.api.GET('/invoices/{id}', path(id)))).data;
    expect([after.payment_id, after.fi_creditor_number]).toEqual([paymentId, '81234567']);
    expect(await pdfText(id)).toContain(line);
    const ubl = (await t.raw.get(`/invoices/${id}/ubl`)).text;
    expect(ubl).toContain(
      `<cac:PaymentMeans><cbc:PaymentMeansCode>93</cbc:PaymentMeansCode><cbc:PaymentID>71#${paymentId}</cbc:PaymentID><cac:PayeeFinancialAccount><cbc:ID>81234567</cbc:ID></cac:PayeeFinancialAccount></cac:PaymentMeans>`,
    );
    const next = await approve(await draft(await customer()));
    expect([next.payment_id, next.fi_creditor_number]).toEqual([fiPaymentId(next.invoice_number), '87654321']);

    // Removing the creditor number: invoices approved from then on have none; the issued ones keep theirs.
    expect((await setCreditor('')).fi_creditor_number).toBe('');
    const none = await approve(await draft(await customer()));
    expect([none.payment_id, none.fi_creditor_number]).toEqual(['', '']);
    expect((await ok(t.api.GET('/invoices/{id}', path(id)))).data.payment_id).toBe(paymentId);

    // The credit note that cancels it asks for no payment: no payment line on it.
    await ok(t.api.PUT('/invoices/{id}/status', { ...path(id), body: { status: 'cancelled' } }));
    const credit = await pdfText(id, 'credit_note');
    expect(credit).toContain('KREDITNOTA');
    expect(credit).not.toContain('+71<');
  }, 60_000);
});
