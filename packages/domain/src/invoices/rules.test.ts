// The invoice rules, pure: the transition table (decision 92), the arithmetic of an invoice (decisions
// 37 to 39, 83) and the approval posting (decision 94). Expected values are written out by hand, so a
// change to any rule fails the test that names it.
import { describe, expect, it } from 'vitest';
import { DomainError } from '../errors.ts';
import { assertPostable, type PostingLine } from '../ledger/rules.ts';
import { Decimal, MAX_AMOUNT } from '../money.ts';
import {
  approvalPosting,
  assertTransition,
  INVOICE_STATUSES,
  invoiceTotals,
  lineAmount,
  OPEN_STATUSES,
  TRANSITIONS,
  type InvoiceStatus,
  type InvoiceTotals,
} from './rules.ts';

const d = (v: string | number) => new Decimal(v);
const fx = (x: Decimal) => x.toFixed(2);

/** The DomainError `run` throws, or undefined when it returns. */
function thrown(run: () => unknown): DomainError | undefined {
  try {
    run();
    return undefined;
  } catch (e) {
    if (e instanceof DomainError) return e;
    throw e;
  }
}
const refusal = (from: InvoiceStatus, to: InvoiceStatus) => thrown(() => assertTransition(from, to));

const codeOf = (rate: string) => (d(rate).isZero() ? 'S0' : `S${d(rate).toFixed(0)}`);
const line = (quantity: string, unitPrice: string, vatRate = '25') => ({
  quantity: d(quantity),
  unitPrice: d(unitPrice),
  vatRate: d(vatRate),
  vatCode: codeOf(vatRate),
});
/** The error invoiceTotals refuses these lines with. */
const totalsRefusal = (...lines: ReturnType<typeof line>[]) => thrown(() => invoiceTotals(lines));
/** An invoice's figures, compactly: the line amounts, then subtotal + VAT = total, then each rate group. */
const amounts = (t: InvoiceTotals) => t.amounts.map(fx);
const sums = (t: InvoiceTotals) => `${fx(t.subtotal)} + ${fx(t.vat)} = ${fx(t.total)}`;
const groups = (t: InvoiceTotals) => t.byRate.map((g) => `${g.rate.toString()} % of ${fx(g.net)} = ${fx(g.vat)}`);

describe('the transition table (decision 92)', () => {
  // Decision 92 as docs/decisions.md and the OpenAPI description print it, independently of TRANSITIONS.
  const DECISION_92 =
    'draft → approved; approved → sent, paid, overdue, cancelled; sent → paid, overdue, cancelled; overdue → paid, cancelled; ' +
    'paid → (final); cancelled → (final)';
  const ALLOWED = Object.fromEntries(
    DECISION_92.split('; ').map((entry) => {
      const [from, next] = entry.split(' → ') as [InvoiceStatus, string];
      return [from, next === '(final)' ? [] : next.split(', ')];
    }),
  ) as Record<InvoiceStatus, InvoiceStatus[]>;

  it('has the six contract states', () => {
    expect([...INVOICE_STATUSES]).toEqual(['draft', 'approved', 'sent', 'paid', 'overdue', 'cancelled']);
    expect(Object.keys(ALLOWED).sort()).toEqual([...INVOICE_STATUSES].sort());
  });

  const moves = INVOICE_STATUSES.flatMap((from) => INVOICE_STATUSES.filter((to) => to !== from).map((to) => [from, to] as const));
  const allowedMoves = moves.filter(([from, to]) => ALLOWED[from].includes(to));
  const refusedMoves = moves.filter(([from, to]) => !ALLOWED[from].includes(to));

  it.each(allowedMoves)('allows %s -> %s', (from, to) => {
    expect(refusal(from, to)).toBeUndefined();
  });

  it.each(refusedMoves)('refuses %s -> %s with 409 invalid_transition naming the allowed statuses', (from, to) => {
    const e = refusal(from, to);
    expect(e).toMatchObject({ code: 'invalid_transition', status: 409, field: 'status' });
    expect(e!.extensions).toEqual({ current_status: from, allowed_statuses: ALLOWED[from] });
    expect(e!.message).toBe(
      `An invoice that is ${from} cannot become ${to}; ${ALLOWED[from].length ? `allowed next: ${ALLOWED[from].join(', ')}` : `${from} is final`}.`,
    );
  });

  it('counts every move: 10 allowed, 20 refused', () => {
    expect(allowedMoves).toHaveLength(10);
    expect(refusedMoves).toHaveLength(20);
    expect(TRANSITIONS).toEqual(ALLOWED);
  });

  it('paid and cancelled are final; nothing leads back to draft; overdue never becomes sent again', () => {
    expect(refusal('paid', 'cancelled')?.extensions.allowed_statuses).toEqual([]);
    expect(refusal('cancelled', 'paid')?.message).toMatch(/cancelled is final\.$/);
    for (const from of INVOICE_STATUSES) expect(refusal(from, 'draft'), from).toBeInstanceOf(DomainError);
    expect(refusal('overdue', 'sent')).toBeInstanceOf(DomainError);
    // A draft is deleted, never cancelled (it has no number).
    expect(refusal('draft', 'cancelled')).toBeInstanceOf(DomainError);
  });

  it('staying in a status is not a move of the table (the caller treats it as a no-op)', () => {
    for (const s of INVOICE_STATUSES) expect(refusal(s, s), s).toBeInstanceOf(DomainError);
  });

  it('the open statuses are exactly those a payment can settle', () => {
    expect([...OPEN_STATUSES].sort()).toEqual(INVOICE_STATUSES.filter((s) => ALLOWED[s].includes('paid')).sort());
  });
});

describe('invoiceTotals: line amounts, VAT per rate group, totals', () => {
  it('rounds each line half up to øre once: 0.5 × 33.33 = 16.665 -> 16.67, 1.5 × 0.05 = 0.075 -> 0.08', () => {
    expect(amounts(invoiceTotals([line('0.5', '33.33'), line('1.5', '0.05')]))).toEqual(['16.67', '0.08']);
  });

  it('rounds a negative half away from zero: 1.5 × -0.05 = -0.075 -> -0.08', () => {
    expect(amounts(invoiceTotals([line('1.5', '-0.05'), line('1', '1')]))).toEqual(['-0.08', '1.00']);
  });

  it('sums the rounded line amounts: two lines of 0.5 × 0.01 make 0.02, not round(0.01) = 0.01', () => {
    const t = invoiceTotals([line('0.5', '0.01', '0'), line('0.5', '0.01', '0')]);
    expect([amounts(t), sums(t)]).toEqual([['0.01', '0.01'], '0.02 + 0.00 = 0.02']);
  });

  it('computes VAT once per rate group on its sum, rounded half up: 3 × 33.33 at 25 % gives 25.00, not 3 × 8.33', () => {
    const t = invoiceTotals([line('1', '33.33'), line('1', '33.33'), line('1', '33.33')]);
    expect([sums(t), groups(t)]).toEqual(['99.99 + 25.00 = 124.99', ['25 % of 99.99 = 25.00']]);
  });

  it('rounds a group VAT of exactly half an øre up: 0.02 at 25 % = 0.005 -> 0.01', () => {
    expect(sums(invoiceTotals([line('1', '0.02')]))).toBe('0.02 + 0.01 = 0.03');
  });

  it('keeps mixed rates apart, highest rate first; 25 and 25.00 are one group', () => {
    const t = invoiceTotals([line('1', '10.10', '0'), line('2', '40.00', '25'), line('1', '0.02', '25.00'), line('3', '1.00', '0')]);
    expect(amounts(t)).toEqual(['10.10', '80.00', '0.02', '3.00']);
    // 80.02 × 25 % = 20.005 -> 20.01
    expect([sums(t), groups(t)]).toEqual(['93.12 + 20.01 = 113.13', ['25 % of 80.02 = 20.01', '0 % of 13.10 = 0.00']]);
  });

  it('takes negative discount lines into their group: 200 - 50 at 25 % is VAT 37.50', () => {
    const t = invoiceTotals([line('1', '200'), line('1', '-50')]);
    expect([amounts(t), sums(t), groups(t)]).toEqual([['200.00', '-50.00'], '150.00 + 37.50 = 187.50', ['25 % of 150.00 = 37.50']]);
  });

  it('lets a discount outweigh its group: the group net and its VAT go negative, rounded symmetrically', () => {
    const t = invoiceTotals([line('1', '100'), line('1', '-150.02'), line('1', '80', '0')]);
    // -50.02 × 25 % = -12.505 -> -12.51 (half away from zero)
    expect([sums(t), groups(t)]).toEqual(['29.98 + -12.51 = 17.47', ['25 % of -50.02 = -12.51', '0 % of 80.00 = 0.00']]);
  });

  describe('refuses amounts beyond the largest amount (decision 83)', () => {
    const max = MAX_AMOUNT.toFixed(2);

    it('accepts a line and a total of exactly 999999999999999.99, either sign', () => {
      expect(sums(invoiceTotals([line('1', max, '0')]))).toBe(`${max} + 0.00 = ${max}`);
      expect(sums(invoiceTotals([line('1', `-${max}`, '0')]))).toBe(`-${max} + 0.00 = -${max}`);
    });

    it('refuses a line amount over it, naming the line by its index', () => {
      const e = totalsRefusal(line('1', '1', '0'), line('1.0001', max, '0'));
      expect(e).toMatchObject({ code: 'invalid_request', status: 400, field: 'lines[1]', message: `The line amount 1000099999999999.99 exceeds ${max}.` });
      // Negative lines are measured by their size.
      expect(totalsRefusal(line('-1.0001', max, '0'))?.field).toBe('lines[0]');
    });

    it('refuses a total that VAT carries over it', () => {
      const e = totalsRefusal(line('1', '900000000000000.00'));
      expect(e).toMatchObject({ code: 'invalid_request', field: 'lines', message: `The invoice total 1125000000000000.00 exceeds ${max}.` });
    });

    it('refuses a subtotal over it even when negative VAT brings the total back under', () => {
      // subtotal 1000000000000000.03, VAT -0.24: total 999999999999999.79
      const e = totalsRefusal(line('1', max, '0'), line('1', '1.00', '0'), line('1', '-0.96'));
      expect(e).toMatchObject({ code: 'invalid_request', field: 'lines', message: `The invoice subtotal 1000000000000000.03 exceeds ${max}.` });
    });
  });
});

describe('approvalPosting (decision 94)', () => {
  const sale = (code: string, rate: string) =>
    ({ code, kind: d(rate).isZero() ? 'exempt_sale' : 'output', rate: d(rate), accountId: '7680', offsetAccountId: null, deductiblePercent: d(100) }) as const;
  const codes = new Map(['25', '10', '0'].map((r) => [codeOf(r), sale(codeOf(r), r)]));
  const text = 'Faktura 17';
  /** The posting of lines given as "account quantity × price @ rate", with the totals computed from them. */
  function post(...lines: string[]): PostingLine[] {
    const parsed = lines.map((l) => /^(\S+) (\S+) × (\S+) @ (\S+)$/.exec(l)!.slice(1) as [string, string, string, string]);
    const totals = invoiceTotals(parsed.map(([, q, p, r]) => line(q, p, r)));
    return approvalPosting(
      parsed.map(([accountId, , , r], i) => ({ accountId, amount: totals.amounts[i]!, vatCode: codeOf(r) })),
      totals,
      '6190',
      codes,
      text,
    );
  }
  /** Each posted line as "D|C account amount code": D for a debit, C for a credit. */
  const shape = (lines: PostingLine[]) =>
    lines.map((l) => [l.debit.isZero() ? `C ${l.accountId} ${fx(l.credit)}` : `D ${l.accountId} ${fx(l.debit)}`, l.vatCode].filter(Boolean).join(' '));

  it('debits receivables with the total, credits revenue per account and rate and output VAT per rate, and balances', () => {
    const posting = post('1010 1 × 100.00 @ 25', '1010 2 × 50.00 @ 25', '1010 1 × 30.00 @ 0', '1020 1 × 20.00 @ 25');
    // 25 % of 220.00 = 55.00; the exempt group's VAT is 0 and makes no line.
    expect(shape(posting)).toEqual(['D 6190 305.00', 'C 1010 200.00 S25', 'C 1010 30.00 S0', 'C 1020 20.00 S25', 'C 7680 55.00 S25']);
    expect(posting.every((l) => l.description === text)).toBe(true);
    const { debit, credit } = assertPostable(posting);
    expect([fx(debit), fx(credit)]).toEqual(['305.00', '305.00']);
  });

  it('groups 25 and 25.00 on one account as one code', () => {
    expect(shape(post('1010 1 × 10.00 @ 25', '1010 1 × 5.00 @ 25.00'))).toEqual(['D 6190 18.75', 'C 1010 15.00 S25', 'C 7680 3.75 S25']);
  });

  it('puts a group whose discounts outweigh it on the debit side, so every posted amount is positive', () => {
    const posting = post('1010 1 × 500.00 @ 25', '1020 1 × -100.00 @ 25', '1010 1 × 10.00 @ 0');
    expect(shape(posting)).toEqual(['D 6190 510.00', 'C 1010 500.00 S25', 'D 1020 100.00 S25', 'C 1010 10.00 S0', 'C 7680 100.00 S25']);
    expect(posting.every((l) => !l.debit.isNegative() && !l.credit.isNegative() && l.debit.isZero() !== l.credit.isZero())).toBe(true);
    assertPostable(posting);
  });

  it('mirrors an invoice whose total is negative: receivables credited, revenue and VAT debited', () => {
    // -80.02 × 25 % = -20.005 -> -20.01
    const posting = post('1010 1 × -80.00 @ 25', '1010 1 × -0.02 @ 25');
    expect(shape(posting)).toEqual(['C 6190 100.03', 'D 1010 80.02 S25', 'D 7680 20.01 S25']);
    assertPostable(posting);
  });

  it('credits output VAT once per rate, each with the code of its rate', () => {
    // The invoice API takes 25 and 0 only (decision 95); the posting is per rate whatever the rates are.
    const posting = post('1010 1 × 100.00 @ 25', '1010 1 × 100.00 @ 10', '1020 1 × 50.00 @ 10');
    expect(shape(posting)).toEqual(['D 6190 290.00', 'C 1010 100.00 S25', 'C 1010 100.00 S10', 'C 1020 50.00 S10', 'C 7680 25.00 S25', 'C 7680 15.00 S10']);
    assertPostable(posting);
  });

  it('leaves out a group that nets to zero', () => {
    const posting = post('1010 1 × 40.00 @ 25', '1020 1 × 25.00 @ 0', '1020 1 × -25.00 @ 0');
    expect(shape(posting)).toEqual(['D 6190 50.00', 'C 1010 40.00 S25', 'C 7680 10.00 S25']);
  });
});

describe('lineAmount: a discount on the line', () => {
  it('takes the percent of the rounded amount, itself rounded half up to øre, off it', () => {
    const d = (v: string) => new Decimal(v);
    expect(lineAmount({ quantity: d('7.5'), unitPrice: d('850'), discountPercent: d('10') }).toFixed(2)).toBe('5737.50');
    // 1.65 less 50 % (0.825 → 0.83) = 0.82; a credit line mirrors it.
    expect(lineAmount({ quantity: d('3'), unitPrice: d('0.55'), discountPercent: d('50') }).toFixed(2)).toBe('0.82');
    expect(lineAmount({ quantity: d('-3'), unitPrice: d('0.55'), discountPercent: d('50') }).toFixed(2)).toBe('-0.82');
    expect(lineAmount({ quantity: d('3'), unitPrice: d('19.96') }).toFixed(2)).toBe('59.88');
    expect(lineAmount({ quantity: d('3'), unitPrice: d('19.96'), discountPercent: d('0') }).toFixed(2)).toBe('59.88');
  });
});
