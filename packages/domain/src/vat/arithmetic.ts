// VAT (moms) arithmetic, pure: the VAT of a group of lines, of an invoice per group, and of an amount that
// includes it. Rates are percents (25, 12.5, 0), 0..100 with at most 2 decimals.
import { Decimal, parseAmount, roundOere, sumAmounts } from '../money.ts';

export interface VatLine {
  net: Decimal;
  rate: Decimal;
  /** The line's VAT code (treatment); lines group by it, or by rate when it is absent. */
  code?: string;
}

export interface VatGroup {
  /** '' when the lines carried no code. */
  code: string;
  rate: Decimal;
  net: Decimal;
  vat: Decimal;
}

export interface VatTotals {
  subtotal: Decimal;
  vat: Decimal;
  total: Decimal;
  /** One entry per VAT code (or distinct rate), highest rate first. */
  byRate: VatGroup[];
}

/** Decimals of a VAT rate percent (12.5, 25). */
export const VAT_RATE_DECIMALS = 2;

/** Parses a VAT rate percent from the API (JSON number or decimal string). Returns a message when invalid. */
export function parseVatRate(value: unknown): Decimal | string {
  const d = parseAmount(value, VAT_RATE_DECIMALS);
  if (typeof d === 'string') return d;
  if (d.isNegative() || d.greaterThan(100)) return 'must be between 0 and 100';
  return d;
}

function assertRate(rate: Decimal): void {
  // The API validates rates; reaching here with a bad one is a programming error, not a 400.
  if (rate.isNegative() || rate.greaterThan(100) || rate.decimalPlaces() > VAT_RATE_DECIMALS) {
    throw new RangeError(`invalid VAT rate ${rate.toString()}`);
  }
}

/**
 * The VAT of one group's net amount: net × rate / 100, rounded half up (away from zero) to øre once.
 * rate / 100 is exact (rate has ≤ 2 decimals), so that is the only rounding.
 */
export function groupVat(net: Decimal, rate: Decimal): Decimal {
  return roundOere(new Decimal(net).times(rate).dividedBy(100));
}

/**
 * VAT per group, the one computation of it (the invoice's totals, its UBL breakdown): the lines'
 * net amounts summed exactly per `key`, and the VAT of each group computed once on that sum (groupVat),
 * never per line. Per-line rounding drifts (100 lines of 0.01 at 25% give 100 × round(0.0025) = 0.00
 * instead of 0.25), and the per-group figure is the "Moms 25% af X" a Danish invoice shows and the
 * TaxSubtotal EN 16931 asks for (BR-CO-17). One group has one rate: the key must tell rates apart.
 * Groups come in the order of their first line, each with that line.
 */
export function vatByGroup<L extends VatLine>(lines: readonly L[], key: (line: L) => string): { first: L; rate: Decimal; net: Decimal; vat: Decimal }[] {
  const groups = new Map<string, { first: L; rate: Decimal; nets: Decimal[] }>();
  for (const line of lines) {
    const rate = new Decimal(line.rate);
    assertRate(rate);
    const k = key(line);
    const group = groups.get(k) ?? { first: line, rate, nets: [] };
    group.nets.push(line.net);
    groups.set(k, group);
  }
  return [...groups.values()].map(({ first, rate, nets }) => {
    const net = sumAmounts(nets);
    return { first, rate, net, vat: groupVat(net, rate) };
  });
}

/**
 * Invoice totals: VAT per code (or per rate when the lines carry no code), highest rate first.
 * Negative nets (credit lines) are allowed and a group sum may be negative; rounding is symmetric, so
 * a credit note mirrors its invoice exactly. subtotal = Σ net; vat = Σ group VAT; total = subtotal + vat.
 */
export function computeVat(lines: readonly VatLine[]): VatTotals {
  // Keyed by the code (one code has one rate), else by the normalised rate so 25, "25.0" and 25.00 share one group.
  const byRate: VatGroup[] = vatByGroup(lines, (l) => (l.code ? `code:${l.code}` : new Decimal(l.rate).toFixed(2)))
    .map(({ first, rate, net, vat }) => ({ code: first.code ?? '', rate, net, vat }))
    .sort((a, b) => b.rate.comparedTo(a.rate) || a.code.localeCompare(b.code));
  const subtotal = sumAmounts(byRate.map((g) => g.net));
  const vat = sumAmounts(byRate.map((g) => g.vat));
  return { subtotal, vat, total: subtotal.plus(vat), byRate };
}

/**
 * Splits an amount entered including VAT (an expense receipt): vat = round_half_up(gross × rate /
 * (100 + rate)), net = gross − vat, so net + vat == gross exactly (the receipt total is never
 * changed by rounding). The quotient is computed to 40 significant digits before the øre rounding;
 * with ≤ 2-decimal operands a non-exact quotient can't sit that close to a half-øre boundary.
 */
export function vatFromGross(gross: Decimal, rate: Decimal): { net: Decimal; vat: Decimal } {
  const r = new Decimal(rate);
  assertRate(r);
  const g = new Decimal(gross);
  const vat = roundOere(g.times(r).dividedBy(r.plus(100)));
  return { net: g.minus(vat), vat };
}
