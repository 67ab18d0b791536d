import { describe, expect, it } from 'vitest';
import type { StoredLine } from './inbound.ts';
import { einvoiceMessageView, type EinvoiceMessageHead } from './views.ts';

const line: StoredLine = {
  id: '1',
  description: 'Fjernvarme',
  item_id: '',
  item_key: 'name:fjernvarme',
  quantity: '12345678.1234',
  unit: 'KWH',
  price: '81000000.123456789',
  net_amount: '999999999999999.99',
  allowances: [{ charge: false, amount: '-999999999999999.99', reason: 'Rabat' }],
  vat_category: 'S',
  vat_rate: '25',
  vat_amount: '249999999999999.99',
  account_number: '2810',
  account_source: 'vat_category',
};

describe('a received e-invoice as the API writes it', () => {
  it("writes the line's amounts, quantity, price and the other taxes with their exact digits, beyond what a double holds", () => {
    const at = new Date('2026-03-02T10:00:00Z');
    const m = {
      id: 'm',
      direction: 'inbound',
      document_kind: 'invoice',
      document_format: 'peppol-bis3',
      lines: [line],
      payment_means: [],
      other_taxes: [{ scheme: 'AAA', name: 'Elafgift', amount: '123456789012345.67' }],
      attachment_voucher_ids: [],
      created_at: at,
      updated_at: at,
    } as unknown as EinvoiceMessageHead;
    const text = JSON.stringify(einvoiceMessageView(m));
    for (const exact of [
      '"quantity":12345678.1234',
      '"price":81000000.123456789',
      '"net_amount":999999999999999.99',
      '"amount":-999999999999999.99',
      '"vat_amount":249999999999999.99',
      '"amount":123456789012345.67',
    ])
      expect(text).toContain(exact);
  });
});
