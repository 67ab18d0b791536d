// Invoice rules, pure: the status transitions, the arithmetic of an invoice (line amounts, VAT per rate
// group, totals) and the ledger posting of an approval. The invoice functions and the tests rely on these.
import { dimensionsKey, someDimensions, type LineDimensions } from '../dimensions/schema.ts';
import { DomainError } from '../errors.ts';
import { Decimal, lineNet, MAX_AMOUNT, sumAmounts } from '../money.ts';
import type { PostingLine } from '../ledger/rules.ts';
import { computeVat, type VatGroup } from '../vat/arithmetic.ts';
import { vatLines, type VatTreatment } from '../vat/codes.ts';

export const INVOICE_STATUSES = ['draft', 'approved', 'sent', 'paid', 'overdue', 'cancelled'] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];

/** The VAT rates an invoice line may carry: Danish VAT (25 %) and VAT-exempt or zero-rated sales (0 %). */
export const INVOICE_VAT_RATES = ['25', '0'] as const;

/**
 * Where each status may go (PUT /invoices/{id}/status; the overdue sweep uses approved/sent -> overdue).
 * A draft is approved (or deleted); an approved invoice is sent, paid, cancelled by a credit note or falls
 * overdue; paid and cancelled are final. Staying in the same status is a no-op, not a transition.
 */
export const TRANSITIONS: Record<InvoiceStatus, readonly InvoiceStatus[]> = {
  draft: ['approved'],
  approved: ['sent', 'paid', 'overdue', 'cancelled'],
  sent: ['paid', 'overdue', 'cancelled'],
  overdue: ['paid', 'cancelled'],
  paid: [],
  cancelled: [],
};

/** Throws 409 invalid_transition naming the statuses that are allowed from `from`. */
export const assertTransition = (from: InvoiceStatus, to: InvoiceStatus): void => assertTransitionIn(TRANSITIONS, from, to, 'An invoice');

/** A document's transition table (an invoice's, a quote's) checked: 409 invalid_transition naming what `from` allows. */
export function assertTransitionIn<S extends string>(table: Record<S, readonly S[]>, from: S, to: S, document: string): void {
  if (table[from].includes(to)) return;
  const allowed = table[from];
  throw new DomainError(
    'invalid_transition',
    `${document} that is ${from} cannot become ${to}; ${allowed.length ? `allowed next: ${allowed.join(', ')}` : `${from} is final`}.`,
    'status',
    { current_status: from, allowed_statuses: [...allowed] },
  );
}

/** Statuses in which an invoice is an open receivable. */
export const OPEN_STATUSES: readonly InvoiceStatus[] = ['approved', 'sent', 'overdue'];

export interface LineInput {
  quantity: Decimal;
  unitPrice: Decimal;
  vatRate: Decimal;
  /** The line's VAT code; VAT is computed per code. */
  vatCode: string;
  /** A discount in percent (0 ≤ d < 100); none when absent. */
  discountPercent?: Decimal;
}

/**
 * A line's amount: quantity × unit price rounded half up to øre, less the discount (its percent of that,
 * rounded half up to øre). The e-invoices state the discount as the difference of the two (lineDiscount).
 */
export function lineAmount(l: Pick<LineInput, 'quantity' | 'unitPrice' | 'discountPercent'>): Decimal {
  const gross = lineNet(l.quantity, l.unitPrice);
  return l.discountPercent?.isZero() === false ? gross.minus(lineNet(gross, l.discountPercent.dividedBy(100))) : gross;
}

export interface InvoiceTotals {
  /** Per line: quantity × unit price, rounded half up to øre once. */
  amounts: Decimal[];
  subtotal: Decimal;
  vat: Decimal;
  total: Decimal;
  byRate: VatGroup[];
}

/**
 * The arithmetic of an invoice: each line's amount is rounded to øre once; VAT is computed per rate
 * group on the exact sum of its lines and rounded half up (vat/arithmetic.ts); total = subtotal + VAT.
 * Refuses totals beyond the largest amount.
 */
export function invoiceTotals(lines: readonly LineInput[]): InvoiceTotals {
  const amounts = lines.map(lineAmount);
  amounts.forEach((a, i) => {
    if (a.abs().greaterThan(MAX_AMOUNT))
      throw new DomainError('invalid_request', `The line amount ${a.toFixed(2)} exceeds ${MAX_AMOUNT.toFixed(2)}.`, `lines[${i}]`);
  });
  const vat = computeVat(lines.map((l, i) => ({ net: amounts[i]!, rate: l.vatRate, code: l.vatCode })));
  // The subtotal too: negative VAT (discounts outweighing a group) can bring the total back under it.
  const beyond = (['subtotal', 'total'] as const).find((name) => vat[name].abs().greaterThan(MAX_AMOUNT));
  if (beyond) throw new DomainError('invalid_request', `The invoice ${beyond} ${vat[beyond].toFixed(2)} exceeds ${MAX_AMOUNT.toFixed(2)}.`, 'lines');
  return { amounts, subtotal: vat.subtotal, vat: vat.vat, total: vat.total, byRate: vat.byRate };
}

export interface PostedLine {
  accountId: string;
  amount: Decimal;
  vatCode: string;
  dimensions?: LineDimensions | undefined;
}

/**
 * The posting of an approved invoice: debit receivables with the total; credit each revenue account
 * with its lines' amounts (one line per account and VAT code); then the VAT lines of each code's group
 * (vat/codes.ts: output VAT credited for S25; nothing for the 0 % codes). A negative sum (discount
 * lines outweighing a group) goes to the other side, so every posted amount is positive.
 */
export function approvalPosting(
  lines: readonly PostedLine[],
  totals: InvoiceTotals,
  receivable: string,
  codes: ReadonlyMap<string, VatTreatment>,
  text: string,
): PostingLine[] {
  const out: PostingLine[] = [];
  const add = (accountId: string, credit: Decimal, vatCode: string, dimensions?: LineDimensions) => {
    if (credit.isZero()) return;
    out.push({
      accountId,
      debit: credit.isNegative() ? credit.negated() : new Decimal(0),
      credit: credit.isNegative() ? new Decimal(0) : credit,
      description: text,
      vatCode,
      ...(dimensions ? { dimensions } : {}),
    });
  };
  add(receivable, totals.total.negated(), '');
  // One revenue line per account, VAT code and dimensions (decision 584): a project's sales stay its own.
  const groups = new Map<string, { accountId: string; code: string; dimensions?: LineDimensions; amounts: Decimal[] }>();
  for (const l of lines) {
    const dims = someDimensions(l.dimensions);
    const key = `${l.accountId}|${l.vatCode}|${dimensionsKey(dims)}`;
    const g = groups.get(key) ?? { accountId: l.accountId, code: l.vatCode, ...(dims ? { dimensions: dims } : {}), amounts: [] };
    g.amounts.push(l.amount);
    groups.set(key, g);
  }
  for (const g of groups.values()) add(g.accountId, sumAmounts(g.amounts), g.code, g.dimensions);
  for (const g of totals.byRate) out.push(...vatLines(codes.get(g.code)!, g.vat, text).lines);
  return out;
}
