import { describe, expect, it } from 'vitest';
import { normaliseEmail, normalisePhone } from './rules.ts';

describe('customer lookup normalisation', () => {
  it('compares e-mail addresses case-insensitively', () => {
    expect(normaliseEmail('  Ole@Example.DK ')).toBe('ole@example.dk');
  });
  it('reduces a telephone number to its digits and drops the Danish country code', () => {
    expect(normalisePhone('+45 12 34 56 78')).toBe('12345678');
    expect(normalisePhone('0045 12345678')).toBe('12345678');
    expect(normalisePhone('12-34-56-78')).toBe('12345678');
  });
  it('keeps foreign numbers whole', () => {
    expect(normalisePhone('+46 70 123 45 67')).toBe('46701234567');
  });
});
