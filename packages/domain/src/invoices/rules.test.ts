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
  OPEN_STATUSES,
  salesVatCode,
  TRANSITIONS,
  type InvoiceStatus,
  type InvoiceTotals,
} from './rules.ts';

const d = (v: string | number) => new Decimal(v);
const fx = (x: Decimal) => x.toFixed(2);

/** What assertTransition threw, or undefined when it let the move through. */
function refusal(from: InvoiceStatus, to: InvoiceStatus): DomainError | undefined {
  try {
    assertTransition(from, to);
    return undefined;
  } catch (e) {
    if (e instanceof DomainError) return e;
    throw e;
  }
}

/** The error an invoice with these lines is refused with. */
function totalsRefusal(lines: { quantity: string; unitPrice: string; vatRate: string }[]): DomainError {
  try {
    invoiceTotals(lines.map((l) => ({ quantity: d(l.quantity), unitPrice: d(l.unitPrice), vatRate: d(l.vatRate) })));
  } catch (e) {
    if (e instanceof DomainError) return e;
    throw e;
  }
  throw new Error('invoiceTotals accepted the lines');
}

const line = (quantity: string, unitPrice: string, vatRate = '25') => ({ quantity: d(quantity), unitPrice: d(unitPrice), vatRate: d(vatRate) });
const totalsOf = (t: InvoiceTotals) => ({
  amounts: t.amounts.map(fx),
  subtotal: fx(t.subtotal),
  vat: fx(t.vat),
  total: fx(t.total),
  byRate: t.byRate.map((g) => [g.rate.toString(), fx(g.net), fx(g.vat)]),
});

describe('the transition table (decision 92)', () => {
  // Written out from decision 92, independently of TRANSITIONS.
  const ALLOWED: Record<InvoiceStatus, InvoiceStatus[]> = {
    draft: ['approved'],
    approved: ['sent', 'paid', 'overdue', 'cancelled'],
    sent: ['paid', 'overdue', 'cancelled'],
    overdue: ['paid', 'cancelled'],
    paid: [],
    cancelled: [],
  };

  it('has the six contract states', () => {
    expect([...INVOICE_STATUSES]).toEqual(['draft', 'approved', 'sent', 'paid', 'overdue', 'cancelled']);
  });

  const moves = INVOICE_STATUSES.flatMap((from) => INVOICE_STATUSES.filter((to) => to !== from).map((to) => [from, to] as const));
  const allowedMoves = moves.filter(([from, to]) => ALLOWED[from].includes(to));
  const refusedMoves = moves.filter(([from, to]) => !ALLOWED[from].includes(to));

  it.each(allowedMoves)('allows %s -> %s', (from, to) => {
    expect(refusal(from, to)).toBeUndefined();
  });

  it.each(refusedMoves)('refuses %s -> %s with 409 invalid_transition naming the allowed statuses', (from, to) => {
    const e = refusal(from, to);
    expect(e).toBeInstanceOf(DomainError);
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
    expect(totalsOf(invoiceTotals([line('0.5', '33.33'), line('1.5', '0.05')])).amounts).toEqual(['16.67', '0.08']);
  });

  it('rounds a negative half away from zero: 1.5 × -0.05 = -0.075 -> -0.08', () => {
    expect(totalsOf(invoiceTotals([line('1.5', '-0.05'), line('1', '1')])).amounts).toEqual(['-0.08', '1.00']);
  });

  it('sums the rounded line amounts: two lines of 0.5 × 0.01 make 0.02, not round(0.01) = 0.01', () => {
    const t = invoiceTotals([line('0.5', '0.01', '0'), line('0.5', '0.01', '0')]);
    expect(totalsOf(t)).toMatchObject({ amounts: ['0.01', '0.01'], subtotal: '0.02', vat: '0.00', total: '0.02' });
  });

  it('computes VAT once per rate group on its sum, rounded half up: 3 × 33.33 at 25 % gives 25.00, not 3 × 8.33', () => {
    const t = invoiceTotals([line('1', '33.33'), line('1', '33.33'), line('1', '33.33')]);
    expect(totalsOf(t)).toEqual({ amounts: ['33.33', '33.33', '33.33'], subtotal: '99.99', vat: '25.00', total: '124.99', byRate: [['25', '99.99', '25.00']] });
  });

  it('rounds a group VAT of exactly half an øre up: 0.02 at 25 % = 0.005 -> 0.01', () => {
    expect(totalsOf(invoiceTotals([line('1', '0.02')])).vat).toBe('0.01');
  });

  it('keeps mixed rates apart, highest rate first; 25 and 25.00 are one group', () => {
    const t = invoiceTotals([line('1', '10.10', '0'), line('2', '40.00', '25'), line('1', '0.02', '25.00'), line('3', '1.00', '0')]);
    expect(totalsOf(t)).toEqual({
      amounts: ['10.10', '80.00', '0.02', '3.00'],
      subtotal: '93.12',
      vat: '20.01',
      total: '113.13',
      byRate: [
        ['25', '80.02', '20.01'],
        ['0', '13.10', '0.00'],
      ],
    });
  });

  it('takes negative discount lines into their group: 200 - 50 at 25 % is VAT 37.50', () => {
    const t = invoiceTotals([line('1', '200'), line('1', '-50')]);
    expect(totalsOf(t)).toEqual({ amounts: ['200.00', '-50.00'], subtotal: '150.00', vat: '37.50', total: '187.50', byRate: [['25', '150.00', '37.50']] });
  });

  it('lets a discount outweigh its group: the group net and its VAT go negative, rounded symmetrically', () => {
    const t = invoiceTotals([line('1', '100'), line('1', '-150.02'), line('1', '80', '0')]);
    expect(totalsOf(t)).toEqual({
      amounts: ['100.00', '-150.02', '80.00'],
      subtotal: '29.98',
      // -50.02 × 25 % = -12.505 -> -12.51 (half away from zero)
      vat: '-12.51',
      total: '17.47',
      byRate: [
        ['25', '-50.02', '-12.51'],
        ['0', '80.00', '0.00'],
      ],
    });
  });

  describe('refuses amounts beyond the largest amount (decision 83)', () => {
    const max = MAX_AMOUNT.toFixed(2);

    it('accepts a line and a total of exactly 999999999999999.99', () => {
      expect(fx(invoiceTotals([line('1', max, '0')]).total)).toBe(max);
      expect(fx(invoiceTotals([line('1', `-${max}`, '0')]).total)).toBe(`-${max}`);
    });

    it('refuses a line amount over it, naming the line by its index', () => {
      const e = totalsRefusal([
        { quantity: '1', unitPrice: '1', vatRate: '0' },
        { quantity: '1.0001', unitPrice: max, vatRate: '0' },
      ]);
      expect(e).toMatchObject({ code: 'invalid_request', status: 400, field: 'lines[1]' });
      expect(e.message).toBe(`The line amount 1000099999999999.99 exceeds ${max}.`);
      // Negative lines are measured by their size.
      expect(totalsRefusal([{ quantity: '-1.0001', unitPrice: max, vatRate: '0' }]).field).toBe('lines[0]');
    });

    it('refuses a total that VAT carries over it', () => {
      const e = totalsRefusal([{ quantity: '1', unitPrice: '900000000000000.00', vatRate: '25' }]);
      expect(e).toMatchObject({ code: 'invalid_request', field: 'lines' });
      expect(e.message).toBe(`The invoice total 1125000000000000.00 exceeds ${max}.`);
    });

    it('refuses a subtotal over it even when negative VAT brings the total back under', () => {
      const e = totalsRefusal([
        { quantity: '1', unitPrice: max, vatRate: '0' },
        { quantity: '1', unitPrice: '1.00', vatRate: '0' },
        { quantity: '1', unitPrice: '-0.96', vatRate: '25' },
      ]);
      // subtotal 1000000000000000.03, VAT -0.24: total 999999999999999.79
      expect(e).toMatchObject({ code: 'invalid_request', field: 'lines' });
      expect(e.message).toBe(`The invoice subtotal 1000000000000000.03 exceeds ${max}.`);
    });
  });
});

describe('salesVatCode', () => {
  it('names the sales VAT code of a rate: S25 for 25 %, S0 for exempt', () => {
    expect(salesVatCode(d(25))).toBe('S25');
    expect(salesVatCode(d('25.00'))).toBe('S25');
    expect(salesVatCode(d(0))).toBe('S0');
    expect(salesVatCode(d('0.00'))).toBe('S0');
  });
});

describe('approvalPosting (decision 94)', () => {
  const accounts = { receivable: 'acc-6190', outputVat: 'acc-7680' };
  const text = 'Faktura 17';
  /** The posting of lines given as [account, quantity, unit price, rate], with the totals computed from them. */
  function post(...lines: [string, string, string, string][]): PostingLine[] {
    const totals = invoiceTotals(lines.map(([, q, p, r]) => line(q, p, r)));
    return approvalPosting(
      lines.map(([accountId, , , r], i) => ({ accountId, amount: totals.amounts[i]!, vatRate: d(r) })),
      totals,
      accounts,
      text,
    );
  }
  const shape = (lines: PostingLine[]) => lines.map((l) => [l.accountId, fx(l.debit), fx(l.credit), l.vatCode]);

  it('debits receivables with the total, credits revenue per account and rate and output VAT per rate, and balances', () => {
    const posting = post(
      ['acc-1010', '1', '100.00', '25'],
      ['acc-1010', '2', '50.00', '25'],
      ['acc-1010', '1', '30.00', '0'],
      ['acc-1020', '1', '20.00', '25'],
    );
    expect(shape(posting)).toEqual([
      ['acc-6190', '305.00', '0.00', ''],
      ['acc-1010', '0.00', '200.00', 'S25'],
      ['acc-1010', '0.00', '30.00', 'S0'],
      ['acc-1020', '0.00', '20.00', 'S25'],
      // 25 % of 220.00; the exempt group's VAT is 0 and makes no line.
      ['acc-7680', '0.00', '55.00', 'S25'],
    ]);
    expect(posting.every((l) => l.description === text)).toBe(true);
    const { debit, credit } = assertPostable(posting);
    expect([fx(debit), fx(credit)]).toEqual(['305.00', '305.00']);
  });

  it('groups 25 and 25.00 on one account as one rate', () => {
    expect(shape(post(['acc-1010', '1', '10.00', '25'], ['acc-1010', '1', '5.00', '25.00']))).toEqual([
      ['acc-6190', '18.75', '0.00', ''],
      ['acc-1010', '0.00', '15.00', 'S25'],
      ['acc-7680', '0.00', '3.75', 'S25'],
    ]);
  });

  it('puts a group whose discounts outweigh it on the debit side, so every posted amount is positive', () => {
    const posting = post(['acc-1010', '1', '500.00', '25'], ['acc-1020', '1', '-100.00', '25'], ['acc-1010', '1', '10.00', '0']);
    expect(shape(posting)).toEqual([
      ['acc-6190', '510.00', '0.00', ''],
      ['acc-1010', '0.00', '500.00', 'S25'],
      ['acc-1020', '100.00', '0.00', 'S25'],
      ['acc-1010', '0.00', '10.00', 'S0'],
      ['acc-7680', '0.00', '100.00', 'S25'],
    ]);
    expect(posting.every((l) => !l.debit.isNegative() && !l.credit.isNegative())).toBe(true);
    assertPostable(posting);
  });

  it('mirrors an invoice whose total is negative: receivables credited, revenue and VAT debited', () => {
    const posting = post(['acc-1010', '1', '-80.00', '25'], ['acc-1010', '1', '-0.02', '25']);
    expect(shape(posting)).toEqual([
      ['acc-6190', '0.00', '100.03', ''],
      ['acc-1010', '80.02', '0.00', 'S25'],
      // -80.02 × 25 % = -20.005 -> -20.01
      ['acc-7680', '20.01', '0.00', 'S25'],
    ]);
    assertPostable(posting);
  });

  it('credits output VAT once per rate, each with the code of its rate', () => {
    // The invoice API takes 25 and 0 only (decision 95); the posting is per rate whatever the rates are.
    const posting = post(['acc-1010', '1', '100.00', '25'], ['acc-1010', '1', '100.00', '10'], ['acc-1020', '1', '50.00', '10']);
    expect(shape(posting)).toEqual([
      ['acc-6190', '290.00', '0.00', ''],
      ['acc-1010', '0.00', '100.00', 'S25'],
      ['acc-1010', '0.00', '100.00', 'S10'],
      ['acc-1020', '0.00', '50.00', 'S10'],
      ['acc-7680', '0.00', '25.00', 'S25'],
      ['acc-7680', '0.00', '15.00', 'S10'],
    ]);
    assertPostable(posting);
  });

  it('leaves out a group that nets to zero', () => {
    const posting = post(['acc-1010', '1', '40.00', '25'], ['acc-1020', '1', '25.00', '0'], ['acc-1020', '1', '-25.00', '0']);
    expect(shape(posting)).toEqual([
      ['acc-6190', '50.00', '0.00', ''],
      ['acc-1010', '0.00', '40.00', 'S25'],
      ['acc-7680', '0.00', '10.00', 'S25'],
    ]);
  });
});
