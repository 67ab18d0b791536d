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
// JSON.rawJSON and JSON.isRawJSON (Node 21+, V8 11.4): not yet in TypeScript's lib.
declare global {
  interface JSON {
    rawJSON(text: string): object;
    isRawJSON(value: unknown): boolean;
  }
}

export const Decimal = DecimalJs.clone({ precision: 40, rounding: DecimalJs.ROUND_HALF_UP });
export type Decimal = DecimalJs;

/** A numeric as the database returns it (Prisma.Decimal) or as text, as our Decimal (its precision and rounding). */
export const decimalOf = (v: { toString(): string }): Decimal => new Decimal(v.toString());

const DECIMAL_TEXT = /^-?\d+(\.\d+)?$/;

/**
 * The largest amount, in absolute value, of anything a client sends (a line, a price, a payment) and of
 * any document total: 15 integer digits and 2 decimals. It fits the 18-digit amounts of SAF-T and the
 * numeric(18,2) columns of documents; running balances are numeric(38,2), which no sum of accepted
 * postings can overflow.
 */
export const MAX_AMOUNT = new Decimal('999999999999999.99');

/** At most 15 significant digits: a double holds such a decimal exactly (DBL_DIG). */
function fitsDouble(text: string): boolean {
  return (
    text
      .replace(/^-|e.*$/gi, '')
      .replace('.', '')
      .replace(/^0+/, '').length <= 15
  );
}

/**
 * JSON.parse reviver step for request bodies: a number whose text a double cannot hold exactly (more
 * than 15 significant digits) reaches the schema as its exact source text, which the amount fields
 * accept and every other number field refuses; anything else stays the number it is.
 */
export function exactJsonNumber(value: number, source: string | undefined): number | string {
  return source === undefined || fitsDouble(source) ? value : source;
}

/** Decimals of an amount: øre. More are refused wherever an amount comes from, never rounded away. */
export const AMOUNT_DECIMALS = 2;
/** Decimals of a quantity on a document line (1.2345 hours). */
export const QUANTITY_DECIMALS = 4;

/**
 * The one rule of what an amount is, for every reader (the API, bank files, e-invoices, SAF-T, rate
 * files): decimal text as ISO 20022, UBL and SAF-T write it ("1250.5", "-0.05"; no exponent, grouping
 * or plus sign), with at most `maxDecimals` decimals by value (10.500 is 10.5) and at most MAX_AMOUNT
 * in absolute value. A reader of another notation (a Danish bank's "1.234,50") rewrites it to this
 * first. Answers the Decimal, or why not in words that follow the field's name.
 */
export function parseDecimalText(text: string, maxDecimals = AMOUNT_DECIMALS): Decimal | string {
  if (!DECIMAL_TEXT.test(text)) return 'must be a decimal number';
  const d = new Decimal(text);
  if (d.decimalPlaces() > maxDecimals) return `must have at most ${maxDecimals} decimals`;
  if (d.abs().greaterThan(MAX_AMOUNT)) return `must be at most ${MAX_AMOUNT.toFixed(2)} in absolute value`;
  return d;
}

/** Parses an API amount (a JSON number or a decimal string). Returns a message instead when invalid. */
export function parseAmount(value: unknown, maxDecimals = AMOUNT_DECIMALS): Decimal | string {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return 'must be a finite number';
    // A JSON number arrives as a double; its shortest round-trip text is what the client wrote.
    const text = String(value);
    return parseDecimalText(/e/i.test(text) ? new Decimal(value).toFixed() : text, maxDecimals);
  }
  return typeof value === 'string' ? parseDecimalText(value.trim(), maxDecimals) : 'must be a decimal number';
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

/**
 * Rounds to whole kroner, half up = half away from zero, as the VAT return is filed: 0.50 -> 1 and
 * -0.50 -> -1. Never a signed zero.
 */
export function roundKroner(d: Decimal): Decimal {
  const r = new Decimal(d).toDecimalPlaces(0, Decimal.ROUND_HALF_UP);
  return r.isZero() ? new Decimal(0) : r;
}

/**
 * An amount as a whole number of øre (bigint), exactly: for sums over millions of lines, where a
 * Decimal per line costs too much. The text is the database's or what parseDecimalText accepted;
 * anything else (more than 2 decimals, an exponent) is a programming error and throws.
 */
export function toOere(amount: string | Decimal): bigint {
  const text = typeof amount === 'string' ? amount.trim() : amount.toFixed();
  const m = /^(-?)(\d+)(?:\.(\d{1,2}))?$/.exec(text);
  if (!m) throw new Error(`not an amount with at most 2 decimals: ${text}`);
  const oere = BigInt(m[2]!) * 100n + BigInt((m[3] ?? '').padEnd(2, '0') || '0');
  return m[1] ? -oere : oere;
}

const FIXED2 = /^-?\d+\.\d\d$/;

/**
 * toOere, twice as fast for text as PostgreSQL writes numeric(n,2) (always two decimals): the SAF-T
 * export reads a million of them. Any other text goes through toOere.
 */
export function toOereFixed2(amount: string): bigint {
  return FIXED2.test(amount) ? BigInt(amount.slice(0, -3) + amount.slice(-2)) : toOere(amount);
}

/** Øre as an exact decimal string with 2 decimals ("-0.05", "1250.00"). */
export function fromOere(oere: bigint): string {
  const sign = oere < 0n ? '-' : '';
  const abs = oere < 0n ? -oere : oere;
  return `${sign}${abs / 100n}.${String(abs % 100n).padStart(2, '0')}`;
}

/** Exact sum (no rounding: inputs with at most 2 decimals give a sum with at most 2 decimals). */
export function sumAmounts(values: readonly Decimal[]): Decimal {
  return values.reduce<Decimal>((acc, v) => acc.plus(v), new Decimal(0));
}

/**
 * `total` shared out over `weights` in proportion, to the øre, summing to `total` exactly (the øre left
 * over after rounding towards zero go to the largest remainders, the first of equals first). Signed
 * weights share signed: the VAT of a group over its lines gives a discount line its negative part. When
 * the weights cancel out (or there are none but zeros), by their sizes, and all zero: equally. An
 * expense's VAT over its lines is shared so.
 */
export function shareOut(total: Decimal, weights: readonly Decimal[]): Decimal[] {
  if (!weights.length) return [];
  const signedSum = sumAmounts(weights);
  const sizes = weights.map((w) => new Decimal(w).abs());
  const basis = !signedSum.isZero() ? weights.map((w) => new Decimal(w)) : sumAmounts(sizes).isZero() ? sizes.map(() => new Decimal(1)) : sizes;
  const whole = sumAmounts(basis);
  const oere = new Decimal(total).times(100);
  const exact = basis.map((b) => oere.times(b).dividedBy(whole));
  const shares = exact.map((e) => e.truncated());
  let left = oere.minus(sumAmounts(shares)).toNumber();
  const step = left < 0 ? -1 : 1;
  const order = exact.map((e, i) => ({ i, rest: e.minus(shares[i]!).abs() })).sort((a, b) => b.rest.comparedTo(a.rest) || a.i - b.i);
  for (let k = 0; left !== 0; k = (k + 1) % order.length, left -= step) shares[order[k]!.i] = shares[order[k]!.i]!.plus(step);
  return shares.map((s) => (s.isZero() ? new Decimal(0) : s.dividedBy(100)));
}

/**
 * The net amount of an invoice line: quantity (up to QUANTITY_DECIMALS, parse with parseAmount(q, QUANTITY_DECIMALS)) times
 * unit price, multiplied exactly (see precision above), then rounded half up to øre once, per line:
 * the line amount shown on the invoice is what gets summed.
 * 3 × 33.333 = 99.999 -> 100.00; 1.5 × 0.05 = 0.075 -> 0.08.
 */
export function lineNet(quantity: Decimal, unitPrice: Decimal): Decimal {
  return roundOere(new Decimal(quantity).times(unitPrice));
}

/**
 * The JSON number of an amount, for responses only (no arithmetic happens on it afterwards): a plain
 * number while a double holds it exactly (below 10^13 with øre), beyond that a raw JSON number carrying
 * the exact digits (JSON.rawJSON), so a balance of 999999999999999.99 is written as that and never as
 * 1000000000000000. Output schemas accept both (fields.ts: amountOut).
 */
export function amountToJson(value: { toString(): string } | null | undefined): number {
  return value == null ? 0 : exactJson(new Decimal(value.toString()).toFixed(2));
}

/** A quantity (up to 4 decimals) for a response, written exactly like an amount. */
export function quantityToJson(value: { toString(): string }): number {
  return exactJson(new Decimal(value.toString()).toFixed());
}

function exactJson(text: string): number {
  if (fitsDouble(text)) return Number(text);
  // Typed as the number it serialises as; only JSON.stringify ever reads it.
  return JSON.rawJSON(text) as unknown as number;
}

/** Parses stored JSON (a response kept for an idempotent replay) keeping every number's exact digits. */
export function parseJsonExact(text: string): unknown {
  return JSON.parse(text, (_key, value: unknown, context?: { source?: string }) =>
    typeof value === 'number' && context?.source !== undefined && !fitsDouble(context.source) ? JSON.rawJSON(context.source) : value,
  );
}

/** An amount as amountToJson writes it: a number, or a raw JSON number beyond double precision. */
export function isJsonAmount(v: unknown): v is number {
  return typeof v === 'number' ? Number.isFinite(v) : JSON.isRawJSON(v);
}

/** A rate such as a VAT percentage (up to 2 decimals too). */
export function rateToJson(value: { toString(): string }): number {
  return Number(new Decimal(value.toString()).toFixed(2));
}
