import { describe, expect, it } from 'vitest';
import { checkIban, normalizeIban, printIban } from './bank.ts';

describe('IBAN', () => {
  it('accepts published example IBANs, with or without spaces and in lower case', () => {
    // Danske Bank's and the ECBS register's examples.
    expect(checkIban('DK50 0040 0440 1162 43')).toBeUndefined();
    expect(checkIban('dk5000400440116243')).toBeUndefined();
    expect(checkIban('DE89370400440532013000')).toBeUndefined();
    expect(checkIban('GB29NWBK60161331926819')).toBeUndefined();
    expect(checkIban('NO9386011117947')).toBeUndefined();
  });

  it('refuses a changed digit, swapped digits, a wrong length and a non-IBAN', () => {
    expect(checkIban('DK5000400440116244')).toMatch(/check digits/);
    expect(checkIban('DK5000400440116234')).toMatch(/check digits/);
    expect(checkIban('DK500040044011624')).toMatch(/18 characters for DK/);
    expect(checkIban('12345678')).toMatch(/must be an IBAN/);
    expect(checkIban('')).toMatch(/must be an IBAN/);
  });

  it('normalises for storage and groups by four for print', () => {
    expect(normalizeIban(' dk50 0040 0440 1162 43 ')).toBe('DK5000400440116243');
    expect(printIban('DK5000400440116243')).toBe('DK50 0040 0440 1162 43');
  });
});
