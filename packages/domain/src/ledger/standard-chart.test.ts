import { describe, expect, it } from 'vitest';
import { groupFor, parseCsv, seedAccounts, standardChart, typeForNumber } from './standard-chart.ts';
import { VAT_CODES } from '../vat/codes.ts';

describe('the Danish standard chart of accounts', () => {
  const { accounts, groups } = standardChart();

  it('has the 303 accounts and 41 groups of the reference data, with unique numbers', () => {
    expect(accounts).toHaveLength(303);
    expect(groups).toHaveLength(41);
    expect(new Set(accounts.map((a) => a.account_number)).size).toBe(303);
  });

  it('maps types and standard account ids', () => {
    const byNumber = new Map(accounts.map((a) => [a.account_number, a]));
    expect(byNumber.get('1010')).toMatchObject({
      type: 'revenue',
      name: 'Salg af varer og ydelser',
      standard_account_id: '1010',
      default_vat_code: 'S25',
      group_code: '1010-1389',
    });
    expect(byNumber.get('6190')).toMatchObject({ type: 'asset', group_code: '6190-6409' });
    expect(byNumber.get('7680')).toMatchObject({ type: 'liability', name: 'Salgsmoms' });
    expect(byNumber.get('6940')).toMatchObject({ type: 'equity', group_code: '6510-6969' });
    expect(byNumber.get('1610')).toMatchObject({ type: 'expense', default_vat_code: 'K25' });
  });

  it('seeds a bank and a cash account in the empty group Likvide beholdninger', () => {
    const seeded = seedAccounts();
    expect(seeded).toHaveLength(305);
    expect(seeded.find((a) => a.account_number === '6470')).toMatchObject({ type: 'asset', group_code: '6470-6489', name: 'Bankkonto' });
  });

  it('infers the type of a new account number from its group', () => {
    expect(typeForNumber('1020')).toBe('revenue');
    expect(typeForNumber('2035')).toBe('expense');
    expect(typeForNumber('6195')).toBe('asset');
    expect(typeForNumber('6945')).toBe('equity');
    expect(typeForNumber('7450')).toBe('liability');
    expect(typeForNumber('9999')).toBeUndefined();
  });

  it('puts an account in its most specific group (Odoo prefix rule)', () => {
    expect(groupFor('2050', groups)?.code).toBe('2030-2209');
    expect(groupFor('2860', groups)?.code).toBe('2845-2900');
    expect(groupFor('9999', groups)).toBeUndefined();
  });

  it('references only accounts that exist from the VAT codes, with SAF-T sized codes', () => {
    const numbers = new Set(accounts.map((a) => a.account_number));
    for (const v of VAT_CODES) {
      expect(v.code.length).toBeLessThanOrEqual(9);
      for (const n of [v.account_number, v.offset_account_number].filter(Boolean)) expect(numbers.has(n)).toBe(true);
    }
  });

  it('parses quoted CSV with commas, doubled quotes and CRLF', () => {
    expect(parseCsv('"a","b"\r\n"x, y","say ""hi"""\r\n')).toEqual([{ a: 'x, y', b: 'say "hi"' }]);
  });
});
