// camt.053 read as it streams. The documents are written here by hand after the ISO 20022 message
// definitions of camt.053.001.02 and .001.08 (the element names and nesting of BkToCstmrStmt); the HTTP
// tests (apps/server/test/bank-statements.test.ts) cover .06 and the import around the parser.
import { describe, expect, it } from 'vitest';
import type { DomainError } from '../../errors.ts';
import { parseCamt053, type CamtContext } from './camt053.ts';
import type { BankFileLine, StatementHead } from './types.ts';

async function parse(xml: string, chunk = 13, ctx: CamtContext = { currency: 'DKK', account: { iban: '', bban: '' } }) {
  const bytes = new TextEncoder().encode(xml);
  async function* source() {
    for (let i = 0; i < bytes.length; i += chunk) yield bytes.subarray(i, i + chunk);
  }
  const gen = parseCamt053(source(), ctx);
  const lines: BankFileLine[] = [];
  let step = await gen.next();
  while (!step.done) {
    lines.push(...step.value);
    step = await gen.next();
  }
  return { lines, head: step.value as StatementHead };
}
const failure = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: DomainError) => ({ code: e.code, field: e.field, line: e.extensions.line, xml: e.extensions.xml, detail: e.message }),
  );

const doc = (ns: string, stmts: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:${ns}"><BkToCstmrStmt><GrpHdr><MsgId>1</MsgId></GrpHdr>${stmts}</BkToCstmrStmt></Document>`;
const bal = (code: string, amt: string, ind = 'CRDT') =>
  `<Bal><Tp><CdOrPrtry><Cd>${code}</Cd></CdOrPrtry></Tp><Amt Ccy="DKK">${amt}</Amt><CdtDbtInd>${ind}</CdtDbtInd></Bal>`;
const V02_ENTRY = `<Ntry><Amt Ccy="DKK">100.00</Amt><CdtDbtInd>DBIT</CdtDbtInd><Sts>BOOK</Sts><BookgDt><Dt>2026-03-01</Dt></BookgDt>
  <NtryDtls><TxDtls><Refs><EndToEndId>E1</EndToEndId></Refs><RltdPties><Dbtr><Nm>Os selv</Nm></Dbtr><Cdtr><Nm>El-selskabet</Nm></Cdtr>
  <CdtrAcct><Id><IBAN>DK95 2000 0123 4567 89</IBAN></Id></CdtrAcct></RltdPties><RmtInf><Ustrd>Regning</Ustrd><Ustrd>marts</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>`;
const V08_ENTRY = `<Ntry><Amt Ccy="DKK">250.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts><BookgDt><DtTm>2026-03-02T08:00:00Z</DtTm></BookgDt>
  <AcctSvcrRef>R-8</AcctSvcrRef><NtryDtls><TxDtls><RltdPties><Dbtr><Pty><Nm>Kunde</Nm></Pty></Dbtr></RltdPties>
  <RmtInf><Strd><CdtrRefInf><Ref>+71000000012345674</Ref></CdtrRefInf></Strd></RmtInf><AddtlTxInf>Indbetaling</AddtlTxInf></TxDtls></NtryDtls></Ntry>`;

describe('parseCamt053', () => {
  it('reads a .02 entry: sign by CdtDbtInd, the creditor as counterparty of money out, Ustrd joined, end-to-end id as reference', async () => {
    const { lines, head } = await parse(doc('camt.053.001.02', `<Stmt><Id>S1</Id>${bal('OPBD', '500.00')}${bal('CLBD', '400.00')}${V02_ENTRY}</Stmt>`));
    expect(lines).toHaveLength(1);
    expect({ ...lines[0], amount: lines[0]!.amount.toFixed(2) }).toEqual({
      n: 1,
      booking_date: '2026-03-01',
      value_date: null,
      amount: '-100.00',
      text: 'Regning marts',
      counterparty_name: 'El-selskabet',
      counterparty_iban: 'DK9520000123456789',
      reference: 'E1',
      bank_reference: '',
    });
    expect(head).toMatchObject({ format: 'camt.053.001.02', statement_ref: 'S1', balance_status: 'ok', balance_difference: null, from_date: '2026-03-01' });
  });
  it('reads a .08 entry (Sts/Cd, DtTm, Dbtr/Pty/Nm); several statements are checked one by one; a DBIT balance is negative', async () => {
    const s1 = `<Stmt><Id>A</Id>${bal('PRCD', '10.00', 'DBIT')}${bal('CLBD', '240.00')}${V08_ENTRY}</Stmt>`;
    const s2 = `<Stmt><Id>B</Id>${bal('OPBD', '240.00')}${bal('CLBD', '241.00')}</Stmt>`;
    const { lines, head } = await parse(doc('camt.053.001.08', s1 + s2));
    expect(lines[0]).toMatchObject({
      booking_date: '2026-03-02',
      counterparty_name: 'Kunde',
      reference: '+71000000012345674',
      bank_reference: 'R-8',
      text: 'Indbetaling',
    });
    expect(head).toMatchObject({ statement_ref: 'A, B', balance_status: 'mismatch' });
    expect([head.opening?.toFixed(2), head.closing?.toFixed(2), head.balance_difference?.toFixed(2)]).toEqual(['-10.00', '241.00', '1.00']);
  });
  it('refuses other namespaces, DOCTYPE, text that is not XML, and names the entry and field of a bad value', async () => {
    expect(await failure(parse(doc('camt.053.001.09', '<Stmt/>')))).toMatchObject({ code: 'bank_file_invalid', field: 'Document' });
    expect(await failure(parse(doc('camt.052.001.02', '<Stmt/>')))).toMatchObject({ field: 'Document' });
    expect(await failure(parse(doc('camt.054.001.02', '<Stmt/>')))).toMatchObject({ field: 'BkToCstmrStmt' });
    expect(await failure(parse(`<!DOCTYPE x [<!ENTITY a "b">]>${doc('camt.053.001.02', '')}`))).toMatchObject({ field: 'body' });
    expect(await failure(parse('not xml'))).toMatchObject({ field: 'body' });
    const bad = V02_ENTRY.replace('<CdtDbtInd>DBIT</CdtDbtInd>', '<CdtDbtInd>X</CdtDbtInd>');
    expect(await failure(parse(doc('camt.053.001.02', `<Stmt><Id>S</Id>${V02_ENTRY}${bad}</Stmt>`)))).toMatchObject({ line: 2, field: 'CdtDbtInd' });
    expect(
      await failure(parse(doc('camt.053.001.02', `<Stmt><Id>S</Id>${V02_ENTRY}</Stmt>`), 13, { currency: 'EUR', account: { iban: '', bban: '' } })),
    ).toMatchObject({
      line: 1,
      field: 'Amt/@Ccy',
    });
  });

  it('refuses 30,000 nested elements at the nesting limit, in linear time, as every XML reader does', async () => {
    const deep = doc('camt.053.001.02', `<Stmt><Id>S</Id><Ntry><NtryDtls>${'<X>'.repeat(30_000)}${'</X>'.repeat(30_000)}</NtryDtls></Ntry></Stmt>`);
    const started = performance.now();
    expect(await failure(parse(deep, 64 * 1024))).toMatchObject({
      code: 'bank_file_invalid',
      field: 'body',
      xml: { rule: 'depth', limit: 64, line: 1 },
      detail: expect.stringMatching(/^The statement is not XML this service reads: line 1, column \d+: elements are nested deeper than 64 levels\.$/),
    });
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('keeps the texts it reads with their entities decoded', async () => {
    const { lines } = await parse(doc('camt.053.001.02', `<Stmt><Id>S</Id>${V02_ENTRY.replace('El-selskabet', 'Jensen &amp; S&#248;n ApS')}</Stmt>`));
    expect(lines[0]!.counterparty_name).toBe('Jensen & Søn ApS');
  });

  it('takes each statement by the account it names: IBAN or a BBAN in Othr/Id; another account is refused by name, or skipped when asked', async () => {
    const stmt = (id: string, acct: string) => `<Stmt><Id>${id}</Id><Acct><Id>${acct}</Id><Ccy>DKK</Ccy></Acct>${V02_ENTRY}</Stmt>`;
    const mine = stmt('MINE', '<Othr><Id>0040-0440116243</Id></Othr>');
    const theirs = stmt('THEIRS', '<IBAN>DK9520000123456789</IBAN>');
    const target = { currency: 'DKK', account: { iban: 'DK5000400440116243', bban: '00400440116243' } };
    expect((await parse(doc('camt.053.001.02', mine), 13, target)).lines).toHaveLength(1);
    const refused = await failure(
      parse(doc('camt.053.001.02', mine + theirs), 13, {
        ...target,
        others: [{ id: 'B-2', name: 'Opsparing', iban: 'DK9520000123456789', bban: '20000123456789' }],
      }),
    );
    expect(refused).toMatchObject({ code: 'bank_file_invalid', field: 'Stmt/Acct/Id/IBAN' });
    expect(refused!.detail).toContain('statement "THEIRS" is of account DK9520000123456789');
    expect(refused!.detail).toContain('bank account "Opsparing" (B-2)');
    const skipped = await parse(doc('camt.053.001.02', theirs + mine), 13, { ...target, otherAccounts: 'skip' });
    expect(skipped.lines.map((l) => l.n)).toEqual([2]);
    expect(skipped.head.statement_ref).toBe('MINE');
    expect(await failure(parse(doc('camt.053.001.02', theirs), 13, { ...target, otherAccounts: 'skip' }))).toMatchObject({ field: 'Stmt/Acct' });
    // A target without an IBAN or account number takes one account's file, never two accounts' as one.
    const blank = { currency: 'DKK', account: { iban: '', bban: '' } };
    expect((await parse(doc('camt.053.001.02', theirs + theirs), 13, blank)).lines).toHaveLength(2);
    expect(await failure(parse(doc('camt.053.001.02', mine + theirs), 13, blank))).toMatchObject({ field: 'Stmt/Acct/Id/IBAN' });
    // Nor a statement of another of the company's bank accounts.
    const savings = [{ id: 'B-2', name: 'Opsparing', iban: 'DK9520000123456789', bban: '20000123456789' }];
    expect(await failure(parse(doc('camt.053.001.02', theirs), 13, { ...blank, others: savings }))).toMatchObject({
      field: 'Stmt/Acct/Id/IBAN',
      detail: expect.stringContaining('bank account "Opsparing" (B-2)') as unknown,
    });
    expect((await parse(doc('camt.053.001.02', theirs + mine), 13, { ...blank, others: savings, otherAccounts: 'skip' })).lines.map((l) => l.n)).toEqual([2]);
  });

  it('reads camt.054: a batch entry is a line per TxDtls with its own amount and FI payment id; the parts must add up', async () => {
    const tx = (amount: string, ref: string) =>
      `<TxDtls><Refs><EndToEndId>NOTPROVIDED</EndToEndId></Refs><AmtDtls><TxAmt><Amt Ccy="DKK">${amount}</Amt></TxAmt></AmtDtls><RmtInf><Strd><CdtrRefInf><Tp><CdOrPrtry><Prtry>71</Prtry></CdOrPrtry></Tp><Ref>${ref}</Ref></CdtrRefInf></Strd></RmtInf></TxDtls>`;
    const batch = (total: string) =>
      `<Ntfctn><Id>N1</Id><Acct><Id><IBAN>DK5000400440116243</IBAN></Id></Acct><Ntry><Amt Ccy="DKK">${total}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts><BookgDt><Dt>2026-11-27</Dt></BookgDt><AcctSvcrRef>FI-27</AcctSvcrRef><NtryDtls><Btch><NbOfTxs>2</NbOfTxs></Btch>${tx('100.00', '000000012345674')}${tx('50.50', '000000000000018')}</NtryDtls></Ntry></Ntfctn>`;
    const notif = (body: string) =>
      `<?xml version="1.0" encoding="UTF-8"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.054.001.02"><BkToCstmrDbtCdtNtfctn><GrpHdr><MsgId>1</MsgId></GrpHdr>${body}</BkToCstmrDbtCdtNtfctn></Document>`;
    const { lines, head } = await parse(notif(batch('150.50')));
    expect(lines.map((l) => [l.amount.toFixed(2), l.reference, l.bank_reference])).toEqual([
      ['100.00', '000000012345674', 'FI-27/1'],
      ['50.50', '000000000000018', 'FI-27/2'],
    ]);
    expect(head).toMatchObject({ format: 'camt.054.001.02', statement_ref: 'N1', balance_status: 'not_stated' });
    expect(await failure(parse(notif(batch('150.00'))))).toMatchObject({ line: 1, field: 'NtryDtls/TxDtls' });
    // Transactions without amounts of their own: the entry is one line, its first TxDtls giving the reference.
    const bare = await parse(notif(batch('150.50').replace(/<AmtDtls>.*?<\/AmtDtls>/g, '')));
    expect(bare.lines.map((l) => [l.amount.toFixed(2), l.reference, l.bank_reference])).toEqual([['150.50', '000000012345674', 'FI-27']]);
  });
});
