import { fragment } from 'xmlbuilder2';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../errors.ts';
import { lineElement, lineShared, transactionStart, TRANSACTION_END, type JournalLine, type JournalTransaction } from './journal.ts';
import { generalLedgerAccountsXml, partiesXml } from './master-files.ts';
import { accountingPeriod, balanceSide, escapeText, fit, isCvr, saftAccountType, saftFilename, saftPeriod } from './rules.ts';

describe('the export period', () => {
  it('defaults to the fiscal year containing today, or containing the one bound given', () => {
    expect(saftPeriod({}, 1, '2026-04-10')).toEqual({ from: '2026-01-01', to: '2026-12-31' });
    expect(saftPeriod({}, 7, '2026-04-10')).toEqual({ from: '2025-07-01', to: '2026-06-30' });
    expect(saftPeriod({ from: '2026-03-01' }, 1, '2030-01-01')).toEqual({ from: '2026-03-01', to: '2026-12-31' });
    expect(saftPeriod({ to: '2026-03-31' }, 1, '2030-01-01')).toEqual({ from: '2026-01-01', to: '2026-03-31' });
    expect(saftPeriod({ from: '2026-02-01', to: '2026-02-01' }, 1, '2030-01-01')).toEqual({ from: '2026-02-01', to: '2026-02-01' });
  });

  it('refuses a date outside the years SAF-T can express, naming it', () => {
    expect(() => saftPeriod({ from: '1969-12-31' }, 1, '2026-01-01')).toThrow(/from must lie between 1970-01-01 and 2100-12-31/);
    expect(() => saftPeriod({ to: '2101-01-01' }, 1, '2026-01-01')).toThrow(/^to must lie/);
  });

  it('refuses from after to, naming from', () => {
    const err = (() => {
      try {
        saftPeriod({ from: '2026-05-01', to: '2026-04-30' }, 1, '2026-01-01');
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(DomainError);
    expect(err).toMatchObject({ status: 400, code: 'invalid_request', field: 'from' });
  });
});

describe('mapping', () => {
  it('maps account types to the schema enumeration (equity is Liability)', () => {
    expect(['asset', 'liability', 'equity', 'revenue', 'expense', 'odd'].map(saftAccountType)).toEqual([
      'Asset',
      'Liability',
      'Liability',
      'Sale',
      'Expense',
      'Other',
    ]);
  });

  it('numbers accounting periods from the first month of the fiscal year', () => {
    expect(accountingPeriod('2026-04-10', 1)).toEqual({ period: 4, year: 2026 });
    expect(accountingPeriod('2026-07-01', 7)).toEqual({ period: 1, year: 2026 });
    expect(accountingPeriod('2027-06-30', 7)).toEqual({ period: 12, year: 2026 });
    expect(accountingPeriod('2027-01-31', 7)).toEqual({ period: 7, year: 2026 });
  });

  it('recognises a CVR the schema accepts and names the file by CVR or company id', () => {
    expect([isCvr('12345674'), isCvr('01234567'), isCvr('1234567'), isCvr(null)]).toEqual([true, false, false, false]);
    const period = { from: '2026-01-01', to: '2026-12-31' };
    expect(saftFilename({ id: 'abc', cvr: '12345674' }, period)).toBe('saft-12345674-2026-01-01-2026-12-31.xml');
    expect(saftFilename({ id: 'abc', cvr: null }, period)).toBe('saft-abc-2026-01-01-2026-12-31.xml');
    expect(saftFilename({ id: 'abc', cvr: '12 "x' }, period)).toBe('saft-abc-2026-01-01-2026-12-31.xml');
  });
});

describe('text', () => {
  it('cuts at the limit counted in characters, not UTF-16 units, and drops what XML cannot carry', () => {
    expect(fit('Søren', 3)).toBe('Sør');
    expect(fit('ab😀cd', 3)).toBe('ab😀');
    expect(fit('😀😀', 2)).toBe('😀😀');
    expect(fit('a\u0001b\u0008c\td\u{FFFE}e\uD800f', 256)).toBe('abc\tdef');
    expect(fit(null, 5)).toBe('');
  });

  it('escapes the markup characters of character data', () => {
    expect(escapeText('a & b < c > d "e"')).toBe('a &amp; b &lt; c &gt; d "e"');
    expect(escapeText('plain')).toBe('plain');
  });
});

describe('amounts', () => {
  it('puts a balance on its side with a non-negative amount', () => {
    expect(balanceSide('1250.50')).toEqual({ side: 'Debit', amount: '1250.50' });
    expect(balanceSide('-0.01')).toEqual({ side: 'Credit', amount: '0.01' });
    expect(balanceSide('0.00')).toEqual({ side: 'Debit', amount: '0.00' });
  });
});

describe('XML', () => {
  const transaction = (over: Partial<JournalTransaction> = {}): JournalTransaction => ({
    system_id: 7,
    document_number: 12,
    date: '2026-03-05',
    description: 'Husleje <marts> & "varme"\u0001',
    source: 'manual',
    entry_date: '2026-03-06',
    voucher_id: null,
    ...over,
  });
  const line = (over: Partial<JournalLine & { account_number: string }> = {}) => ({
    line_number: 1,
    account_number: '2030',
    debit: '8000.00',
    credit: '0.00',
    line_description: '',
    currency: '',
    currency_amount: null,
    exchange_rate: null,
    ...over,
  });

  it('writes journal transactions exactly as xmlbuilder2 would', () => {
    const voucher = '0192f3a4-5b6c-7d8e-9f00-112233445566';
    const t = transaction({ voucher_id: voucher });
    const lines = [line(), line({ line_number: 2, account_number: '6470', debit: '0.00', credit: '8000.00', line_description: 'Bank ' + 'x'.repeat(300) })];
    const hand =
      transactionStart(t, 1) + lines.map((l) => lineElement(l, l.account_number, lineShared(t), l.debit !== '0.00', 'DKK')).join('') + TRANSACTION_END;
    const amount = (a: string) => ({ Amount: a, CurrencyCode: 'DKK', CurrencyAmount: a, ExchangeRate: '1' });
    const built = fragment({
      Transaction: {
        TransactionID: '12',
        Period: '3',
        PeriodYear: '2026',
        TransactionDate: '2026-03-05',
        TransactionType: 'manual',
        Description: 'Husleje <marts> & "varme"',
        SystemEntryDate: '2026-03-06',
        GLPostingDate: '2026-03-06',
        SystemID: '7',
        Line: [
          {
            RecordID: '1',
            AccountID: '2030',
            SourceDocumentID: '0192f3a45b6c7d8e9f00112233445566',
            Description: 'Husleje <marts> & "varme"',
            DebitAmount: amount('8000.00'),
          },
          {
            RecordID: '2',
            AccountID: '6470',
            SourceDocumentID: '0192f3a45b6c7d8e9f00112233445566',
            Description: 'Bank ' + 'x'.repeat(251),
            CreditAmount: amount('8000.00'),
          },
        ],
      },
    }).end();
    expect(hand).toBe(built);
  });

  it("writes a foreign-currency line's own currency, amount and rate (numeric text without trailing zeros), in the schema's order", () => {
    const t = transaction();
    const eur = line({ debit: '746.12', currency: 'EUR', currency_amount: '100.00', exchange_rate: '7.461200' });
    const usd = line({ line_number: 2, debit: '0.00', credit: '100.00', currency: 'USD', currency_amount: '15.50', exchange_rate: '6.451613' });
    const hand = [eur, usd].map((l) => lineElement(l, l.account_number, lineShared(t), l.debit !== '0.00', 'DKK')).join('');
    const built = fragment({
      Line: [
        {
          RecordID: '1',
          AccountID: '2030',
          Description: 'Husleje <marts> & "varme"',
          DebitAmount: { Amount: '746.12', CurrencyCode: 'EUR', CurrencyAmount: '100.00', ExchangeRate: '7.4612' },
        },
        {
          RecordID: '2',
          AccountID: '2030',
          Description: 'Husleje <marts> & "varme"',
          CreditAmount: { Amount: '100.00', CurrencyCode: 'USD', CurrencyAmount: '15.50', ExchangeRate: '6.451613' },
        },
      ],
    }).end();
    expect(hand).toBe(built);
  });

  it('writes accounts with the standard chart first and the balance choice on the right side', () => {
    const xml = generalLedgerAccountsXml([
      {
        account_number: '1010',
        name: 'Salg & ydelser',
        type: 'revenue',
        standard_account_id: '1010',
        created: '2026-01-01',
        opening: '-100.00',
        closing: '250.00',
      },
    ]);
    expect(xml).toBe(
      '<GeneralLedgerAccounts><NameOfStandardAccount>Standardkontoplanen</NameOfStandardAccount><VersionOfStandardAccount>20230131</VersionOfStandardAccount>' +
        '<Account><AccountID>1010</AccountID><AccountDescription>Salg &amp; ydelser</AccountDescription><StandardAccountID>1010</StandardAccountID>' +
        '<AccountType>Sale</AccountType><AccountCreationDate>2026-01-01</AccountCreationDate><OpeningCreditBalance>100.00</OpeningCreditBalance>' +
        '<ClosingDebitBalance>250.00</ClosingDebitBalance></Account></GeneralLedgerAccounts>',
    );
  });

  it('writes parties ID first and leaves out identifiers that do not fit rather than cutting them', () => {
    const party = {
      id: '01234567-89ab-cdef-0123-456789abcdef',
      name: 'Kunde',
      cvr: '',
      email: `${'a'.repeat(70)}@example.dk`,
      phone: '+45 12 34 56 78',
      contact_person: '',
      address_line1: '',
      address_line2: '',
      postal_code: '',
      city: '',
      country: 'se',
    };
    expect(partiesXml('Customer', [party])).toBe(
      '<Customer><CustomerID>0123456789abcdef0123456789abcdef</CustomerID><Name>Kunde</Name>' +
        '<Address><StreetName/><City/><PostalCode/><Country>SE</Country></Address><Contact><Telephone>+4512345678</Telephone></Contact></Customer>',
    );
    expect(partiesXml('Supplier', [])).toBe('');
  });
});
