// Money rules in one place: decimal.js in code, numeric in PostgreSQL, never a JS float in arithmetic.
// DKK amounts carry at most 2 decimals; more is refused (never silently rounded).
import Decimal from 'decimal.js';

export { Decimal };
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

/** The JSON number of an amount, for responses only (no arithmetic happens on it afterwards). */
export function amountToJson(value: { toString(): string } | null | undefined): number {
  return value == null ? 0 : Number(new Decimal(value.toString()).toFixed(2));
}

/** A rate such as a VAT percentage (up to 2 decimals too). */
export function rateToJson(value: { toString(): string }): number {
  return Number(new Decimal(value.toString()).toFixed(2));
}
