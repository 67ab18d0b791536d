// ISO 20022 camt.053 (BankToCustomerStatement), versions .001.02 to .001.08, read as it streams under
// the safe-XML policy (xml/reader.ts): memory holds the entry being read and the chunk's finished
// entries, never the file.
// Read: each Stmt's Id, account, period and balances (OPBD or PRCD opening, CLBD closing), and each
// booked Ntry with its first TxDtls (references, remittance, related parties). docs/bank-statements.md.
import { Decimal, MAX_AMOUNT } from '../../money.ts';
import { readXmlStream, XmlPaths, XmlReader, xmlRefused } from '../../xml/reader.ts';
import { MAX_BANK_FILE_BYTES } from './staged.ts';
import { fileError, type BankFileLine, type BankFileParser, type StatementHead } from './types.ts';
import { isProblem, readIsoAmount, readIsoDate } from './values.ts';

export const CAMT053_NAMESPACE = /^urn:iso:std:iso:20022:tech:xsd:camt\.053\.001\.0([2-8])$/;

/** An entry as read so far: the raw texts by their path below Ntry. */
interface Entry {
  n: number;
  values: Map<string, string>;
  currency: string;
}

interface Statement {
  id: string;
  iban: string;
  currency: string;
  from: string;
  to: string;
  /** Balance code -> { amount text, sign, currency }. */
  balances: Map<string, { amount: string; indicator: string; currency: string }>;
  balance: { code: string; amount: string; indicator: string; currency: string } | undefined;
  sum: Decimal;
  lines: number;
}

/** The paths below Ntry whose text is kept (the first occurrence of each: one TxDtls per line). */
const ENTRY_FIELDS = new Set([
  'Amt',
  'CdtDbtInd',
  'Sts',
  'Sts/Cd',
  'BookgDt/Dt',
  'BookgDt/DtTm',
  'ValDt/Dt',
  'ValDt/DtTm',
  'AcctSvcrRef',
  'AddtlNtryInf',
  'NtryDtls/TxDtls/Refs/EndToEndId',
  'NtryDtls/TxDtls/Refs/AcctSvcrRef',
  'NtryDtls/TxDtls/RmtInf/Strd/CdtrRefInf/Ref',
  'NtryDtls/TxDtls/RltdPties/Dbtr/Nm',
  'NtryDtls/TxDtls/RltdPties/Dbtr/Pty/Nm',
  'NtryDtls/TxDtls/RltdPties/DbtrAcct/Id/IBAN',
  'NtryDtls/TxDtls/RltdPties/Cdtr/Nm',
  'NtryDtls/TxDtls/RltdPties/Cdtr/Pty/Nm',
  'NtryDtls/TxDtls/RltdPties/CdtrAcct/Id/IBAN',
  'NtryDtls/TxDtls/AddtlTxInf',
]);
/** Unstructured remittance (Ustrd) may repeat: every one is kept, in order. */
const USTRD = 'NtryDtls/TxDtls/RmtInf/Ustrd';
/** The paths below Stmt that are read. */
const STATEMENT_FIELDS = ['Id', 'Acct/Id/IBAN', 'Acct/Ccy', 'FrToDt/FrDtTm', 'FrToDt/ToDtTm', 'Bal/Tp/CdOrPrtry/Cd', 'Bal/Amt', 'Bal/CdtDbtInd'];

const clean = (s: string) => s.replace(/\s+/g, ' ').trim();

/** The line of a booked entry; undefined for one not booked (pending, information): those are skipped. */
function entryLine(e: Entry, currency: string): BankFileLine | undefined {
  const where = { kind: 'entry', n: e.n } as const;
  const v = (path: string) => clean(e.values.get(path) ?? '');
  const status = v('Sts') || v('Sts/Cd');
  if (!status) throw fileError(where, 'Sts', 'the entry has no status');
  if (status !== 'BOOK') return undefined;
  const amountText = e.values.get('Amt');
  if (amountText === undefined) throw fileError(where, 'Amt', 'the entry has no amount');
  const amount = readIsoAmount(amountText);
  if (isProblem(amount)) throw fileError(where, 'Amt', amount.problem);
  if (!e.currency) throw fileError(where, 'Amt/@Ccy', 'the amount has no currency');
  if (e.currency !== currency) throw fileError(where, 'Amt/@Ccy', `the entry is in ${e.currency}; the bank account is in ${currency}`);
  const indicator = v('CdtDbtInd');
  if (indicator !== 'CRDT' && indicator !== 'DBIT') throw fileError(where, 'CdtDbtInd', `must be CRDT or DBIT, not ${JSON.stringify(indicator)}`);
  const dateOf = (field: 'BookgDt' | 'ValDt') => {
    const text = v(`${field}/Dt`) || v(`${field}/DtTm`);
    if (!text) return null;
    const d = readIsoDate(text);
    if (isProblem(d)) throw fileError(where, field, d.problem);
    return d;
  };
  const booking = dateOf('BookgDt');
  if (!booking) throw fileError(where, 'BookgDt', 'a booked entry needs its booking date');
  const credit = indicator === 'CRDT';
  const party = credit ? 'Dbtr' : 'Cdtr';
  const endToEnd = v('NtryDtls/TxDtls/Refs/EndToEndId');
  const text = [...new Set([clean(e.values.get(USTRD) ?? ''), v('NtryDtls/TxDtls/AddtlTxInf'), v('AddtlNtryInf')].filter(Boolean))];
  return {
    n: e.n,
    booking_date: booking,
    value_date: dateOf('ValDt'),
    amount: credit ? amount : amount.negated(),
    text: text.join(' / ').slice(0, 1000),
    counterparty_name: (v(`NtryDtls/TxDtls/RltdPties/${party}/Nm`) || v(`NtryDtls/TxDtls/RltdPties/${party}/Pty/Nm`)).slice(0, 200),
    counterparty_iban: v(`NtryDtls/TxDtls/RltdPties/${party}Acct/Id/IBAN`).replace(/\s/g, '').slice(0, 34),
    // NOTPROVIDED is ISO 20022's word for no end-to-end id.
    reference: (v('NtryDtls/TxDtls/RmtInf/Strd/CdtrRefInf/Ref') || (endToEnd === 'NOTPROVIDED' ? '' : endToEnd)).slice(0, 200),
    bank_reference: (v('AcctSvcrRef') || v('NtryDtls/TxDtls/Refs/AcctSvcrRef')).slice(0, 200),
  };
}

/** A balance's signed amount; DBIT is a negative (overdrawn) balance. */
function signed(b: { amount: string; indicator: string; currency: string }, code: string, currency: string): Decimal {
  const a = readIsoAmount(b.amount);
  if (isProblem(a)) throw fileError(null, `Bal(${code})/Amt`, a.problem);
  if (b.currency && b.currency !== currency)
    throw fileError(null, `Bal(${code})/Amt/@Ccy`, `the balance is in ${b.currency}; the bank account is in ${currency}`);
  if (b.indicator !== 'CRDT' && b.indicator !== 'DBIT')
    throw fileError(null, `Bal(${code})/CdtDbtInd`, `must be CRDT or DBIT, not ${JSON.stringify(b.indicator)}`);
  return b.indicator === 'DBIT' ? a.negated() : a;
}

/**
 * Parses a camt.053 file. `currency` and `iban` are the bank account's: a statement of another account
 * (its Acct/Id/IBAN, when both are known) or in another currency is refused.
 */
export async function* parseCamt053(source: AsyncIterable<Uint8Array>, ctx: { currency: string; iban: string }): BankFileParser {
  let version = '';
  let entries = 0;
  let entry: Entry | undefined;
  let stmt: Statement | undefined;
  const statements: { id: string; from: string; to: string; opening: Decimal | null; closing: Decimal | null; sum: Decimal }[] = [];
  const ready: BankFileLine[] = [];
  let minDate: string | null = null;
  let maxDate: string | null = null;
  // Paths below Stmt and below Ntry, made once per element and only along the paths read.
  const stmtPaths = new XmlPaths(STATEMENT_FIELDS);
  const entryPaths = new XmlPaths([...ENTRY_FIELDS, USTRD]);

  const reader = new XmlReader(
    {
      open: (tag) => {
        const depth = tag.depth;
        if (stmt && depth > 3) stmtPaths.enter(tag.name);
        if (entry && depth > 4) entryPaths.enter(tag.name);
        if (depth === 1) {
          const m = CAMT053_NAMESPACE.exec(tag.uri);
          if (tag.name !== 'Document' || !m) {
            throw fileError(
              null,
              'Document',
              `The root element is ${tag.name} in ${tag.uri ? `namespace ${tag.uri}` : 'no namespace'}; a camt.053 statement is Document in urn:iso:std:iso:20022:tech:xsd:camt.053.001.02 to .08.`,
            );
          }
          version = `camt.053.001.0${m[1]}`;
        } else if (depth === 2 && tag.name !== 'BkToCstmrStmt') {
          throw fileError(null, tag.name, 'a camt.053 Document holds BkToCstmrStmt');
        } else if (depth === 3 && tag.name === 'Stmt') {
          stmt = { id: '', iban: '', currency: '', from: '', to: '', balances: new Map(), balance: undefined, sum: new Decimal(0), lines: 0 };
          stmtPaths.reset();
        } else if (depth === 4 && stmt) {
          if (tag.name === 'Ntry') {
            entry = { n: ++entries, values: new Map(), currency: '' };
            entryPaths.reset();
          }
          if (tag.name === 'Bal') stmt.balance = { code: '', amount: '', indicator: '', currency: '' };
        } else if (depth === 5 && stmt?.balance && tag.name === 'Amt') {
          stmt.balance.currency = tag.attributes.Ccy ?? '';
        } else if (depth === 5 && entry && tag.name === 'Amt') {
          entry.currency = tag.attributes.Ccy ?? '';
        }
      },
      close: ({ depth, text }) => {
        if (entry && depth > 4) {
          const rel = entryPaths.leave();
          stmtPaths.leave();
          if (rel === USTRD) entry.values.set(rel, `${entry.values.get(rel) ?? ''} ${text}`);
          else if (rel !== null && ENTRY_FIELDS.has(rel) && !entry.values.has(rel)) entry.values.set(rel, text);
        } else if (entry && depth === 4) {
          stmtPaths.leave();
          const line = entryLine(entry, ctx.currency);
          if (line) {
            ready.push(line);
            stmt!.sum = stmt!.sum.plus(line.amount);
            // What the lines come to is checked against the balances and stored: it must be an amount too.
            if (stmt!.sum.abs().greaterThan(MAX_AMOUNT))
              throw fileError({ kind: 'entry', n: line.n }, 'Amt', `the statement's entries come to more than ${MAX_AMOUNT.toFixed(2)}, the largest amount`);
            stmt!.lines++;
            if (minDate === null || line.booking_date < minDate) minDate = line.booking_date;
            if (maxDate === null || line.booking_date > maxDate) maxDate = line.booking_date;
          }
          entry = undefined;
        } else if (stmt && depth >= 3) {
          const rel = depth === 3 ? '' : stmtPaths.leave();
          const b = stmt.balance;
          if (rel === 'Id') stmt.id = clean(text);
          else if (rel === 'Acct/Id/IBAN') stmt.iban = text.replace(/\s/g, '');
          else if (rel === 'Acct/Ccy') stmt.currency = clean(text);
          else if (rel === 'FrToDt/FrDtTm') stmt.from = clean(text);
          else if (rel === 'FrToDt/ToDtTm') stmt.to = clean(text);
          else if (b && rel === 'Bal/Tp/CdOrPrtry/Cd') b.code = clean(text);
          else if (b && rel === 'Bal/Amt') b.amount = text;
          else if (b && rel === 'Bal/CdtDbtInd') b.indicator = clean(text);
          else if (b && rel === 'Bal') {
            if (b.code && !stmt.balances.has(b.code)) stmt.balances.set(b.code, b);
            stmt.balance = undefined;
          } else if (rel === 'Acct') checkAccount(stmt);
          else if (rel === '') closeStatement(stmt);
        }
      },
    },
    { maxBytes: MAX_BANK_FILE_BYTES },
  );

  const checkAccount = (s: Statement) => {
    if (s.iban && ctx.iban && s.iban !== ctx.iban) {
      throw fileError(null, 'Stmt/Acct/Id/IBAN', `The statement is of account ${s.iban}; this bank account is ${ctx.iban}.`);
    }
    if (s.currency && s.currency !== ctx.currency) {
      throw fileError(null, 'Stmt/Acct/Ccy', `The statement's account is in ${s.currency}; this bank account is in ${ctx.currency}.`);
    }
  };
  const closeStatement = (s: Statement) => {
    const openingCode = s.balances.has('OPBD') ? 'OPBD' : 'PRCD';
    const open = s.balances.get(openingCode);
    const close = s.balances.get('CLBD');
    const dateOf = (t: string, field: string) => {
      if (!t) return '';
      const d = readIsoDate(t);
      if (isProblem(d)) throw fileError(null, `Stmt/FrToDt/${field}`, d.problem);
      return d;
    };
    statements.push({
      id: s.id,
      from: dateOf(s.from, 'FrDtTm'),
      to: dateOf(s.to, 'ToDtTm'),
      opening: open ? signed(open, openingCode, ctx.currency) : null,
      closing: close ? signed(close, 'CLBD', ctx.currency) : null,
      sum: s.sum,
    });
    stmt = undefined;
  };

  yield* readXmlStream(
    reader,
    source,
    () => ready.splice(0),
    (e) => xmlRefused(e, 'bank_file_invalid', 'The statement is not XML this service reads: '),
    () => {
      if (!version) throw fileError(null, 'body', 'The file has no camt.053 Document: send the statement XML as the body.');
    },
  );
  if (!statements.length) throw fileError(null, 'Stmt', 'The file holds no statement (BkToCstmrStmt/Stmt).');
  return headOf(version, statements, minDate, maxDate);
}

/** The statement of the whole file: the first opening balance and the last closing one, checked statement by statement. */
function headOf(
  format: string,
  statements: { id: string; from: string; to: string; opening: Decimal | null; closing: Decimal | null; sum: Decimal }[],
  minDate: string | null,
  maxDate: string | null,
): StatementHead {
  // Each statement is checked by its own balances; a file is ok when every one is, and a mismatch when any is.
  const checked = statements.filter((s) => s.opening !== null && s.closing !== null);
  const difference = checked.reduce((d, s) => d.plus(s.closing!.minus(s.opening!.plus(s.sum))), new Decimal(0));
  const mismatch = checked.some((s) => !s.closing!.minus(s.opening!.plus(s.sum)).isZero());
  const stated = checked.length === statements.length;
  const froms = statements.map((s) => s.from).filter(Boolean);
  const tos = statements.map((s) => s.to).filter(Boolean);
  const earliest = [...froms, ...(minDate ? [minDate] : [])].sort()[0] ?? null;
  const latest = [...tos, ...(maxDate ? [maxDate] : [])].sort().at(-1) ?? null;
  return {
    format,
    statement_ref: statements
      .map((s) => s.id)
      .filter(Boolean)
      .join(', ')
      .slice(0, 500),
    from_date: earliest,
    to_date: latest,
    opening: statements[0]!.opening,
    closing: statements.at(-1)!.closing,
    balance_status: mismatch ? 'mismatch' : stated ? 'ok' : 'not_stated',
    balance_difference: mismatch ? difference : null,
  };
}
