import { describe, expect, it } from 'vitest';
import { checkFiCreditorNumber, fiCheckDigit, fiPaymentId, fiPaymentLine, fiUblPaymentId, isFiPaymentId, normalizeFiCreditorNumber } from './fi-payment.ts';

describe('FI creditor number', () => {
  it('accepts 8 digits starting with 8, also written with spaces', () => {
    for (const n of ['81234567', '80000000', '89999999', '8123 4567', ' 81234567 ']) expect(checkFiCreditorNumber(n), n).toBeUndefined();
    expect(normalizeFiCreditorNumber(' 8123 4567 ')).toBe('81234567');
  });

  it('refuses other lengths, another first digit and non-digits', () => {
    for (const n of ['', '8123456', '812345678', '71234567', '01234567', '8123456a', '+81234567', '8123-4567'])
      expect(checkFiCreditorNumber(n), n).toMatch(/must be an FI creditor number \(kreditornummer\): 8 digits, the first 8/);
  });
});

describe('FI +71 payment id', () => {
  it('is the invoice number padded to 14 digits and its modulus 10 check digit (worked example)', () => {
    // Invoice 173 -> 00000000000173. From the right: 3×2 = 6, 7×1 = 7, 1×2 = 2, the zeros 0: the sum is 15,
    // and 10 - 15 mod 10 = 5 is the check digit.
    expect(fiCheckDigit('00000000000173')).toBe(5);
    expect(fiPaymentId('173')).toBe('000000000001735');
    // A product of two digits counts by its digit sum: 9×2 = 18 -> 9; 8×1 = 8; sum 17, check 3.
    expect(fiPaymentId('89')).toBe('000000000000893');
    // A sum that is a multiple of 10 gives check digit 0: 5×2 = 10 -> 1, 9×1 = 9; sum 10.
    expect(fiPaymentId('95')).toBe('000000000000950');
  });

  it('is Luhn: the whole id, check digit included, passes the Luhn check', () => {
    const luhnValid = (id: string) =>
      [...id]
        .reverse()
        .map(Number)
        .reduce((acc, d, i) => acc + (i % 2 === 1 ? (d * 2 > 9 ? d * 2 - 9 : d * 2) : d), 0) %
        10 ===
      0;
    for (const n of ['1', '173', '1000', '98765432109876', '42424242']) {
      const id = fiPaymentId(n);
      expect(id).toHaveLength(15);
      expect(luhnValid(id), id).toBe(true);
      expect(isFiPaymentId(id)).toBe(true);
    }
  });

  it('detects a changed digit and refuses what is no invoice number', () => {
    expect(isFiPaymentId('000000000001736')).toBe(false);
    expect(isFiPaymentId('000000000001753')).toBe(false);
    expect(isFiPaymentId('00000000001735')).toBe(false);
    for (const n of ['', 'A173', '123456789012345', '-1']) expect(() => fiPaymentId(n), n).toThrow(/1 to 14 digits/);
  });

  it('is printed as the +71 payment line and written as the UBL PaymentID', () => {
    expect(fiPaymentLine('000000000001735', '81234567')).toBe('+71<000000000001735 +81234567<');
    expect(fiUblPaymentId('000000000001735')).toBe('71#000000000001735');
  });
});
