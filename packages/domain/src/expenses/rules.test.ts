import { describe, expect, it } from 'vitest';
import { DomainError } from '../errors.ts';
import { Decimal } from '../money.ts';
import type { PostingLine } from '../ledger/rules.ts';
import type { VatTreatment } from '../vat/codes.ts';
import { bookingLines, expenseVat, LEGACY_EXPENSE_TREATMENT, linesBookingLines } from './rules.ts';
import { settleLineVat } from './line-rules.ts';

const d = (v: string) => new Decimal(v);

const treatment = (code: string, kind: VatTreatment['kind'], deductible = '100'): VatTreatment => ({
  code,
  kind,
  rate: d('25'),
  accountId: 'vat',
  offsetAccountId: 'offset',
  deductiblePercent: d(deductible),
});
const K25 = treatment('K25', 'input');
const KREP = treatment('KREP', 'input', '25');
const EUV = treatment('EUV', 'eu_purchase_goods');
const K0 = { ...treatment('K0', 'exempt_purchase'), rate: d('0') };

/** The VAT expenseVat answers, as text; a refusal as `[field] message`. */
function vatOf(t: Pick<VatTreatment, 'code' | 'kind' | 'rate'>, amount: string, given?: string): string {
  try {
    return expenseVat(t, d(amount), given === undefined ? undefined : d(given)).toFixed(2);
  } catch (e) {
    if (!(e instanceof DomainError)) throw e;
    return `[${e.field}] ${e.message}`;
  }
}

const sides = (lines: PostingLine[]) => lines.map((l) => [l.accountId, l.debit.toFixed(2), l.credit.toFixed(2), l.vatCode]);
const book = (t: VatTreatment | undefined, amount: string, vat: string, deductible?: string) =>
  bookingLines(
    { costAccountId: 'cost', payableAccountId: 'payables', amount: d(amount), vat: d(vat), text: 'Kreditnota' },
    t,
    deductible === undefined ? undefined : d(deductible),
  );

describe('expenseVat', () => {
  it('keeps the rules of a bill: default the VAT contained, at most that, reverse charge on top', () => {
    expect(vatOf(K25, '1250')).toBe('250.00');
    expect(vatOf(K25, '1250', '100')).toBe('100.00');
    expect(vatOf(K25, '125', '25.01')).toMatch(/^\[vat_amount\] vat_amount: 25\.01 is more than the 25 % VAT \(code K25\)/);
    expect(vatOf(EUV, '1000')).toBe('250.00');
    expect(vatOf(EUV, '1000', '300')).toBe('300.00');
    expect(vatOf(K0, '500')).toBe('0.00');
    expect(vatOf(LEGACY_EXPENSE_TREATMENT, '200', '0')).toBe('0.00');
  });

  it("takes a received document's VAT as stated: more than the rate's share warns, never refuses", () => {
    // A 25 % line of 1461.12 (VAT 365.28) beside a zero-rated line of -800.00: 1026.40 in all, whose 25 % share is 205.28.
    const warnings: string[] = [];
    expect(expenseVat(K25, d('1026.40'), d('365.28'), (w) => warnings.push(w)).toFixed(2)).toBe('365.28');
    expect(warnings).toEqual([expect.stringMatching(/^vat_amount: 365\.28 is more than the 25 % VAT \(code K25\)/)]);
    expect(expenseVat(K25, d('-1026.40'), d('-365.28'), () => {}).toFixed(2)).toBe('-365.28');
    // Without the document's word for it, the cap refuses as ever.
    expect(vatOf(K25, '1026.40', '365.28')).toMatch(/^\[vat_amount\] vat_amount: 365\.28 is more than/);
  });

  it('gives a credit note the VAT of the bill of its size, negative: 0.005 rounds away from zero both ways', () => {
    expect(vatOf(K25, '-1250')).toBe('-250.00');
    // 0.13 × 25 / 125 = 0.026 -> 0.03; and 0.10 × 25 / 125 = 0.02 exactly. 0.03 at 25 % on top: 0.0075 -> 0.01.
    expect([vatOf(K25, '0.13'), vatOf(K25, '-0.13')]).toEqual(['0.03', '-0.03']);
    expect([vatOf(EUV, '0.03'), vatOf(EUV, '-0.03')]).toEqual(['0.01', '-0.01']);
    expect(vatOf(EUV, '-1000')).toBe('-250.00');
    expect(vatOf(EUV, '-1000', '-300')).toBe('-300.00');
    expect(vatOf(K25, '-1250', '-100')).toBe('-100.00');
  });

  it('bounds a credit note in size as the bill: -25.00 in -125.00 is the most, -25.01 is refused naming vat_amount', () => {
    expect(vatOf(K25, '-125', '-25')).toBe('-25.00');
    expect(vatOf(K25, '-125', '-25.01')).toBe(
      '[vat_amount] vat_amount: -25.01 is more in size than the 25 % VAT (code K25) an amount of -125.00 including VAT can contain (-25.00).',
    );
    expect(vatOf(LEGACY_EXPENSE_TREATMENT, '-125', '-25.01')).toMatch(/^\[vat_amount\] /);
  });

  it('answers an unsigned zero, never -0, for a credit note without VAT', () => {
    expect(vatOf(K0, '-500')).toBe('0.00');
    expect(vatOf(K25, '-1250', '0')).toBe('0.00');
    expect(vatOf(LEGACY_EXPENSE_TREATMENT, '-200', '0')).toBe('0.00');
  });

  it('refuses an amount of 0, naming amount, under a code and without one', () => {
    for (const t of [K25, EUV, K0, LEGACY_EXPENSE_TREATMENT]) expect(vatOf(t, '0')).toMatch(/^\[amount\] amount: must not be 0/);
  });

  it('refuses VAT of the other sign than the amount, naming vat_amount', () => {
    expect(vatOf(K25, '-1250', '250')).toMatch(/^\[vat_amount\] vat_amount: 250\.00 has the other sign than amount -1250\.00/);
    expect(vatOf(K25, '1250', '-250')).toMatch(/^\[vat_amount\] vat_amount: -250\.00 has the other sign than amount 1250\.00/);
    expect(vatOf(EUV, '-1000', '250')).toMatch(/^\[vat_amount\] .*other sign/);
    expect(vatOf(LEGACY_EXPENSE_TREATMENT, '-1250', '250')).toMatch(/^\[vat_amount\] .*other sign/);
  });
});

describe('bookingLines', () => {
  it('books a bill: cost and VAT debited, payables credited last', () => {
    expect(sides(book(K25, '1250', '250'))).toEqual([
      ['cost', '1000.00', '0.00', 'K25'],
      ['vat', '250.00', '0.00', 'K25'],
      ['payables', '0.00', '1250.00', ''],
    ]);
  });

  it('books a credit note as the mirror of the bill of its size, payables still last, no negative amount', () => {
    for (const [t, amount, vat, deductible] of [
      [K25, '1250', '250', undefined],
      [KREP, '625', '125', undefined],
      [EUV, '1000', '250', '40'],
      [undefined, '200', '0', undefined],
    ] as const) {
      const bill = book(t, amount, vat, deductible);
      const credit = book(t, `-${amount}`, vat === '0' ? '0' : `-${vat}`, deductible);
      expect(sides(credit)).toEqual(sides(bill).map(([account, debit, credit, code]) => [account, credit, debit, code]));
      expect(credit.at(-1)!.accountId).toBe('payables');
      expect(credit.every((l) => !l.debit.isNegative() && !l.credit.isNegative())).toBe(true);
    }
    // Repræsentation: 25 % of -125.00 is -31.25 deducted, the -93.75 not deducted stays a cost of its own.
    expect(sides(book(KREP, '-625', '-125'))).toEqual([
      ['cost', '0.00', '500.00', 'KREP'],
      ['vat', '0.00', '31.25', 'KREP'],
      ['cost', '0.00', '93.75', ''],
      ['payables', '625.00', '0.00', ''],
    ]);
  });
});

describe('an expense with lines (decision 683): one journal line per account and VAT code', () => {
  const rows = (lines: PostingLine[]) => lines.map((l) => [l.accountId, l.debit.toFixed(2), l.credit.toFixed(2), l.vatCode]);
  const codes = new Map([
    ['K25', K25],
    ['K0', K0],
    ['EUV', EUV],
  ]);
  const line = (accountId: string, code: string, net: string, vat: string) => ({ accountId, code, net: d(net), vat: d(vat) });

  it('sums each account and code, posts the VAT per code and credits payables with the amount', () => {
    const lines = [
      line('2810', 'K25', '4000', '1000'),
      line('1610', 'K25', '900', '225'),
      line('2810', 'K25', '200', '50'),
      line('2810', 'K25', '-200', '-50'),
      line('1610', 'K0', '1000', '0'),
    ];
    expect(rows(linesBookingLines({ payableAccountId: '7440', amount: d('7125'), text: 'x' }, lines, codes))).toEqual([
      ['2810', '4000.00', '0.00', 'K25'],
      ['1610', '900.00', '0.00', 'K25'],
      ['1610', '1000.00', '0.00', 'K0'],
      ['vat', '1225.00', '0.00', 'K25'],
      ['7440', '0.00', '7125.00', ''],
    ]);
  });

  it('posts a group that sums negative on the other side (a credit note), and a reverse charge both ways without it in the amount', () => {
    expect(rows(linesBookingLines({ payableAccountId: '7440', amount: d('-125'), text: 'x' }, [line('2810', 'K25', '-100', '-25')], codes))).toEqual([
      ['2810', '0.00', '100.00', 'K25'],
      ['vat', '0.00', '25.00', 'K25'],
      ['7440', '125.00', '0.00', ''],
    ]);
    expect(rows(linesBookingLines({ payableAccountId: '7440', amount: d('400'), text: 'x' }, [line('2810', 'EUV', '400', '100')], codes))).toEqual([
      ['2810', '400.00', '0.00', 'EUV'],
      ['vat', '0.00', '100.00', 'EUV'],
      ['offset', '100.00', '0.00', 'EUV'],
      ['7440', '0.00', '400.00', ''],
    ]);
  });

  it('posts the VAT that is not deductible as a cost without a code, and refuses lines that do not add up to the amount', () => {
    expect(rows(linesBookingLines({ payableAccountId: '7440', amount: d('125'), text: 'x' }, [line('2810', 'K25', '100', '25')], codes, d('0')))).toEqual([
      ['2810', '100.00', '0.00', 'K25'],
      ['2810', '25.00', '0.00', ''],
      ['7440', '0.00', '125.00', ''],
    ]);
    expect(() => linesBookingLines({ payableAccountId: '7440', amount: d('126'), text: 'x' }, [line('2810', 'K25', '100', '25')], codes)).toThrow(/off by/);
  });

  it("settles the lines' VAT to the expense's: shares kept, the rest over the lines without one, else over the expense's code", () => {
    const text = (xs: Decimal[]) => xs.map((x) => x.toFixed(2));
    const l = (net: string, vat: string | null, code = 'K25') => ({ net_amount: d(net), vat_amount: vat === null ? null : d(vat), vat_code: code });
    expect(text(settleLineVat([l('100', '25'), l('50', '12.50')], d('37.50'), 'K25'))).toEqual(['25.00', '12.50']);
    expect(text(settleLineVat([l('300', null, 'EUV'), l('100', '0', 'K0')], d('75'), 'EUV'))).toEqual(['75.00', '0.00']);
    expect(text(settleLineVat([l('100', '25'), l('100', '0', 'K0')], d('25.01'), 'K25'))).toEqual(['25.01', '0.00']);
  });
});
