// Money rules in one place: decimal.js in code, numeric in PostgreSQL, never a JS float in arithmetic.
// DKK amounts carry at most 2 decimals; more is refused (never silently rounded).
import DecimalJs from 'decimal.js';

/**
 * The Decimal everyone uses. A clone, so this module's settings do not leak into other users of
 * 'decimal.js'; clones share one prototype, so instances from either constructor interoperate
 * (instanceof, arithmetic, Decimal.isDecimal).
 * precision 40 significant digits: an amount below 10^15 with 2 decimals (17 digits) times a
 * quantity with 4 decimals (also below 10^15) has at most 36 digits, so multiplication is exact and
 * the only rounding is the explicit one to øre. rounding HALF_UP: half away from zero, both signs.
 */
export const Decimal = DecimalJs.clone({ precision: 40, rounding: DecimalJs.ROUND_HALF_UP });
export type Decimal = DecimalJs;
export type Amount = Decimal;

const DECIMAL_TEXT = /^-?\d+(\.\d+)?$/;

/** Parses an API amount (a JSON number or a decimal string). Returns a message instead when invalid. */
export function parseAmount(value: unknown, maxDecimals = 2): Decimal | string {
  let text: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return 'must be a finite number';
    // A JSON number arrives as a double; its shortest round-trip text is what the client wrote.
    text = String(value);
    if (/e/i.test(text)) text = new Decimal(value).toFixed();
  } else if (typeof value === 'string' && DECIMAL_TEXT.test(value.trim())) {
    text = value.trim();
  } else {
    return 'must be a decimal number';
  }
  const d = new Decimal(text);
  if (d.decimalPlaces() > maxDecimals) return `must have at most ${maxDecimals} decimals`;
  if (d.abs().greaterThanOrEqualTo('1e15')) return 'is too large';
  return d;
}

/**
 * Rounds to øre (2 decimals), half up = half away from zero: 0.005 -> 0.01 and -0.005 -> -0.01,
 * so a credit line rounds to exactly the negative of the matching debit line.
 */
export function roundOere(d: Decimal): Decimal {
  const r = new Decimal(d).toDecimalPlaces(2, Decimal.ROUND_HALF_UP);
  // -0.002 rounds to a signed zero, whose toJSON() is "-0"; an amount never carries a sign at zero.
  return r.isZero() ? new Decimal(0) : r;
}

/** Exact sum (no rounding: inputs with at most 2 decimals give a sum with at most 2 decimals). */
export function sumAmounts(values: readonly Decimal[]): Decimal {
  return values.reduce<Decimal>((acc, v) => acc.plus(v), new Decimal(0));
}

/**
 * The net amount of an invoice line: quantity (up to 4 decimals, parse with parseAmount(q, 4)) times
 * unit price, multiplied exactly (see precision above), then rounded half up to øre once, per line:
 * the line amount shown on the invoice is what gets summed.
 * 3 × 33.333 = 99.999 -> 100.00; 1.5 × 0.05 = 0.075 -> 0.08.
 */
export function lineNet(quantity: Decimal, unitPrice: Decimal): Decimal {
  return roundOere(new Decimal(quantity).times(unitPrice));
}

/** The JSON number of an amount, for responses only (no arithmetic happens on it afterwards). */
export function amountToJson(value: { toString(): string } | null | undefined): number {
  return value == null ? 0 : Number(new Decimal(value.toString()).toFixed(2));
}

/** A rate such as a VAT percentage (up to 2 decimals too). */
export function rateToJson(value: { toString(): string }): number {
  return Number(new Decimal(value.toString()).toFixed(2));
}
