// Field schemas shared by every resource. The REST adapter switches top-level number and boolean
// schemas of an input into coercing mode (so "false" would become true and null would become 0);
// every number and boolean here is therefore wrapped in a pipe, which the adapter leaves alone.
import { z } from 'zod';
import { checkDate } from './calendar.ts';
import { ACCOUNT_NUMBER } from './ledger/rules.ts';
import { BANK_ACCOUNT_NUMBER, BANK_REG_NUMBER, checkIban, normalizeIban } from './identifiers/bank.ts';
import { checkCvr, normalizeCvr } from './identifiers/cvr.ts';
import { checkPeppolId, normalizePeppolId } from './identifiers/peppol-id.ts';
import { checkFiCreditorNumber, normalizeFiCreditorNumber } from './identifiers/fi-payment.ts';
import { checkVatNumber, normalizeVatNumber } from './identifiers/vat-number.ts';
import { checkCurrency, parseExchangeRate } from './currency/rules.ts';
import { isJsonAmount, parseAmount, QUANTITY_DECIMALS, type Decimal } from './money.ts';

// Messages a client can act on, for every schema of the API: a missing field "is required", a wrong
// type says what it must be (zod's default is "Invalid input: expected string, received undefined").
// A bound says what the bound is ("must have at most 200 characters"; zod's default is "Too big: expected
// string to have <=200 characters").
const TYPE_NAMES: Record<string, string> = { object: 'a JSON object', array: 'an array', boolean: 'true or false', int: 'an integer' };
const UNITS: Record<string, string> = { string: 'characters', array: 'items' };
function bound(origin: string, limit: number | bigint, inclusive: boolean | undefined, most: boolean): string {
  const unit = UNITS[origin];
  if (!most && unit === 'characters' && limit === 1 && inclusive !== false) return 'must not be empty';
  const words = inclusive === false ? (most ? 'fewer than' : 'more than') : most ? 'at most' : 'at least';
  if (unit) return `must have ${words} ${limit} ${unit}`;
  return `must be ${inclusive === false ? (most ? 'below' : 'above') : words} ${limit}`;
}
z.config({
  customError: (issue) => {
    if (issue.code === 'too_big') return bound(issue.origin, issue.maximum, issue.inclusive, true);
    if (issue.code === 'too_small') return bound(issue.origin, issue.minimum, issue.inclusive, false);
    if (issue.code !== 'invalid_type') return undefined;
    if (issue.input === undefined) return 'is required';
    if (issue.input === null) return 'must not be null';
    return `must be ${TYPE_NAMES[issue.expected] ?? `a ${issue.expected}`}`;
  },
});

/** Shields a schema from the adapter's coercion; validation and the documented type are unchanged. */
export const exact = <T extends z.ZodType>(schema: T) => schema.pipe(z.custom<z.output<T>>(() => true));

export const integer = (min: number, max: number) => exact(z.int().min(min).max(max));
export const boolean = () => exact(z.boolean());

/**
 * A decimal as JSON sends it: a number or a decimal string. Anything else, or a number JSON could not
 * hold (1e400 parses to Infinity), is refused in the amount rule's words, as every other bad amount is.
 */
const decimalInput = () => z.union([z.number(), z.string()], { error: (issue) => parseAmount(issue.input) as string });

/**
 * The bound of every amount a client sends, in the OpenAPI document: below 10^15 in absolute value, which with
 * at most 2 decimals is at most 999999999999999.99 (money.ts MAX_AMOUNT). Written as exclusive bounds because
 * a double cannot write 999999999999999.99 (it would read 1000000000000000).
 */
const AMOUNT_BOUND = 1e15;

/** An amount in DKK: a JSON number (or decimal string) with at most 2 decimals, parsed to a Decimal. */
export const money = (opts: { min?: number } = {}) =>
  decimalInput()
    .transform((v, ctx): Decimal => {
      const d = parseAmount(v);
      if (typeof d === 'string') {
        ctx.addIssue({ code: 'custom', message: d });
        return z.NEVER;
      }
      if (opts.min !== undefined && d.lessThan(opts.min)) {
        ctx.addIssue({ code: 'custom', message: `must be at least ${opts.min}` });
        return z.NEVER;
      }
      return d;
    })
    .meta({
      description: 'Amount in DKK with at most 2 decimals',
      example: 1250.5,
      ...(opts.min === undefined ? { exclusiveMinimum: -AMOUNT_BOUND } : { minimum: opts.min }),
      exclusiveMaximum: AMOUNT_BOUND,
    });

/**
 * An amount in a response: a JSON number written with its exact digits (money.ts amountToJson; beyond
 * double precision a raw JSON number, which z.number() would refuse).
 */
export const amountOut = (description = 'Amount in DKK') => z.custom<number>(isJsonAmount).meta({ type: 'number', description });

/** A percentage such as a VAT rate, 0 to 100 with at most 2 decimals. */
export const percent = () =>
  decimalInput()
    .transform((v, ctx): Decimal => {
      const d = parseAmount(v);
      if (typeof d === 'string' || d.lessThan(0) || d.greaterThan(100)) {
        ctx.addIssue({ code: 'custom', message: typeof d === 'string' ? d : 'must be from 0 to 100' });
        return z.NEVER;
      }
      return d;
    })
    .meta({ description: 'Percent, 0 to 100', example: 25, minimum: 0, maximum: 100 });

/** A currency (valuta): an ISO 4217 code of the list in currency/rules.ts, upper case as written there. */
export const currency = () =>
  z
    .string()
    .superRefine((s, ctx) => {
      const problem = checkCurrency(s);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .meta({ description: 'Valuta: ISO 4217 currency code', pattern: '^[A-Z]{3}$', example: 'EUR' });

/** An exchange rate (valutakurs): DKK per 1 unit of the currency, above 0, at most 6 decimals; a JSON number or a decimal string. */
export const exchangeRate = () =>
  decimalInput()
    .transform((v, ctx): Decimal => {
      const d = parseExchangeRate(v);
      if (typeof d === 'string') {
        ctx.addIssue({ code: 'custom', message: d });
        return z.NEVER;
      }
      return d;
    })
    .meta({
      description: 'Valutakurs: DKK per 1 unit of the currency, greater than 0, at most 6 decimals',
      example: 7.4612,
      exclusiveMinimum: 0,
      exclusiveMaximum: 1e12,
    });

/** Optional free text: null is accepted and means empty. */
export const text = (max: number) =>
  z
    .string()
    .trim()
    .max(max)
    .nullable()
    .transform((v) => v ?? '');

export const requiredText = (max: number) => z.string().trim().min(1, 'must not be empty').max(max);

const withEmpty = <T extends z.ZodType>(schema: T) =>
  z
    // A value of another type fails both branches; say what it must be, as every other field does.
    .union([z.literal(''), schema], { error: (issue) => (typeof issue.input === 'string' ? undefined : 'must be a string') })
    .nullable()
    .transform((v) => (v ?? '') as string);

export const email = () => withEmpty(z.string().trim().pipe(z.email('must be an e-mail address').max(254)));
export const phone = () =>
  withEmpty(
    z
      .string()
      .trim()
      .max(40)
      .regex(/^\+?[0-9 ()-]+$/, 'must be a telephone number'),
  );
/** A CVR number, checked by the CVR module's rule (modulus 11) and stored without spaces. */
export const cvrNumber = () =>
  z
    .string()
    .overwrite(normalizeCvr)
    .superRefine((s, ctx) => {
      const problem = checkCvr(s);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .meta({ description: 'Danish CVR number: 8 digits passing the modulus 11 check; spaces are removed', example: '12345674' });
/** An optional CVR: "" or null for none. */
export const cvr = () => withEmpty(cvrNumber());
export const ean = () =>
  withEmpty(
    z
      .string()
      .trim()
      .regex(/^\d{13}$/, 'must be an EAN/GLN location number of exactly 13 digits'),
  ).meta({
    example: '5790000123456',
    description: 'EAN/GLN location number, for invoicing public customers (OIOUBL/NemHandel)',
  });
// Bank details (identifiers/bank.ts), for the company's profile and for suppliers alike. Digits may be
// typed in groups (0440 116243, 0440-116243) and are stored as the digits; "" or null clears a field.
const bankDigits = (pattern: RegExp, message: string) =>
  text(40)
    .transform((v) => v.replace(/[\s-]/g, ''))
    .refine((v) => v === '' || pattern.test(v), message);

export const bankRegNumber = () =>
  bankDigits(BANK_REG_NUMBER, 'must be a Danish bank registration number of 4 digits').meta({ description: 'Registreringsnummer', example: '0040' });
export const bankAccountNumber = () =>
  bankDigits(BANK_ACCOUNT_NUMBER, 'must be a Danish bank account number of up to 10 digits').meta({ description: 'Kontonummer', example: '0440116243' });
/**
 * An optional identifier checked by its module: "" or null for none; otherwise refused with the module's
 * reason, and stored as the module normalises it.
 */
const identifier = (max: number, check: (v: string) => string | undefined, normalize: (v: string) => string) =>
  text(max)
    .superRefine((v, ctx) => {
      const why = v === '' ? undefined : check(v);
      if (why) ctx.addIssue({ code: 'custom', message: why });
    })
    .transform(normalize);
export const iban = () =>
  identifier(42, checkIban, normalizeIban).meta({ description: 'Stored without spaces; checked by its mod-97 check digits', example: 'DK5000400440116243' });
/** The company's FI creditor number (identifiers/fi-payment.ts); "" or null for none. */
export const fiCreditorNumber = () =>
  identifier(20, checkFiCreditorNumber, normalizeFiCreditorNumber).meta({
    description: 'FI kreditornummer: 8 digits, the first 8; spaces removed',
    example: '81234567',
  });
/** An EU VAT number (identifiers/vat-number.ts), checked for its country's format and stored normalised; "" or null for none. */
export const vatNumber = () =>
  identifier(40, checkVatNumber, normalizeVatNumber).meta({
    description:
      "Momsregistreringsnummer (EU VAT number), e.g. DE123456789: the country's prefix (EL for Greece, XI for Northern Ireland) and the number in that country's format (a Danish one passes the CVR modulus 11 check). Spaces, dots and hyphens are removed and letters upper-cased. Its format is checked, not its registration in VIES",
    example: 'DE123456789',
  });
// A Peppol participant identifier (identifiers/peppol-id.ts): checked by its scheme's rule, stored normalised.
const peppolIdMeta = {
  description:
    "Peppol participant identifier (endpoint id) <scheme>:<id>, e.g. 0184:12345674 (CVR number), 0198:DK12345674 (SE number) or 0088:5790000436101 (GLN/EAN location number): a scheme from Peppol BIS Billing 3.0's list of electronic address schemes and the id in that scheme's format, with its check digits checked where it has them (CVR and SE number modulus 11, GLN GS1, IBAN, ...). A leading iso6523-actorid-upis:: is dropped, spaces are removed and letters upper-cased (Peppol compares these ids case-insensitively)",
  example: '0184:12345674',
};
/** A Peppol participant identifier that must be given (the customer lookup's parameter). */
export const peppolParticipantId = () =>
  z
    .string()
    .max(200)
    .overwrite(normalizePeppolId)
    .superRefine((s, ctx) => {
      const problem = checkPeppolId(s);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .meta(peppolIdMeta);
/** An optional Peppol participant identifier: "" or null for none. */
export const peppolId = () => identifier(200, checkPeppolId, normalizePeppolId).meta(peppolIdMeta);
export const country = () =>
  z
    .string()
    .trim()
    .transform((v) => v.toUpperCase())
    .pipe(z.string().regex(/^[A-Z]{2}$/, 'must be an ISO 3166-1 alpha-2 country code such as DK'))
    .meta({ example: 'DK' });

export const uuid = () => z.guid('must be a UUID');
/** A VAT code of the company (momskode, e.g. S25, K25, EUV); whether it exists is the domain's check. */
export const vatCode = () =>
  z
    .string()
    .trim()
    .regex(/^[A-Z0-9]{1,9}$/, 'must be a VAT code of 1 to 9 upper-case letters and digits, such as S25')
    .optional();

/** A reference to an account of the chart by its number (a line, a product's revenue, a settlement). */
export const accountNumber = () => z.string().trim().regex(ACCOUNT_NUMBER, 'must be an account number of 1 to 10 digits');

/** A calendar date YYYY-MM-DD that exists, within the accepted range (calendar.ts). */
export const date = () =>
  z
    .string()
    .superRefine((s, ctx) => {
      const problem = checkDate(s);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .meta({ format: 'date', pattern: '^\\d{4}-\\d{2}-\\d{2}$', example: '2026-04-10' });

/** A date in a response: YYYY-MM-DD as calendar.ts writes it (derived dates such as a fiscal year's first day may lie outside the accepted input range). */
export const dateOut = () => z.string().meta({ format: 'date', example: '2026-04-10' });

export const timestamp = () => z.iso.datetime({ offset: true }).meta({ description: 'ISO 8601 timestamp in UTC', example: '2026-04-10T09:30:00.000Z' });

/** A quantity on a document line: up to 4 decimals, below a billion units in absolute value. */
export const quantity = () =>
  decimalInput()
    .transform((v, ctx): Decimal => {
      const d = parseAmount(v, QUANTITY_DECIMALS);
      if (typeof d === 'string' || d.abs().greaterThan('999999999.9999')) {
        ctx.addIssue({ code: 'custom', message: typeof d === 'string' ? d : 'must be below 1000000000 in absolute value' });
        return z.NEVER;
      }
      return d;
    })
    .meta({ description: 'Quantity with at most 4 decimals', example: 1.5, exclusiveMinimum: -1e9, exclusiveMaximum: 1e9 });
