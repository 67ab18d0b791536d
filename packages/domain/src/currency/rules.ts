// Foreign currency, the pure part: which codes are currencies, what an exchange rate may be, how a foreign
// amount becomes DKK, and how Danmarks Nationalbank's reference-rate file reads. The ledger stays in DKK.
import { checkDate } from '../calendar.ts';
import { invalidRequest } from '../errors.ts';
import { Decimal, parseAmount, parseDecimalText, quantityToJson, roundOere } from '../money.ts';
import { xmlRefused } from '../xml/reader.ts';
import { children, readXmlDocument, type XmlElement } from '../xml/tree.ts';

/**
 * ISO 4217 List One as published 2024-06-25, currencies only: without the fund codes (BOV, CHE, CHW, CLF,
 * COU, MXV, USN, UYI, UYW), the units of account and drawing rights (XBA-XBD, XDR, XSU, XUA), the precious
 * metals and the testing and no-currency codes, none of which a document is written in. Added since: XCG
 * (replaced ANG 2025-03-31). Codes withdrawn later (ANG; BGN, euro from 2026-01-01) stay: a document dated
 * before the change is still booked and corrected in its own currency (decision 190).
 */
// prettier-ignore
export const CURRENCIES = [
  'AED', 'AFN', 'ALL', 'AMD', 'ANG', 'AOA', 'ARS', 'AUD', 'AWG', 'AZN', 'BAM', 'BBD', 'BDT', 'BGN', 'BHD', 'BIF',
  'BMD', 'BND', 'BOB', 'BRL', 'BSD', 'BTN', 'BWP', 'BYN', 'BZD', 'CAD', 'CDF', 'CHF', 'CLP', 'CNY', 'COP', 'CRC',
  'CUC', 'CUP', 'CVE', 'CZK', 'DJF', 'DKK', 'DOP', 'DZD', 'EGP', 'ERN', 'ETB', 'EUR', 'FJD', 'FKP', 'GBP', 'GEL',
  'GHS', 'GIP', 'GMD', 'GNF', 'GTQ', 'GYD', 'HKD', 'HNL', 'HTG', 'HUF', 'IDR', 'ILS', 'INR', 'IQD', 'IRR', 'ISK',
  'JMD', 'JOD', 'JPY', 'KES', 'KGS', 'KHR', 'KMF', 'KPW', 'KRW', 'KWD', 'KYD', 'KZT', 'LAK', 'LBP', 'LKR', 'LRD',
  'LSL', 'LYD', 'MAD', 'MDL', 'MGA', 'MKD', 'MMK', 'MNT', 'MOP', 'MRU', 'MUR', 'MVR', 'MWK', 'MXN', 'MYR', 'MZN',
  'NAD', 'NGN', 'NIO', 'NOK', 'NPR', 'NZD', 'OMR', 'PAB', 'PEN', 'PGK', 'PHP', 'PKR', 'PLN', 'PYG', 'QAR', 'RON',
  'RSD', 'RUB', 'RWF', 'SAR', 'SBD', 'SCR', 'SDG', 'SEK', 'SGD', 'SHP', 'SLE', 'SOS', 'SRD', 'SSP', 'STN', 'SVC',
  'SYP', 'SZL', 'THB', 'TJS', 'TMT', 'TND', 'TOP', 'TRY', 'TTD', 'TWD', 'TZS', 'UAH', 'UGX', 'USD', 'UYU', 'UZS',
  'VED', 'VES', 'VND', 'VUV', 'WST', 'XAF', 'XCD', 'XCG', 'XOF', 'XPF', 'YER', 'ZAR', 'ZMW', 'ZWG',
] as const;
export type Currency = (typeof CURRENCIES)[number];

/** The ledger's own currency: every amount of the books, reports and the VAT return is in it. */
export const LEDGER_CURRENCY = 'DKK';

const KNOWN: ReadonlySet<string> = new Set(CURRENCIES);
export const isCurrency = (code: string): code is Currency => KNOWN.has(code);

/** Why `code` is not a currency a document can be in, or undefined when it is one. */
export function checkCurrency(code: string): string | undefined {
  if (!/^[A-Z]{3}$/.test(code)) return 'must be an ISO 4217 currency code of three upper-case letters, such as EUR';
  if (!isCurrency(code)) return `must be an active ISO 4217 currency code; ${code} is not one`;
  return undefined;
}

/**
 * Decimals of an exchange rate (DKK per 1 unit): Nationalbanken quotes per 100 units with up to 4 decimals
 * (IDR 0,0376), which is 6 per unit. The column is numeric(18,6), so a rate stays below 10^12.
 */
export const EXCHANGE_RATE_DECIMALS = 6;
const RATE_LIMIT = new Decimal('1e12');

/** Parses an exchange rate (a JSON number or a decimal string). Returns a message instead when invalid. */
export function parseExchangeRate(value: unknown): Decimal | string {
  const d = parseAmount(value, EXCHANGE_RATE_DECIMALS);
  if (typeof d === 'string') return d;
  if (!d.greaterThan(0)) return 'must be greater than 0';
  if (d.greaterThanOrEqualTo(RATE_LIMIT)) return 'must be below 1000000000000';
  return d;
}

/** A rate in a response: its exact digits as a JSON number, trailing zeros dropped (7.4612, not 7.461200). */
export const exchangeRateToJson = (value: { toString(): string }): number => quantityToJson(value);

/**
 * An amount in foreign currency in DKK: the exact product (decimal.js, precision 40: 17 digits times 18
 * digits), rounded half up to øre once. Per line, never per document total (decision 191).
 * 100.00 EUR × 7.4612 = 746.12; 0.01 USD × 6.4530 = 0.06453 -> 0.06.
 */
export function toDkk(amount: Decimal, rate: Decimal): Decimal {
  return roundOere(new Decimal(amount).times(rate));
}

/** A journal line's registration in foreign currency (bogføringsloven § 15): the currency, the amount in it and the rate used. */
export interface ForeignAmount {
  currency: string;
  amount: Decimal;
  rate: Decimal;
}

/** Why `dkk` is not `foreign` converted (toDkk), or undefined when it is: the rule every foreign journal line keeps. */
export function foreignMismatch(dkk: Decimal, foreign: ForeignAmount): string | undefined {
  const expected = toDkk(foreign.amount, foreign.rate);
  if (expected.equals(dkk)) return undefined;
  return (
    `must equal currency_amount × exchange_rate rounded to øre: ${foreign.amount.toFixed(2)} ${foreign.currency} × ` +
    `${foreign.rate.toFixed()} = ${expected.toFixed(2)} DKK, not ${dkk.toFixed(2)}`
  );
}

/** The three currency fields of an input line, each optional. */
export interface ForeignInput {
  currency?: string | undefined;
  currency_amount?: Decimal | undefined;
  exchange_rate?: Decimal | undefined;
}

const FOREIGN_FIELDS = ['currency', 'currency_amount', 'exchange_rate'] as const;

/**
 * The foreign registration an input line gives: all three fields, or none for a DKK line. DKK itself is
 * refused: the debit or credit already is the DKK amount, and a second copy of it could only disagree.
 * `field` is the line's name in the request (lines[2]).
 */
export function foreignOf(line: ForeignInput, field: string): ForeignAmount | undefined {
  if (FOREIGN_FIELDS.every((f) => line[f] === undefined)) return undefined;
  if (line.currency === LEDGER_CURRENCY) {
    throw invalidRequest(`DKK is the ledger's currency: leave currency, currency_amount and exchange_rate out of a DKK line.`, `${field}.currency`);
  }
  const missing = FOREIGN_FIELDS.find((f) => line[f] === undefined);
  if (missing)
    throw invalidRequest(
      `A line in foreign currency gives currency, currency_amount and exchange_rate together; ${missing} is missing.`,
      `${field}.${missing}`,
    );
  return { currency: line.currency!, amount: line.currency_amount!, rate: line.exchange_rate! };
}

/**
 * How far back a rate of the company's table serves a date: a week. Nationalbanken quotes on Danish
 * banking days only; the longest gap, Maundy Thursday to Easter Monday, is 5 days, and Christmas with a
 * weekend comes close. An older rate is no rate of that day (decision 192).
 */
export const RATE_LOOKBACK_DAYS = 7;

// Danmarks Nationalbank's reference rates (https://www.nationalbanken.dk/api/currencyratesxml?lang=da,
// and the 5-day and history files): per `dailyrates id="YYYY-MM-DD"`, `currency code rate` with the rate
// in DKK per 100 units, written with a decimal comma (lang=da) or point (lang=en). The root's refamt="1"
// notwithstanding, the figures are per 100 (EUR 746,12).

/** One reference rate, per 1 unit (the file's figure ÷ 100). */
export interface ReferenceRate {
  currency: Currency;
  date: string;
  rate: Decimal;
}

export interface NationalbankenFile {
  rates: ReferenceRate[];
  /** Codes left out, once each: not a currency a document can be in (XDR, the IMF's drawing right), or quoted as "-" (no rate that day). */
  skipped: { code: string; reason: string }[];
}

const NATIONALBANKEN_PER = 100;
/** Per 100 units, with at most 4 decimals: a decimal point or comma, no thousands separator (never guessed at). */
const FILE_RATE_DECIMALS = 4;
/** The 5-day and history files hold every quoted day since 1977: some MB. */
const NATIONALBANKEN_LIMITS = { maxBytes: 64 * 1024 * 1024 };

/**
 * Reads a Nationalbanken reference-rate file. Refuses (400 invalid_request) anything malformed, naming the
 * line and the element: XML the safe-XML policy refuses, another root or reference currency, a dailyrates
 * without a valid date, a currency without a code or with a rate that is not a positive decimal, one
 * currency twice on one date.
 */
export function parseNationalbankenXml(text: string): NationalbankenFile {
  const root = readXmlDocument(text, NATIONALBANKEN_LIMITS, (e) => xmlRefused(e, 'invalid_request', 'Not a Nationalbanken rate file: '));
  const refuse = (node: XmlElement, element: string, why: string) => invalidRequest(`Not a Nationalbanken rate file: line ${node.line}: <${element}> ${why}.`);

  if (root.name !== 'exchangerates') throw invalidRequest(`Not a Nationalbanken rate file: the root element is <${root.name}>, not <exchangerates>.`);
  if (root.attributes.refcur !== LEDGER_CURRENCY) throw refuse(root, 'exchangerates', `has refcur "${root.attributes.refcur ?? 'undefined'}", not DKK`);
  const days = children(root, 'dailyrates');
  if (!days.length) throw refuse(root, 'exchangerates', 'holds no <dailyrates>');
  const stranger = root.children.find((c) => c.name !== 'dailyrates');
  if (stranger) throw refuse(root, 'exchangerates', `holds <${stranger.name}>, which is not <dailyrates>`);

  const rates: ReferenceRate[] = [];
  const skipped = new Map<string, string>();
  const seen = new Set<string>();
  for (const day of days) {
    const date = day.attributes.id ?? '';
    if (checkDate(date)) throw refuse(day, 'dailyrates', `has id "${date}", which is not a date YYYY-MM-DD`);
    const other = day.children.find((c) => c.name !== 'currency');
    if (other) throw refuse(day, `dailyrates id="${date}"`, `holds <${other.name}>, which is not <currency>`);
    for (const item of day.children) {
      const code = item.attributes.code ?? '';
      const figure = item.attributes.rate ?? '';
      const element = `currency code="${code}"`;
      if (!/^[A-Z]{3}$/.test(code)) throw refuse(item, element, 'needs a code of three upper-case letters');
      if (figure === '-') {
        skipped.set(code, 'no rate quoted');
        continue;
      }
      // The comma of the Danish edition is the decimal sign: money.ts reads the rest, unsigned.
      const perHundred = figure.startsWith('-') ? 'is negative' : parseDecimalText(figure.replace(',', '.'), FILE_RATE_DECIMALS);
      if (typeof perHundred === 'string') {
        throw refuse(item, element, `has rate "${figure}", not a decimal number per 100 units such as 746,12 with at most 4 decimals`);
      }
      if (!isCurrency(code) || code === LEDGER_CURRENCY) {
        skipped.set(code, code === LEDGER_CURRENCY ? 'the reference currency' : 'not an ISO 4217 currency of documents');
        continue;
      }
      const rate = perHundred.dividedBy(NATIONALBANKEN_PER);
      if (!rate.greaterThan(0)) throw refuse(item, element, `has rate "${figure}", which is not greater than 0`);
      if (seen.has(`${code} ${date}`)) throw refuse(item, element, `is given twice for ${date}`);
      seen.add(`${code} ${date}`);
      rates.push({ currency: code, date, rate });
    }
  }
  return { rates, skipped: [...skipped].map(([code, reason]) => ({ code, reason })) };
}
