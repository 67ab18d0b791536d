import { describe, expect, it } from 'vitest';
import { DomainError } from '../errors.ts';
import { Decimal } from '../money.ts';
import { checkCurrency, CURRENCIES, foreignMismatch, foreignOf, isCurrency, parseExchangeRate, parseNationalbankenXml, toDkk } from './rules.ts';

const d = (s: string) => new Decimal(s);
/** The DomainError `f` throws (the test fails when it throws none). */
function refusal(f: () => unknown): DomainError {
  try {
    f();
  } catch (e) {
    if (e instanceof DomainError) return e;
    throw e;
  }
  throw new Error('expected a DomainError');
}

describe('currencies', () => {
  it('are ISO 4217 codes of documents: three upper-case letters, sorted, once each', () => {
    expect(CURRENCIES.length).toBe(158);
    expect([...CURRENCIES].sort()).toEqual([...CURRENCIES]);
    expect(new Set(CURRENCIES).size).toBe(CURRENCIES.length);
    for (const c of CURRENCIES) expect(c).toMatch(/^[A-Z]{3}$/);
  });

  it('knows the currencies of Danish trade and the recent ones, not funds, units of account, metals or withdrawn codes', () => {
    for (const c of ['DKK', 'EUR', 'SEK', 'NOK', 'USD', 'GBP', 'ISK', 'JPY', 'XCG', 'ZWG', 'SLE', 'VED']) expect(isCurrency(c), c).toBe(true);
    for (const c of ['XDR', 'XAU', 'XTS', 'XXX', 'CLF', 'CHE', 'HRK', 'SLL', 'ZWL', 'DEM', 'eur', 'EURO', '']) expect(isCurrency(c), c).toBe(false);
  });

  it('says what is wrong with a code', () => {
    expect(checkCurrency('EUR')).toBeUndefined();
    expect(checkCurrency('eur')).toBe('must be an ISO 4217 currency code of three upper-case letters, such as EUR');
    expect(checkCurrency('E1R')).toMatch(/three upper-case letters/);
    expect(checkCurrency('HRK')).toBe('must be an active ISO 4217 currency code; HRK is not one');
  });
});

describe('exchange rates', () => {
  it('accept a positive decimal with at most 6 decimals, as a JSON number or a decimal string', () => {
    expect(parseExchangeRate(7.4612)).toEqual(d('7.4612'));
    expect(parseExchangeRate('0.000376')).toEqual(d('0.000376'));
    expect(parseExchangeRate(' 1 ')).toEqual(d('1'));
  });

  it('refuse zero, negatives, a seventh decimal, what is not a decimal, and what the column cannot hold', () => {
    expect(parseExchangeRate(0)).toBe('must be greater than 0');
    expect(parseExchangeRate('-7.46')).toBe('must be greater than 0');
    expect(parseExchangeRate('7.4612345')).toBe('must have at most 6 decimals');
    expect(parseExchangeRate(1e-7)).toBe('must have at most 6 decimals');
    expect(parseExchangeRate('7,46')).toBe('must be a decimal number');
    expect(parseExchangeRate(true)).toBe('must be a decimal number');
    expect(parseExchangeRate('1000000000000')).toBe('must be below 1000000000000');
    expect(parseExchangeRate('999999999999.999999')).toEqual(d('999999999999.999999'));
  });
});

describe('toDkk', () => {
  it('multiplies exactly and rounds half up (away from zero) to øre once', () => {
    expect(toDkk(d('100.00'), d('7.4612')).toFixed(2)).toBe('746.12');
    expect(toDkk(d('1.50'), d('1.05')).toFixed(2)).toBe('1.58'); // 1.575
    expect(toDkk(d('0.01'), d('0.5')).toFixed(2)).toBe('0.01'); // 0.005
    expect(toDkk(d('-0.01'), d('0.5')).toFixed(2)).toBe('-0.01');
    expect(toDkk(d('0.01'), d('0.000376')).toFixed(2)).toBe('0.00');
    expect(toDkk(d('0.01'), d('0.000376')).isNegative()).toBe(false);
    // In doubles 0.1 × 3 is 0.30000000000000004 and 1.005 × 1000 is 1004.9999999999999.
    expect(toDkk(d('0.10'), d('3')).toFixed(2)).toBe('0.30');
    expect(toDkk(d('1000.00'), d('1.005')).toFixed(2)).toBe('1005.00');
    expect(toDkk(d('999999999999999.99'), d('0.999999')).toFixed(2)).toBe('999998999999999.99');
    expect(toDkk(d('123456789012.35'), d('999999.999999')).toFixed(2)).toBe('123456789012226543.21');
  });

  it('is what a foreign journal line must carry in DKK', () => {
    const eur = { currency: 'EUR', amount: d('100.00'), rate: d('7.4612') };
    expect(foreignMismatch(d('746.12'), eur)).toBeUndefined();
    expect(foreignMismatch(d('746.13'), eur)).toBe('must equal currency_amount × exchange_rate rounded to øre: 100.00 EUR × 7.4612 = 746.12 DKK, not 746.13');
  });
});

describe('a line in foreign currency', () => {
  const full = { currency: 'EUR', currency_amount: d('100'), exchange_rate: d('7.4612') };

  it('gives all three fields or none', () => {
    expect(foreignOf({}, 'lines[0]')).toBeUndefined();
    expect(foreignOf(full, 'lines[0]')).toEqual({ currency: 'EUR', amount: d('100'), rate: d('7.4612') });
    expect(refusal(() => foreignOf({ ...full, exchange_rate: undefined }, 'lines[1]'))).toMatchObject({
      code: 'invalid_request',
      field: 'lines[1].exchange_rate',
    });
    expect(refusal(() => foreignOf({ currency_amount: d('1') }, 'lines[2]')).field).toBe('lines[2].currency');
  });

  it('is never in DKK: the debit or credit is the DKK amount already', () => {
    expect(refusal(() => foreignOf({ ...full, currency: 'DKK' }, 'lines[0]')).field).toBe('lines[0].currency');
  });
});

const file = (days: string, root = 'exchangerates type="Valutakurser" author="Danmarks Nationalbank" refcur="DKK" refamt="1"') =>
  `<?xml version="1.0" encoding="utf-8"?>\n<${root}>\n${days}\n</${root.split(' ')[0]}>\n`;
const day = (date: string, ...currencies: string[]) => `  <dailyrates id="${date}">\n${currencies.map((c) => `    ${c}\n`).join('')}  </dailyrates>`;
const cur = (code: string, rate: string) => `<currency code="${code}" desc="x" rate="${rate}" />`;
const rates = (text: string) => parseNationalbankenXml(text).rates.map((r) => `${r.currency} ${r.date} ${r.rate.toFixed()}`);
/** The detail of the refusal of `text`. */
const refused = (text: string) => refusal(() => parseNationalbankenXml(text)).message;

describe('Nationalbanken reference rates', () => {
  it('reads the Danish edition (decimal comma), per 100 units, as rates per 1 unit, exactly', () => {
    const text = file(day('2026-11-26', cur('EUR', '746,12'), cur('USD', '645,30'), cur('IDR', '0,0376'), cur('JPY', '4,0402')));
    expect(rates(text)).toEqual(['EUR 2026-11-26 7.4612', 'USD 2026-11-26 6.453', 'IDR 2026-11-26 0.000376', 'JPY 2026-11-26 0.040402']);
  });

  it('reads the English edition (decimal point) with its byte order mark, and the 5-day and history files (several dailyrates)', () => {
    const text = '\uFEFF' + file([day('2026-11-26', cur('EUR', '746.12')), day('2026-11-25', cur('EUR', '746.10'), cur('SEK', '68.5'))].join('\n'));
    expect(rates(text)).toEqual(['EUR 2026-11-26 7.4612', 'EUR 2026-11-25 7.461', 'SEK 2026-11-25 0.685']);
  });

  it("leaves out the IMF's drawing right and a currency without a quotation, naming them once", () => {
    const text = file([day('2026-11-26', cur('EUR', '746,12'), cur('XDR', '889,01'), cur('RUB', '-')), day('2026-11-25', cur('XDR', '888,00'))].join('\n'));
    const parsed = parseNationalbankenXml(text);
    expect(parsed.rates.map((r) => r.currency)).toEqual(['EUR']);
    expect(parsed.skipped).toEqual([
      { code: 'XDR', reason: 'not an ISO 4217 currency of documents' },
      { code: 'RUB', reason: 'no rate quoted' },
    ]);
  });

  it('refuses XML that is not well-formed, naming the line and column', () => {
    expect(refused(file(day('2026-11-26', cur('EUR', '746,12')).replace('</dailyrates>', '')))).toMatch(
      /^Not a Nationalbanken rate file: line 6, column \d+: it is not well-formed XML: unexpected close tag/,
    );
    expect(refused('garbage')).toMatch(/^Not a Nationalbanken rate file: line 1, column \d+: it is not well-formed XML/);
    expect(refused(file(day('2026-11-26', '<currency code="EUR" rate="1" rate="2" />')))).toMatch(
      /line 4, column \d+: it is not well-formed XML: duplicate attribute: rate/,
    );
  });

  it('refuses a DOCTYPE as every XML reader does, with the rule in the problem', () => {
    const e = refusal(() => parseNationalbankenXml(`<!DOCTYPE x [<!ENTITY a "b">]>\n${file(day('2026-11-26', cur('EUR', '746,12')))}`));
    expect(e.message).toMatch(/^Not a Nationalbanken rate file: line 1, column \d+: it declares a document type/);
    expect(e.extensions.xml).toMatchObject({ rule: 'doctype', line: 1 });
  });

  it('refuses a hostile file by the same bounds as every XML reader: nesting, a NUL, a rate that is no number', () => {
    const deep = refusal(() => parseNationalbankenXml(file(`${'<dailyrates>'.repeat(30_000)}${'</dailyrates>'.repeat(30_000)}`)));
    expect([deep.code, deep.extensions.xml]).toEqual(['invalid_request', { rule: 'depth', limit: 64, line: 3, column: expect.any(Number) }]);
    expect(refusal(() => parseNationalbankenXml(file(day('2026-11-26', cur('E\u0000UR', '746,12'))))).extensions.xml).toMatchObject({ rule: 'character' });
    expect(refused(file(day('2026-11-26', cur('EUR', 'abc'))))).toMatch(/has rate "abc", not a decimal number/);
  });

  it('refuses another file, another reference currency and an empty one', () => {
    expect(refused('<rss version="2.0"><channel/></rss>')).toBe('Not a Nationalbanken rate file: the root element is <rss>, not <exchangerates>.');
    expect(refused(file(day('2026-11-26', cur('EUR', '1')), 'exchangerates refcur="EUR"'))).toBe(
      'Not a Nationalbanken rate file: line 2: <exchangerates> has refcur "EUR", not DKK.',
    );
    expect(refused(file(''))).toBe('Not a Nationalbanken rate file: line 2: <exchangerates> holds no <dailyrates>.');
  });

  it('refuses a bad element, naming its line and the element', () => {
    const one = (c: string, date = '2026-11-26') => refused(file(day(date, cur('EUR', '746,12'), c)));
    expect(one(cur('USD', '645,30'), '2026-11-31')).toBe(
      'Not a Nationalbanken rate file: line 3: <dailyrates> has id "2026-11-31", which is not a date YYYY-MM-DD.',
    );
    expect(one(cur('USD', 'abc'))).toBe(
      'Not a Nationalbanken rate file: line 5: <currency code="USD"> has rate "abc", not a decimal number per 100 units such as 746,12 with at most 4 decimals.',
    );
    expect(one(cur('USD', '645,12345'))).toMatch(/line 5: <currency code="USD"> has rate "645,12345"/);
    // A thousands separator is refused, never read as a decimal point.
    expect(one(cur('KWD', '2.100,50'))).toMatch(/line 5: <currency code="KWD"> has rate "2.100,50"/);
    expect(one(cur('USD', '0,00'))).toBe('Not a Nationalbanken rate file: line 5: <currency code="USD"> has rate "0,00", which is not greater than 0.');
    expect(one(cur('usd', '645,30'))).toBe('Not a Nationalbanken rate file: line 5: <currency code="usd"> needs a code of three upper-case letters.');
    expect(one('<currency rate="645,30" />')).toBe('Not a Nationalbanken rate file: line 5: <currency code=""> needs a code of three upper-case letters.');
    expect(one(cur('EUR', '746,13'))).toBe('Not a Nationalbanken rate file: line 5: <currency code="EUR"> is given twice for 2026-11-26.');
    expect(one('<rate code="USD" />')).toBe('Not a Nationalbanken rate file: line 3: <dailyrates id="2026-11-26"> holds <rate>, which is not <currency>.');
  });
});
