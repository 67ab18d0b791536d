// Importing a SAF-T file's books into a company, in the caller's one transaction (everything or
// nothing): the chart (mapped to the company's accounts by StandardAccountID, then AccountID, created
// otherwise), customers and suppliers, the journal as imported postings keeping their JournalID and
// TransactionID, and the opening balances as one posting the day before the file's period.
import type { Db } from '@tlr/db';
import type { CompanyScope } from '../../context.ts';
import { DomainError } from '../../errors.ts';
import { newId } from '../../ids.ts';
import { checkDate, addDays } from '../../calendar.ts';
import { createFiscalYear } from '../../ledger/books.ts';
import { fiscalYearContaining } from '../../ledger/fiscal-years.ts';
import { groupFor, standardChart, typeForNumber, type AccountType } from '../../ledger/standard-chart.ts';
import { fromOere, parseDecimalText, toOere } from '../../money.ts';
import type { SaftPartyIn, SaftRecord, SaftTransactionIn } from './reader.ts';
import { saftInvalid } from './schema-check.ts';

/** Ledger lines per INSERT. */
export const IMPORT_LINE_BATCH = 5_000;

export interface SaftImportCounts {
  accounts: number;
  accounts_created: number;
  customers: number;
  suppliers: number;
  transactions: number;
  lines: number;
}

/** A SAF-T amount as øre; what money.ts refuses (more than 2 decimals, beyond MAX_AMOUNT) is refused by name. */
function oere(text: string | undefined, line: number, element: string): bigint {
  const amount = parseDecimalText(text ?? '0');
  if (typeof amount === 'string') throw saftInvalid(line, element, `${JSON.stringify(text)} ${amount}`);
  return toOere(amount);
}

/** An exchange rate as the journal keeps it (numeric(18,6)): positive, at most 12 integer digits. */
function rateOf(text: string | undefined, line: number, element: string): string {
  if (!text || !/^\d{1,12}(\.\d+)?$/.test(text) || !/[1-9]/.test(text))
    throw saftInvalid(line, element, `${JSON.stringify(text)} is not a positive exchange rate`);
  return text;
}

const MAX_LINES = 32_767;

const ACCOUNT_TYPES: Record<string, AccountType> = { Asset: 'asset', Liability: 'liability', Sale: 'revenue', Expense: 'expense' };

interface Row {
  txId: string;
  systemId: bigint;
  documentNumber: bigint;
  t: SaftTransactionIn;
}

interface LineRow {
  txId: string;
  n: number;
  accountId: string;
  date: string;
  debit: string;
  credit: string;
  description: string;
  currency: string;
  currencyAmount: string | null;
  rate: string | null;
}

/** Imports the file's records (readSaft) into the company's empty books; throws, rolling back, on the first refusal. */
export async function importSaftRecords(db: Db, scope: CompanyScope, records: AsyncIterable<SaftRecord[]>): Promise<SaftImportCounts> {
  const c = scope.companyId;
  // A long import is many short statements: the service's bounds on one statement and on the pauses
  // between them (while the next batch is parsed) stand; the transaction's own is the caller's.
  // The number row's lock keeps every posting out until commit; under it the books must be empty.
  const [seq] = await db.$queryRaw<{ last_document_number: bigint; last_system_id: bigint }[]>`
    SELECT last_document_number, last_system_id FROM number_sequences WHERE company_id = ${c}::uuid FOR UPDATE`;
  if (!seq) throw new DomainError('not_found', 'The company has no books.');
  const [posted] = await db.$queryRaw<
    { n: number }[]
  >`SELECT count(*)::int AS n FROM (SELECT 1 FROM ledger_transactions WHERE company_id = ${c}::uuid LIMIT 1) x`;
  if (posted!.n > 0)
    throw new DomainError(
      'books_not_empty',
      "The company has postings already: a SAF-T import brings a company's books into fresh books only (a new company or a reset sandbox).",
      'body',
    );
  const company = await db.company.findUniqueOrThrow({ where: { id: c } });
  const years = await db.fiscalYear.findMany({ where: { company_id: c } });
  const yearOf = new Map(years.map((y) => [y.start_date.toISOString().slice(0, 10), y]));
  const lock = company.lock_date?.toISOString().slice(0, 10) ?? null;
  const existing = await db.account.findMany({ where: { company_id: c }, select: { id: true, account_number: true, standard_account_id: true } });
  const byNumber = new Map(existing.map((a) => [a.account_number, a.id]));
  const byStandard = new Map(existing.filter((a) => a.standard_account_id).map((a) => [a.standard_account_id, a.id]));
  const claimed = new Set<string>();
  const accountOf = new Map<string, string>(); // AccountID of the file -> our account id
  const openings = new Map<string, bigint>(); // our account id -> signed opening (debit positive)
  const counts: SaftImportCounts = { accounts: 0, accounts_created: 0, customers: 0, suppliers: 0, transactions: 0, lines: 0 };
  let periodStart = '';
  let documentNumber = seq.last_document_number;
  let systemId = seq.last_system_id;
  let txRows: Row[] = [];
  let lineRows: LineRow[] = [];
  let parties: { kind: 'customer' | 'supplier'; fields: Map<string, string> }[] = [];

  const checkPostable = async (date: string, line: number, element: string) => {
    const bad = checkDate(date);
    if (bad) throw saftInvalid(line, element, `the date ${bad}`);
    if (lock && date <= lock)
      throw new DomainError('period_locked', `Line ${line}: the books are locked up to and including ${lock}; ${date} cannot be imported.`, element, { line });
    const fy = fiscalYearContaining(date, company.fiscal_year_start_month);
    const year = yearOf.get(fy.start) ?? (await createFiscalYear(db, company, fy));
    yearOf.set(fy.start, year);
    if (year.closed)
      throw new DomainError('fiscal_year_not_open', `Line ${line}: ${date} lies in the closed fiscal year ${fy.start} to ${fy.end}.`, element, { line });
  };

  const flushParties = async () => {
    for (const kind of ['customer', 'supplier'] as const) {
      const rows = parties
        .filter((p) => p.kind === kind)
        .map(({ fields: f }) => ({
          id: newId(),
          company_id: c,
          name: (f.get('Name') ?? '').slice(0, 200),
          cvr: f.get('CVR') ?? '',
          email: f.get('Contact/Email') ?? '',
          phone: f.get('Contact/Telephone') ?? '',
          address_line1: f.get('Address/StreetName') ?? '',
          address_line2: f.get('Address/AdditionalAddressDetail') ?? '',
          postal_code: f.get('Address/PostalCode') ?? '',
          city: f.get('Address/City') ?? '',
          country: (f.get('Address/Country') ?? 'DK').slice(0, 2).toUpperCase(),
          notes: `SAF-T ${kind === 'customer' ? 'CustomerID' : 'SupplierID'} ${f.get(kind === 'customer' ? 'CustomerID' : 'SupplierID') ?? ''}`,
        }));
      if (!rows.length) continue;
      if (kind === 'customer') await db.customer.createMany({ data: rows });
      else await db.supplier.createMany({ data: rows });
      counts[`${kind}s`] += rows.length;
    }
    parties = [];
  };

  const flushJournal = async () => {
    if (!txRows.length) return;
    const tcol = <T>(f: (r: Row) => T) => txRows.map(f);
    const lcol = <T>(f: (r: LineRow) => T) => lineRows.map(f);
    await db.$executeRaw`
      INSERT INTO ledger_transactions (id, company_id, document_number, system_id, date, description, source, source_journal_id, source_transaction_id, created_at)
      SELECT u.id, ${c}::uuid, u.document_number, u.system_id, u.date, u.description, 'import', u.journal_id, u.transaction_id, date_trunc('milliseconds', clock_timestamp())
      FROM unnest(${tcol((r) => r.txId)}::uuid[], ${tcol((r) => r.documentNumber.toString())}::bigint[], ${tcol((r) => r.systemId.toString())}::bigint[], ${tcol((r) => r.t.fields.get('TransactionDate')!)}::date[],
                  ${tcol((r) => r.t.fields.get('Description') ?? '')}::text[], ${tcol((r) => r.t.journalId)}::text[], ${tcol((r) => r.t.fields.get('TransactionID') ?? '')}::text[])
        AS u(id, document_number, system_id, date, description, journal_id, transaction_id)`;
    // The lines, and what they add to the balances the reports read (per account and day, and month).
    await db.$executeRaw`
      WITH u AS (
        SELECT * FROM unnest(${lcol((l) => l.txId)}::uuid[], ${lcol((l) => l.n)}::int2[], ${lcol((l) => l.accountId)}::uuid[], ${lcol((l) => l.date)}::date[],
                             ${lcol((l) => l.debit)}::numeric[], ${lcol((l) => l.credit)}::numeric[], ${lcol((l) => l.description)}::text[],
                             ${lcol((l) => l.currency)}::text[], ${lcol((l) => l.currencyAmount)}::numeric[], ${lcol((l) => l.rate)}::numeric[])
          AS u(transaction_id, n, account_id, date, debit, credit, description, currency, currency_amount, exchange_rate)
      ),
      lines AS (
        INSERT INTO transaction_lines (id, company_id, transaction_id, line_number, account_id, debit, credit, description, currency, currency_amount, exchange_rate)
        SELECT gen_random_uuid(), ${c}::uuid, transaction_id, n, account_id, debit, credit, description, currency, currency_amount, exchange_rate FROM u
      ),
      daily AS (
        INSERT INTO account_daily_balances AS b (company_id, account_id, date, debit, credit)
        SELECT ${c}::uuid, account_id, date, sum(debit), sum(credit) FROM u GROUP BY account_id, date
        ON CONFLICT (company_id, account_id, date) DO UPDATE SET debit = b.debit + EXCLUDED.debit, credit = b.credit + EXCLUDED.credit
      )
      INSERT INTO account_monthly_balances AS m (company_id, account_id, month, debit, credit)
      SELECT ${c}::uuid, account_id, date_trunc('month', date)::date, sum(debit), sum(credit) FROM u GROUP BY account_id, date_trunc('month', date)
      ON CONFLICT (company_id, account_id, month) DO UPDATE SET debit = m.debit + EXCLUDED.debit, credit = m.credit + EXCLUDED.credit`;
    txRows = [];
    lineRows = [];
  };

  const addTransaction = async (t: SaftTransactionIn, fileCurrency: string) => {
    const date = t.fields.get('TransactionDate') ?? '';
    await checkPostable(date, t.line, 'TransactionDate');
    if (t.lines.length < 2) throw saftInvalid(t.line, 'Transaction', `transaction ${t.fields.get('TransactionID')} has fewer than two lines`);
    // Line numbers are smallint.
    if (t.lines.length > MAX_LINES) throw saftInvalid(t.line, 'Transaction', `transaction ${t.fields.get('TransactionID')} has more than ${MAX_LINES} lines`);
    const txId = newId();
    systemId += 1n;
    documentNumber += 1n;
    let sum = 0n;
    t.lines.forEach((l, i) => {
      const f = l.fields;
      const side = f.has('DebitAmount/Amount') ? 'DebitAmount' : 'CreditAmount';
      const amount = oere(f.get(`${side}/Amount`), l.line, `${side}/Amount`);
      if (amount < 0n) throw saftInvalid(l.line, `${side}/Amount`, 'a negative amount: a line is a debit or a credit of a positive amount');
      const accountId = accountOf.get(f.get('AccountID') ?? '');
      if (!accountId) throw saftInvalid(l.line, 'AccountID', `account ${JSON.stringify(f.get('AccountID'))} is not in GeneralLedgerAccounts`);
      sum += side === 'DebitAmount' ? amount : -amount;
      const code = f.get(`${side}/CurrencyCode`) ?? '';
      const foreign = code !== '' && code !== fileCurrency && f.has(`${side}/CurrencyAmount`) && f.has(`${side}/ExchangeRate`);
      lineRows.push({
        txId,
        n: i + 1,
        accountId,
        date,
        debit: side === 'DebitAmount' ? fromOere(amount) : '0.00',
        credit: side === 'CreditAmount' ? fromOere(amount) : '0.00',
        description: f.get('Description') ?? '',
        currency: foreign ? code : '',
        currencyAmount: foreign ? fromOere(oere(f.get(`${side}/CurrencyAmount`), l.line, `${side}/CurrencyAmount`)) : null,
        rate: foreign ? rateOf(f.get(`${side}/ExchangeRate`), l.line, `${side}/ExchangeRate`) : null,
      });
    });
    if (sum !== 0n)
      throw saftInvalid(t.line, 'Transaction', `transaction ${t.fields.get('TransactionID')} does not balance: debit minus credit is ${fromOere(sum)}`);
    txRows.push({ txId, systemId, documentNumber, t });
    counts.transactions += 1;
    counts.lines += t.lines.length;
    if (lineRows.length >= IMPORT_LINE_BATCH) await flushJournal();
  };

  let fileCurrency = company.currency;
  for await (const batch of records) {
    for (const r of batch) {
      if (r.kind === 'header') {
        if (r.currency !== company.currency)
          throw saftInvalid(null, 'DefaultCurrencyCode', `the file's currency is ${r.currency}; the company keeps its books in ${company.currency}`);
        fileCurrency = r.currency;
        const badStart = r.start ? checkDate(r.start) : undefined;
        if (badStart) throw saftInvalid(null, 'SelectionStartDate', `the date ${badStart}`);
        periodStart = r.start;
      } else if (r.kind === 'account') {
        const f = r.fields;
        const number = f.get('AccountID') ?? '';
        const standard = f.get('StandardAccountID') ?? '';
        let id = standard && !claimed.has(byStandard.get(standard) ?? '') ? byStandard.get(standard) : undefined;
        id ??= byNumber.get(number);
        if (!id || claimed.has(id)) {
          if (byNumber.has(number)) throw saftInvalid(r.line, 'AccountID', `account ${number} is the company's account of another standard account already`);
          const type = typeForNumber(number) ?? ACCOUNT_TYPES[f.get('AccountType') ?? ''] ?? 'expense';
          id = newId();
          await db.account.create({
            data: {
              id,
              company_id: c,
              account_number: number,
              name: (f.get('AccountDescription') ?? number).slice(0, 200),
              type,
              group_code: groupFor(number, standardChart().groups)?.code ?? '',
              standard_account_id: standard,
            },
          });
          byNumber.set(number, id);
          counts.accounts_created += 1;
        }
        claimed.add(id);
        accountOf.set(number, id);
        counts.accounts += 1;
        const opening = f.has('OpeningDebitBalance')
          ? oere(f.get('OpeningDebitBalance'), r.line, 'OpeningDebitBalance')
          : -oere(f.get('OpeningCreditBalance'), r.line, 'OpeningCreditBalance');
        if (opening !== 0n) openings.set(id, opening);
      } else if (r.kind === 'customer' || r.kind === 'supplier') {
        parties.push(r as SaftPartyIn);
        if (parties.length >= 1000) await flushParties();
      } else await addTransaction(r as SaftTransactionIn, fileCurrency);
    }
  }
  await flushParties();
  await flushJournal();

  if (openings.size) {
    let sum = 0n;
    for (const v of openings.values()) sum += v;
    if (sum !== 0n) throw saftInvalid(null, 'GeneralLedgerAccounts', `the opening balances do not balance: debit minus credit is ${fromOere(sum)}`);
    if (!periodStart) throw saftInvalid(null, 'SelectionStartDate', 'opening balances need the period the file covers (SelectionCriteria/SelectionStartDate)');
    const date = addDays(periodStart, -1);
    const lines = [...openings].map(([accountId, v], i) => ({
      line: 0,
      fields: new Map([
        ['AccountID', accountId],
        [v > 0n ? 'DebitAmount/Amount' : 'CreditAmount/Amount', fromOere(v > 0n ? v : -v)],
        ['Description', 'Opening balance'],
      ]),
      i,
    }));
    // Accounts are named by our ids here: accountOf maps them to themselves.
    for (const id of openings.keys()) accountOf.set(id, id);
    await addTransaction(
      {
        kind: 'transaction',
        line: 0,
        journalId: '',
        fields: new Map([
          ['TransactionDate', date],
          ['TransactionID', 'OPENING'],
          ['Description', 'Opening balances (SAF-T import)'],
        ]),
        lines,
      },
      fileCurrency,
    );
    await flushJournal();
  }

  await db.$executeRaw`
    UPDATE number_sequences SET last_document_number = ${documentNumber}, last_system_id = ${systemId} WHERE company_id = ${c}::uuid`;
  return counts;
}
