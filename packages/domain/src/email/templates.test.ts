// The e-mail texts' rules without a database: filling in placeholders, the subject kept on one line,
// Danish amounts and dates, and a placeholder a kind does not fill in refused by field (decision 599).
import { describe, expect, it } from 'vitest';
import { DomainError } from '../errors.ts';
import { checkPlaceholders, DEFAULT_TEMPLATES, fillIn, mailAmount, mailDate, PLACEHOLDERS } from './templates.ts';
import { EMAIL_KINDS } from './schema.ts';

describe('e-mail templates', () => {
  it('fill in each {{name}}, spaces inside the braces allowed, and keep the subject on one line', () => {
    const text = fillIn(
      { subject: 'Faktura {{invoice_number}} til {{ customer_name }}', body: 'Kære {{customer_name}}\n\n{{amount}}' },
      {
        invoice_number: '12',
        customer_name: 'Kunde\r\nA/S',
        amount: '1.250,00 kr.',
      },
    );
    expect(text).toEqual({ subject: 'Faktura 12 til Kunde A/S', body: 'Kære Kunde\r\nA/S\n\n1.250,00 kr.' });
  });

  it('write amounts and dates the Danish way', () => {
    expect(mailAmount('1250', 'DKK')).toBe('1.250,00 kr.');
    expect(mailAmount('1234567.5', 'EUR')).toBe('1.234.567,50 EUR');
    expect(mailDate('2026-11-22')).toBe('22.11.2026');
  });

  it('refuse a placeholder the kind does not fill in, naming the field and listing the kind’s', () => {
    expect(() => checkPlaceholders('invoice', 'body', 'Gyldig til {{valid_until}}')).toThrow(DomainError);
    try {
      checkPlaceholders('quote', 'subject', 'Tilbud {{invoice_number}}');
    } catch (e) {
      expect(e).toMatchObject({ code: 'invalid_request', field: 'subject' });
      expect((e as Error).message).toContain('{{quote_number}}');
    }
    expect(() => checkPlaceholders('quote', 'subject', 'Tilbud {{ quote_number }} gyldigt til {{valid_until}}')).not.toThrow();
  });

  it('the built-in texts use only their own kind’s placeholders', () => {
    for (const kind of EMAIL_KINDS) {
      for (const field of ['subject', 'body'] as const) expect(() => checkPlaceholders(kind, field, DEFAULT_TEMPLATES[kind][field])).not.toThrow();
      expect(PLACEHOLDERS[kind]).toContain('company_name');
    }
  });
});
