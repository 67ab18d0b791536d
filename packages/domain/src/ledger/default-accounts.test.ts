import { describe, expect, it } from 'vitest';
import { DEFAULT_ACCOUNTS } from './default-accounts.ts';
import { seedAccounts } from './standard-chart.ts';
import { ACCOUNT_FIELDS, VAT_CODES } from '../vat/codes.ts';

describe('the default accounts', () => {
  const byNumber = new Map(seedAccounts().map((a) => [a.account_number, a]));

  it('are accounts every company is seeded with (the standard chart and the bank of standard-chart.ts), of the type their use needs', () => {
    const types = Object.fromEntries(Object.entries(DEFAULT_ACCOUNTS).map(([use, number]) => [use, byNumber.get(number)?.type]));
    expect(types).toEqual({
      sales: 'revenue',
      reminderFee: 'revenue',
      expense: 'expense',
      reminderInterest: 'revenue',
      exchangeDifference: 'expense',
      receivable: 'asset',
      prepaidExpenses: 'asset',
      bank: 'asset',
      payable: 'liability',
      deferredIncome: 'liability',
      outputVat: 'liability',
      vatOnGoodsAbroad: 'liability',
      vatOnServicesAbroad: 'liability',
      inputVat: 'liability',
      oilAndBottledGasDuty: 'liability',
      electricityDuty: 'liability',
      naturalGasAndTownGasDuty: 'liability',
      coalDuty: 'liability',
      waterDuty: 'liability',
      co2Duty: 'liability',
      vatSettlement: 'liability',
      yearResult: 'equity',
    });
  });

  it('are the accounts the VAT codes and the VAT return read', () => {
    const named = new Set<string>(Object.values(DEFAULT_ACCOUNTS));
    for (const code of VAT_CODES) for (const n of [code.account_number, code.offset_account_number].filter(Boolean)) expect(named.has(n), code.code).toBe(true);
    for (const f of ACCOUNT_FIELDS) expect(named.has(f.account_number), f.field).toBe(true);
  });
});
