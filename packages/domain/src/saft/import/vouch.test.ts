// The fast path of the SAF-T XSD check vouches only for what libxml2 finds valid too: valid
// transactions of the plain shape are vouched for (and libxml2 agrees, in one document), and each
// mutation that breaks the schema is not (libxml2 then gives the verdict).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateXML } from 'xmllint-wasm';
import type { DomainError } from '../../errors.ts';
import { checkSaftSchema, MAX_SKELETON_CHARS } from './schema-check.ts';
import { vouchedTransaction } from './vouch.ts';

const XSD = readFileSync(join(import.meta.dirname, '..', '..', '..', '..', '..', 'prisma', 'seed', 'saft', 'Danish_SAF-T_Financial_Schema.xsd'), 'utf8');
const amount = (side: string, a: string, cur = 'DKK', rate = '1') =>
  `<${side}><Amount>${a}</Amount><CurrencyCode>${cur}</CurrencyCode><CurrencyAmount>${a}</CurrencyAmount><ExchangeRate>${rate}</ExchangeRate></${side}>`;
const line = (n: number, side: string, a: string, extra = '') =>
  `<Line><RecordID>${n}</RecordID><AccountID>1010</AccountID>${extra}<Description>Salg &amp; moms</Description>${amount(side, a)}</Line>`;
const tx = (head = '', lines = line(1, 'DebitAmount', '100.00') + line(2, 'CreditAmount', '100')) =>
  `<Transaction><TransactionID>1</TransactionID><Period>1</Period><PeriodYear>2026</PeriodYear><TransactionDate>2026-02-28</TransactionDate>${head}` +
  `<Description>Salg</Description><SystemEntryDate>2026-03-01</SystemEntryDate><GLPostingDate>2026-03-01</GLPostingDate><SystemID>1</SystemID>${lines}</Transaction>`;
const PRETTY = tx().replace(/></g, '>\n  <');

const VALID = [
  tx(),
  PRETTY,
  tx('<TransactionType>manual</TransactionType>'),
  tx('', line(1, 'DebitAmount', '7461.20', '<ValueDate>2026-02-28</ValueDate><SourceDocumentID>abc</SourceDocumentID>') + line(2, 'CreditAmount', '7461.2')),
];
const INVALID = [
  tx().replace('2026-02-28', '2026-02-30'),
  tx().replace('<PeriodYear>2026', '<PeriodYear>1969'),
  tx().replace('<Amount>100.00</Amount>', '<Amount>100.001</Amount>'),
  tx().replace('<Description>Salg</Description>', ''),
  tx().replace('<TransactionID>1</TransactionID>', `<TransactionID>${'x'.repeat(71)}</TransactionID>`),
  tx().replace('<RecordID>1</RecordID><AccountID>1010</AccountID>', '<AccountID>1010</AccountID><RecordID>1</RecordID>'),
  tx().replace('Salg &amp; moms', 'Salg & moms'),
  tx().replace('Salg</Description>', 'Salg\u0001</Description>'),
  tx().replace('<CurrencyCode>DKK</CurrencyCode>', ''),
  tx('', ''),
  tx().replace('<Transaction>', '<Transaction id="1">'),
];

describe('vouchedTransaction', () => {
  it('vouches for plain valid transactions (libxml2 agrees: checkSaftSchema below)', () => {
    for (const x of VALID) expect(vouchedTransaction(x), x).toBe(true);
  });
  it('vouches for none of the invalid ones', () => {
    for (const x of INVALID) expect(vouchedTransaction(x), x).toBe(false);
  });
});

describe('checkSaftSchema', () => {
  const file = (journal: string) =>
    '<?xml version="1.0" encoding="UTF-8"?>\n<AuditFile xmlns="urn:StandardAuditFile-Taxation-Financial:DK">' +
    '<Header><AuditFileVersion>1.0</AuditFileVersion><AuditFileCountry>DK</AuditFileCountry><AuditFileDateCreated>2026-01-01</AuditFileDateCreated><SoftwareCompanyName>x</SoftwareCompanyName>' +
    '<SoftwareID>x</SoftwareID><SoftwareVersion>1</SoftwareVersion><Company><CVR>12345678</CVR><Name>x</Name><Address><StreetName></StreetName><City></City><PostalCode></PostalCode>' +
    '<Country>DK</Country></Address><BankAccount><IBANNumber></IBANNumber></BankAccount></Company><DefaultCurrencyCode>DKK</DefaultCurrencyCode><SelectionCriteria>' +
    '<SelectionStartDate>2026-01-01</SelectionStartDate><SelectionEndDate>2026-12-31</SelectionEndDate></SelectionCriteria><TaxEntity>x</TaxEntity></Header>\n' +
    '<MasterFiles><GeneralLedgerAccounts><NameOfStandardAccount>Standardkontoplanen</NameOfStandardAccount><VersionOfStandardAccount>20230131</VersionOfStandardAccount><Account>' +
    '<AccountID>1010</AccountID><AccountDescription>x</AccountDescription><AccountType>Sale</AccountType><AccountCreationDate>2020-01-01</AccountCreationDate>' +
    '<OpeningCreditBalance>0</OpeningCreditBalance><ClosingCreditBalance>0</ClosingCreditBalance></Account></GeneralLedgerAccounts><TaxTable><TaxTableEntry><TaxType>VAT</TaxType>' +
    '<Description>VAT</Description><TaxCodeDetails><TaxCode>S25</TaxCode><EffectiveDate>2020-01-01</EffectiveDate><Description>x</Description><TaxPercentage>25</TaxPercentage>' +
    '<Country>DK</Country></TaxCodeDetails></TaxTableEntry></TaxTable></MasterFiles>\n<GeneralLedgerEntries><NumberOfEntries>1</NumberOfEntries><TotalDebit>0</TotalDebit>' +
    `<TotalCredit>0</TotalCredit>${journal}</GeneralLedgerEntries></AuditFile>\n`;
  const journal = (txs: string) => `<Journal><JournalID>GL</JournalID><Description>x</Description><Type>GL</Type>\n${txs}\n</Journal>`;
  const check = async (xml: string) => {
    async function* chunks() {
      // Small chunks: tags cut between chunks are put together again.
      for (let i = 0; i < xml.length; i += 100) yield xml.slice(i, i + 100);
    }
    try {
      await checkSaftSchema(chunks());
      return 'valid';
    } catch (e) {
      return (e as Error).message;
    }
  };

  it('passes a file of the vouched transactions, which libxml2 finds valid as a whole document too', async () => {
    const xml = file(journal(VALID.join('\n')));
    expect(await check(xml)).toBe('valid');
    const whole = await validateXML({ xml: [{ fileName: 'a.xml', contents: xml }], schema: [{ fileName: 's.xsd', contents: XSD }] });
    expect(whole.errors.map((e) => e.rawMessage)).toEqual([]);
  }, 30_000);

  it("names an invalid transaction's element and line; a transaction out of place is caught by the skeleton", async () => {
    const xml = file(journal([tx(), PRETTY, INVALID[0]!].join('\n')));
    const line = xml.slice(0, xml.indexOf('2026-02-30')).split('\n').length;
    expect(await check(xml)).toMatch(new RegExp(`^Line ${line}, TransactionDate: .*2026-02-30`));
    expect(await check(file(journal(tx()) + tx()))).toMatch(/^Line 6, Transaction: .*not expected/);
  }, 30_000);

  it('reads a comment, a CDATA section or a processing instruction that holds a Transaction tag as XML does: text, not an element', async () => {
    const quoted = tx().replace('<Description>Salg</Description>', '<Description><![CDATA[Salg </Transaction> <Transaction>]]></Description>');
    const xml = file(journal(`<!-- <Transaction> an old entry </Transaction> -->\n${tx()}\n<?note <Transaction>?>${quoted}\n<!-- <Transaction> -->`));
    expect(await check(xml)).toBe('valid');
    const whole = await validateXML({ xml: [{ fileName: 'a.xml', contents: xml }], schema: [{ fileName: 's.xsd', contents: XSD }] });
    expect(whole.errors.map((e) => e.rawMessage)).toEqual([]);
    // and an invalid transaction after them is still found, on its line
    const bad = file(journal(`<!-- <Transaction>\n -->\n${quoted}\n${INVALID[0]!}`));
    expect(await check(bad)).toMatch(new RegExp(`^Line ${bad.slice(0, bad.indexOf('2026-02-30')).split('\n').length}, TransactionDate`));
  }, 30_000);

  it('refuses master data beyond its bound by name, before libxml2 holds it', async () => {
    const account = (i: number) =>
      `<Account><AccountID>${i}</AccountID><AccountDescription>${'x'.repeat(200)}</AccountDescription><AccountType>Sale</AccountType><AccountCreationDate>2020-01-01</AccountCreationDate><OpeningCreditBalance>0</OpeningCreditBalance><ClosingCreditBalance>0</ClosingCreditBalance></Account>\n`;
    const xml = file(journal(tx())).replace(
      '</GeneralLedgerAccounts>',
      `${Array.from({ length: 120_000 }, (_, i) => account(i + 2000)).join('')}</GeneralLedgerAccounts>`,
    );
    expect(xml.length).toBeGreaterThan(MAX_SKELETON_CHARS);
    async function* chunks() {
      for (let i = 0; i < xml.length; i += 1024 * 1024) yield xml.slice(i, i + 1024 * 1024);
    }
    await expect(checkSaftSchema(chunks())).rejects.toThrow(/^Line \d+, MasterFiles: the file apart from its journal's transactions .* is larger than 32 MB/);
  }, 60_000);

  it('reads every chunk under the safe-XML policy first: a DOCTYPE or an entity never reaches libxml2', async () => {
    const refused = async (xml: string) => {
      try {
        await checkSaftSchema(
          (async function* () {
            yield xml;
          })(),
        );
      } catch (e) {
        return e as DomainError;
      }
    };
    const valid = file(journal(tx()));
    for (const doctype of ['<!DOCTYPE AuditFile [<!ENTITY e "x">]>', '<!DOCTYPE AuditFile SYSTEM "http://127.0.0.1:9/x.dtd">']) {
      const e = await refused(valid.replace('\n<AuditFile', `\n${doctype}<AuditFile`));
      expect([e?.code, e?.field, e?.extensions.xml?.rule, e?.extensions.line]).toEqual(['saft_file_invalid', 'body', 'doctype', 2]);
      expect(e?.message).toMatch(/^The file is not XML this service reads: line 2, column \d+: it declares a document type/);
    }
    const nul = await refused(valid.replace('<JournalID>GL', '<JournalID>G\u0000L'));
    expect(nul?.extensions.xml).toMatchObject({ rule: 'character', line: 4 });
  }, 30_000);
});
