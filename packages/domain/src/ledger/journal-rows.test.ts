import { describe, expect, it } from 'vitest';
import { Decimal } from '../money.ts';
import type { DomainError } from '../errors.ts';
import { checkPosting, JournalRows, MAX_POSTING_LINES, preparePosting, type Posting } from './journal-rows.ts';
import type { PostingLine } from './rules.ts';

const line = (accountId: string, debit: string, credit: string, vatCode = '', foreign?: PostingLine['foreign']): PostingLine => ({
  accountId,
  debit: new Decimal(debit),
  credit: new Decimal(credit),
  description: '',
  vatCode,
  foreign,
});
const posting = (date: string, lines: PostingLine[], documentNumber?: bigint): Posting => ({ date, description: 'x', source: 'manual', lines, documentNumber });
// Account ids named by their numbers: 7680 (salgsmoms) is a VAT account, whose coded lines are no base.
const numberOf = (id: string) => id;

const refusal = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return [(e as DomainError).code, (e as DomainError).field];
  }
  return undefined;
};

describe('checkPosting: the posting rules a single posting and a batch share', () => {
  it('refuses an unbalanced posting and a foreign line whose DKK amount is not amount × rate, naming the line', () => {
    expect(refusal(() => checkPosting(posting('2026-03-01', [line('1010', '10', '0'), line('6470', '0', '9.99')])))).toEqual([
      'unbalanced_transaction',
      'lines',
    ]);
    const eur = { currency: 'EUR', amount: new Decimal('100'), rate: new Decimal('7.4612') };
    expect(refusal(() => checkPosting(posting('2026-03-01', [line('6190', '746.13', '0', '', eur), line('1010', '0', '746.13')])))).toEqual([
      'invalid_request',
      'lines[0].debit',
    ]);
    expect(refusal(() => checkPosting(posting('2026-03-01', [line('6190', '746.12', '0', '', eur), line('1010', '0', '746.12')])))).toBeUndefined();
  });

  it(`refuses more than ${MAX_POSTING_LINES} lines (line_number is a smallint)`, () => {
    const many = Array.from({ length: MAX_POSTING_LINES + 1 }, (_, i) => (i % 2 ? line('1010', '0', '1') : line('6470', '1', '0')));
    expect(refusal(() => checkPosting(posting('2026-03-01', many)))).toEqual(['invalid_request', 'lines']);
  });
});

describe('JournalRows: the columns of one statement for many postings', () => {
  const rows = new JournalRows();
  const first = preparePosting(
    posting('2026-03-05', [line('2030', '100', '0', 'EUV'), line('7700', '0', '25', 'EUV'), line('7740', '25', '0'), line('6470', '0', '100')]),
  );
  const second = preparePosting(posting('2026-03-05', [line('6470', '250', '0'), line('1010', '0', '200', 'S25'), line('7680', '0', '50', 'S25')], 17n));
  const third = preparePosting(posting('2026-02-28', [line('2030', '10', '0', 'EUV'), line('6470', '0', '10')]));
  for (const p of [first, second, third]) rows.add(p, numberOf);

  it('keeps every transaction and line in the order added, with the ids prepared', () => {
    expect(rows.count).toBe(3);
    expect(rows.transactions.id).toEqual([first.id, second.id, third.id]);
    expect(rows.lines.transactionId).toEqual([...Array(4).fill(first.id), ...Array(3).fill(second.id), ...Array(2).fill(third.id)]);
    expect(rows.lines.id).toEqual([...first.lineIds, ...second.lineIds, ...third.lineIds]);
    expect(rows.lines.lineNumber).toEqual([1, 2, 3, 4, 1, 2, 3, 1, 2]);
    expect(rows.lines.debit.slice(0, 2)).toEqual(['100.00', '0.00']);
    expect(rows.minDate).toBe('2026-02-28');
  });

  it('draws a document number for each posting without one, in order, and none for a posting under an existing number', () => {
    expect(rows.draws).toBe(2);
    expect(rows.transactions.draw).toEqual([1, 0, 2]);
    expect(rows.transactions.documentNumber).toEqual([null, '17', null]);
  });

  it('sums the balances per date and account, each key once', () => {
    const d = rows.dailyColumns();
    const byKey = Object.fromEntries(d.date.map((date, i) => [`${date} ${d.accountId[i]}`, [d.debit[i], d.credit[i]]]));
    expect(byKey['2026-03-05 6470']).toEqual(['250.00', '100.00']);
    expect(byKey['2026-02-28 6470']).toEqual(['0.00', '10.00']);
    // And how many lines each (date, account) holds: the general ledger's count of a period.
    const lines = Object.fromEntries(d.date.map((date, i) => [`${date} ${d.accountId[i]}`, d.lines[i]]));
    expect(lines).toMatchObject({ '2026-03-05 6470': 2, '2026-03-05 2030': 1, '2026-02-28 6470': 1 });
    expect(d.date).toHaveLength(new Set(d.date.map((date, i) => `${date} ${d.accountId[i]}`)).size);
  });

  it('sums the VAT bases per month and code from the coded lines off the VAT accounts (totalsByVatBase)', () => {
    const v = rows.vatBaseColumns();
    const byKey = Object.fromEntries(v.month.map((m, i) => [`${m} ${v.vatCode[i]}`, [v.debit[i], v.credit[i]]]));
    // EUV's VAT on 7700 and S25's on 7680 are no base; the bases are the purchase (2030) and the sale (1010).
    expect(byKey).toEqual({ '2026-03-01 EUV': ['100.00', '0.00'], '2026-03-01 S25': ['0.00', '200.00'], '2026-02-01 EUV': ['10.00', '0.00'] });
  });
});
