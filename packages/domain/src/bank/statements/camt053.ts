// ISO 20022 camt.053 (BankToCustomerStatement) and camt.054 (BankToCustomerDebitCreditNotification),
// versions .001.02 to .001.08, read as they stream under the safe-XML policy (xml/reader.ts): memory holds
// the entry being read and the chunk's finished entries, never the file.
// Read: each Stmt (camt.054: Ntfctn) with its Id, account, period and balances (OPBD or PRCD opening, CLBD
// closing), and each booked Ntry with its first TxDtls (references, remittance, related parties); of
// camt.054, a batch entry's every TxDtls is a line of its own (an FI card batch: one FI payment id each).
// Each statement must be of the target bank account, by IBAN or account number. docs/bank-statements.md.
import { Decimal, MAX_AMOUNT } from '../../money.ts';
import { readXmlStream, XmlPaths, XmlReader, xmlRefused } from '../../xml/reader.ts';
import { MAX_BANK_FILE_BYTES } from './staged.ts';
import { fileError, type BankFileLine, type BankFileParser, type StatementHead } from './types.ts';
import { isProblem, readIsoAmount, readIsoDate } from './values.ts';

/** camt.053 statements and camt.054 notifications: the message, its root element and its repeated element. */
export const CAMT_NAMESPACE = /^urn:iso:std:iso:20022:tech:xsd:camt\.05([34])\.001\.0([2-8])$/;
const MESSAGES = {
  '3': { root: 'BkToCstmrStmt', statement: 'Stmt' },
  '4': { root: 'BkToCstmrDbtCdtNtfctn', statement: 'Ntfctn' },
} as const;

/** One TxDtls of an entry: the raw texts by their path below TxDtls, and its amount's currency. */
interface Tx {
  values: Map<string, string>;
  currency: string;
}

/** An entry as read so far: the raw texts by their path below Ntry, and each TxDtls on its own. */
interface Entry {
  n: number;
  values: Map<string, string>;
  currency: string;
  txs: Tx[];
}

/** A bank account as a statement names it, or as tlr holds it: its IBAN and its Danish BBAN (reg. no. + account no., 14 digits). */
export interface AccountIds {
  iban: string;
  bban: string;
}
/** The company's bank accounts, to name the one a foreign statement belongs to. */
export interface KnownAccount extends AccountIds {
  id: string;
  name: string;
}

/** The Danish BBAN of a registration number and an account number (up to 10 digits, zero-padded); '' without both. */
export function bbanOf(reg: string, account: string): string {
  return /^\d{4}$/.test(reg) && /^\d{1,10}$/.test(account) ? `${reg}${account.padStart(10, '0')}` : '';
}

/** An account's identifiers: a Danish IBAN holds its BBAN (DKkk + 14 digits). */
export function accountIds(iban: string, bban = ''): AccountIds {
  const i = iban.replace(/\s/g, '').toUpperCase();
  return { iban: i, bban: bban || (/^DK\d{16}$/.test(i) ? i.slice(4) : '') };
}

/** Acct/Id/Othr/Id as banks write a BBAN: the digits, a reg. no. and an account no. with or without a separator. */
function othrIds(text: string): AccountIds {
  const t = text.replace(/\s/g, '');
  const digits = t.replace(/[-.]/g, '');
  if (/^\d{5,14}$/.test(digits)) return { iban: '', bban: bbanOf(digits.slice(0, 4), digits.slice(4)) };
  return accountIds(t);
}

const sameAccount = (a: AccountIds, b: AccountIds) => (!!a.iban && a.iban === b.iban) || (!!a.bban && a.bban === b.bban);

interface Statement {
  id: string;
  iban: string;
  othr: string;
  /** Not the target account's, and the request said to leave such statements (other_accounts=skip). */
  skipped: boolean;
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
const TX = 'NtryDtls/TxDtls/';
/** A TxDtls's own amount: Amt (.04 and later) or AmtDtls/TxAmt/Amt. */
const TX_AMOUNTS = [`${TX}Amt`, `${TX}AmtDtls/TxAmt/Amt`];
/** The paths below Stmt that are read. */
const STATEMENT_FIELDS = [
  'Id',
  'Acct/Id/IBAN',
  'Acct/Id/Othr/Id',
  'Acct/Ccy',
  'FrToDt/FrDtTm',
  'FrToDt/ToDtTm',
  'Bal/Tp/CdOrPrtry/Cd',
  'Bal/Amt',
  'Bal/CdtDbtInd',
];

const clean = (s: string) => s.replace(/\s+/g, ' ').trim();

/** The lines of a booked entry; none for one not booked (pending, information): those are skipped. */
function entryLines(e: Entry, currency: string, split: boolean): BankFileLine[] {
  const where = { kind: 'entry', n: e.n } as const;
  const v = (path: string) => clean(e.values.get(path) ?? '');
  const status = v('Sts') || v('Sts/Cd');
  if (!status) throw fileError(where, 'Sts', 'the entry has no status');
  if (status !== 'BOOK') return [];
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
  const valueDate = dateOf('ValDt');
  const bankRef = v('AcctSvcrRef');
  const line = (get: (path: string) => string, signedAmount: Decimal, bankReference: string): BankFileLine => {
    const party = credit ? 'Dbtr' : 'Cdtr';
    const endToEnd = get('NtryDtls/TxDtls/Refs/EndToEndId');
    const text = [...new Set([get(USTRD), get('NtryDtls/TxDtls/AddtlTxInf'), v('AddtlNtryInf')].filter(Boolean))];
    return {
      n: e.n,
      booking_date: booking,
      value_date: valueDate,
      amount: signedAmount,
      text: text.join(' / ').slice(0, 1000),
      counterparty_name: (get(`NtryDtls/TxDtls/RltdPties/${party}/Nm`) || get(`NtryDtls/TxDtls/RltdPties/${party}/Pty/Nm`)).slice(0, 200),
      counterparty_iban: get(`NtryDtls/TxDtls/RltdPties/${party}Acct/Id/IBAN`).replace(/\s/g, '').slice(0, 34),
      // NOTPROVIDED is ISO 20022's word for no end-to-end id.
      reference: (get('NtryDtls/TxDtls/RmtInf/Strd/CdtrRefInf/Ref') || (endToEnd === 'NOTPROVIDED' ? '' : endToEnd)).slice(0, 200),
      bank_reference: bankReference.slice(0, 200),
    };
  };
  const sign = (a: Decimal) => (credit ? a : a.negated());
  // camt.054: a batch entry (an FI card batch, a collection) is one line per transaction, each with its own
  // amount; a batch whose transactions carry no amounts of their own (or amounts in another currency, the
  // payer's) stays one line, as in camt.053.
  const txAmount = (tx: Tx) => tx.values.get('Amt') ?? tx.values.get('AmtDtls/TxAmt/Amt');
  if (split && e.txs.length > 1 && e.txs.every((tx) => txAmount(tx) !== undefined && (!tx.currency || tx.currency === currency))) {
    let sum = new Decimal(0);
    const lines = e.txs.map((tx, k) => {
      const field = `NtryDtls/TxDtls[${k + 1}]/Amt`;
      const a = readIsoAmount(txAmount(tx)!);
      if (isProblem(a)) throw fileError(where, field, a.problem);
      sum = sum.plus(a);
      const get = (path: string) => (path.startsWith(TX) ? clean(tx.values.get(path.slice(TX.length)) ?? '') : v(path));
      const txRef = get(`${TX}Refs/AcctSvcrRef`);
      return line(get, sign(a), txRef || (bankRef ? `${bankRef}/${k + 1}` : ''));
    });
    if (!sum.equals(amount)) {
      throw fileError(where, 'NtryDtls/TxDtls', `the transactions add up to ${sum.toFixed(2)}; the entry's amount is ${amount.toFixed(2)}`);
    }
    return lines;
  }
  return [line(v, sign(amount), bankRef || v('NtryDtls/TxDtls/Refs/AcctSvcrRef'))];
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

export interface CamtContext {
  /** The bank account's currency: every entry and balance must be in it. */
  currency: string;
  /** The target bank account's IBAN and BBAN ('' when it has none). */
  account: AccountIds;
  /** The company's other bank accounts, to name the one a foreign statement is of. */
  others?: KnownAccount[];
  /** What a statement of another account does: refuse the file (the default) or stay out of this import. */
  otherAccounts?: 'refuse' | 'skip';
}

/**
 * Parses a camt.053 or camt.054 file. Every statement (camt.054: notification) must be of the target
 * bank account (its Acct/Id/IBAN or Acct/Id/Othr/Id, a BBAN), in its currency; one of another account is
 * refused by name, or with otherAccounts=skip left out, never merged. A target that has neither an IBAN
 * nor an account number takes a file of one account only: two accounts' statements are not told apart.
 */
export async function* parseCamt053(source: AsyncIterable<Uint8Array>, ctx: CamtContext): BankFileParser {
  let version = '';
  let message: (typeof MESSAGES)[keyof typeof MESSAGES] = MESSAGES['3'];
  let entries = 0;
  let entry: Entry | undefined;
  let tx: Tx | undefined;
  let stmt: Statement | undefined;
  const statements: { id: string; from: string; to: string; opening: Decimal | null; closing: Decimal | null; sum: Decimal }[] = [];
  /** Every statement's account as it names it, for a refusal that lists them. */
  const named: { id: string; account: string; ids: AccountIds; foreign: boolean }[] = [];
  const ready: BankFileLine[] = [];
  let minDate: string | null = null;
  let maxDate: string | null = null;
  // Paths below Stmt and below Ntry, made once per element and only along the paths read.
  const stmtPaths = new XmlPaths(STATEMENT_FIELDS);
  const entryPaths = new XmlPaths([...ENTRY_FIELDS, USTRD, ...TX_AMOUNTS]);
  const target = ctx.account;
  const targetKnown = !!(target.iban || target.bban);

  const reader = new XmlReader(
    {
      open: (tag) => {
        const depth = tag.depth;
        if (stmt && depth > 3) stmtPaths.enter(tag.name);
        const rel = entry && depth > 4 ? entryPaths.enter(tag.name) : null;
        if (depth === 1) {
          const m = CAMT_NAMESPACE.exec(tag.uri);
          if (tag.name !== 'Document' || !m) {
            throw fileError(
              null,
              'Document',
              `The root element is ${tag.name} in ${tag.uri ? `namespace ${tag.uri}` : 'no namespace'}; a camt.053 statement or camt.054 notification is Document in urn:iso:std:iso:20022:tech:xsd:camt.053.001.02 to .08 or camt.054.001.02 to .08.`,
            );
          }
          message = MESSAGES[m[1] as '3' | '4'];
          version = `camt.05${m[1]}.001.0${m[2]}`;
        } else if (depth === 2 && tag.name !== message.root) {
          throw fileError(null, tag.name, `a ${version.slice(0, 8)} Document holds ${message.root}`);
        } else if (depth === 3 && tag.name === message.statement) {
          stmt = {
            id: '',
            iban: '',
            othr: '',
            skipped: false,
            currency: '',
            from: '',
            to: '',
            balances: new Map(),
            balance: undefined,
            sum: new Decimal(0),
            lines: 0,
          };
          stmtPaths.reset();
        } else if (depth === 4 && stmt) {
          if (tag.name === 'Ntry') {
            entry = { n: ++entries, values: new Map(), currency: '', txs: [] };
            entryPaths.reset();
          }
          if (tag.name === 'Bal') stmt.balance = { code: '', amount: '', indicator: '', currency: '' };
        } else if (depth === 5 && stmt?.balance && tag.name === 'Amt') {
          stmt.balance.currency = tag.attributes.Ccy ?? '';
        } else if (depth === 5 && entry && tag.name === 'Amt') {
          entry.currency = tag.attributes.Ccy ?? '';
        } else if (entry && rel === 'NtryDtls/TxDtls') {
          tx = { values: new Map(), currency: '' };
          entry.txs.push(tx);
        } else if (tx && rel !== null && TX_AMOUNTS.includes(rel) && !tx.currency) {
          tx.currency = tag.attributes.Ccy ?? '';
        }
      },
      close: ({ depth, text }) => {
        if (entry && depth > 4) {
          const rel = entryPaths.leave();
          stmtPaths.leave();
          if (rel === USTRD) entry.values.set(rel, `${entry.values.get(rel) ?? ''} ${text}`);
          else if (rel !== null && ENTRY_FIELDS.has(rel) && !entry.values.has(rel)) entry.values.set(rel, text);
          if (tx && rel !== null && rel.startsWith(TX)) {
            const own = rel.slice(TX.length);
            if (rel === USTRD) tx.values.set(own, `${tx.values.get(own) ?? ''} ${text}`);
            else if ((ENTRY_FIELDS.has(rel) || TX_AMOUNTS.includes(rel)) && !tx.values.has(own)) tx.values.set(own, text);
          }
          if (rel === 'NtryDtls/TxDtls') tx = undefined;
        } else if (entry && depth === 4) {
          stmtPaths.leave();
          if (!stmt!.skipped) {
            for (const line of entryLines(entry, ctx.currency, version.startsWith('camt.054'))) {
              ready.push(line);
              stmt!.sum = stmt!.sum.plus(line.amount);
              // What the lines come to is checked against the balances and stored: it must be an amount too.
              if (stmt!.sum.abs().greaterThan(MAX_AMOUNT))
                throw fileError({ kind: 'entry', n: line.n }, 'Amt', `the statement's entries come to more than ${MAX_AMOUNT.toFixed(2)}, the largest amount`);
              stmt!.lines++;
              if (minDate === null || line.booking_date < minDate) minDate = line.booking_date;
              if (maxDate === null || line.booking_date > maxDate) maxDate = line.booking_date;
            }
          }
          entry = undefined;
        } else if (stmt && depth >= 3) {
          const rel = depth === 3 ? '' : stmtPaths.leave();
          const b = stmt.balance;
          if (rel === 'Id') stmt.id = clean(text);
          else if (rel === 'Acct/Id/IBAN') stmt.iban = text.replace(/\s/g, '');
          else if (rel === 'Acct/Id/Othr/Id') stmt.othr = clean(text);
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

  const what = () => (message.statement === 'Stmt' ? 'statement' : 'notification');
  const label = (s: { id: string }) => `${what()} ${s.id ? JSON.stringify(s.id) : `number ${named.length}`}`;
  const targetName = () => [target.iban, target.bban && `account number ${target.bban.slice(0, 4)} ${target.bban.slice(4)}`].filter(Boolean).join(', ');
  /** Which of the company's bank accounts a statement's account is, in words. */
  const whose = (ids: AccountIds) => {
    const other = ctx.others?.find((a) => sameAccount(a, ids));
    return other ? `; it is bank account ${JSON.stringify(other.name)} (${other.id}): import the file into each of its accounts with other_accounts=skip` : '';
  };

  const checkAccount = (s: Statement) => {
    const field = `${message.statement}/Acct/Id/${s.iban ? 'IBAN' : 'Othr/Id'}`;
    if (s.iban || s.othr) {
      const ids = s.iban ? accountIds(s.iban) : othrIds(s.othr);
      const account = s.iban || s.othr;
      // Another account: one that is not the target's, or, when the target has no identifiers, another bank account of the company's.
      const foreign = targetKnown ? !sameAccount(ids, target) : !!ctx.others?.some((a) => sameAccount(a, ids));
      named.push({ id: s.id, account, ids, foreign });
      if (foreign) {
        if (ctx.otherAccounts === 'skip') s.skipped = true;
        else {
          throw fileError(
            null,
            field,
            `The ${label(s)} is of account ${account}; this bank account is ${targetKnown ? targetName() : 'without an IBAN or account number'}${whose(ids)}. A statement of another account is never merged into this one.`,
          );
        }
      }
      if (!targetKnown && !foreign) {
        const first = named.find((n) => !n.foreign && !sameAccount(n.ids, ids) && n.account !== account);
        if (first) {
          throw fileError(
            null,
            field,
            `The file holds statements of more than one account (${first.account} in ${first.id ? JSON.stringify(first.id) : 'the first'}, ${account} in ${s.id ? JSON.stringify(s.id) : 'a later one'}), and this bank account has no IBAN or account number to tell which is its: give it its IBAN (PATCH /bank-accounts/{id}).`,
          );
        }
      }
    }
    if (!s.skipped && s.currency && s.currency !== ctx.currency) {
      throw fileError(null, `${message.statement}/Acct/Ccy`, `The ${label(s)}'s account is in ${s.currency}; this bank account is in ${ctx.currency}.`);
    }
  };
  const closeStatement = (s: Statement) => {
    stmt = undefined;
    if (s.skipped) return;
    const openingCode = s.balances.has('OPBD') ? 'OPBD' : 'PRCD';
    const open = s.balances.get(openingCode);
    const close = s.balances.get('CLBD');
    const dateOf = (t: string, field: string) => {
      if (!t) return '';
      const d = readIsoDate(t);
      if (isProblem(d)) throw fileError(null, `${message.statement}/FrToDt/${field}`, d.problem);
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
  };

  yield* readXmlStream(
    reader,
    source,
    () => ready.splice(0),
    (e) => xmlRefused(e, 'bank_file_invalid', 'The statement is not XML this service reads: '),
    () => {
      if (!version) throw fileError(null, 'body', 'The file has no camt.053 or camt.054 Document: send the statement XML as the body.');
    },
  );
  if (!statements.length) {
    if (named.length) {
      throw fileError(
        null,
        `${message.statement}/Acct`,
        `The file holds no ${what()} of this bank account (${targetName()}): it has ${named.map((n) => `${n.id ? JSON.stringify(n.id) : what()} of ${n.account}`).join(', ')}.`,
      );
    }
    throw fileError(null, message.statement, `The file holds no ${what()} (${message.root}/${message.statement}).`);
  }
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
