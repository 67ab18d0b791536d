import { describe, expect, it } from 'vitest';
import { checkCvr, normalizeCvr } from './cvr.ts';

describe('CVR', () => {
  it('accepts registered CVR numbers, also written in groups', () => {
    // Region Midtjylland, Novo Nordisk A/S, A.P. Møller - Mærsk A/S, Carlsberg A/S.
    for (const cvr of ['29190925', '24256790', '22756214', '61056416', '12345674', '87654338']) expect(checkCvr(cvr), cvr).toBeUndefined();
    expect(checkCvr('29 19 09 25')).toBeUndefined();
    expect(checkCvr(' 2919 0925 ')).toBeUndefined();
  });

  it('refuses a changed digit and swapped neighbours by the modulus 11 check', () => {
    expect(checkCvr('12345678')).toMatch(/has a wrong check digit \(not a valid CVR number by the modulus 11 rule/);
    expect(checkCvr('29190926')).toMatch(/modulus 11/);
    expect(checkCvr('29190952')).toMatch(/modulus 11/);
    expect(checkCvr('92190925')).toMatch(/modulus 11/);
  });

  it('refuses what is not 8 digits with a first digit other than 0', () => {
    for (const text of ['', '1234567', '123456740', '1234567a', 'DK12345674', '12-34-56-74', '01234567', '00000000'])
      expect(checkCvr(text), text).toMatch(/must have 8 digits, the first not 0/);
  });

  it('stores without whitespace', () => {
    expect(normalizeCvr(' 12 34 56 74 ')).toBe('12345674');
  });
});
