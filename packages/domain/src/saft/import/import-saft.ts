// Importing a SAF-T file's books into a company, in the caller's one transaction (everything or
// nothing): the chart (mapped to the company's accounts by StandardAccountID, then AccountID, created
// otherwise), customers and suppliers, the journal as imported postings keeping their JournalID and
// TransactionID, the opening balances as one posting the day before the file's period, and the asset
// register (saft/import/assets.ts). The
// postings go through the journal writer's batch (ledger/post.ts), set-based, with its checks.
import type { Db } from '@tlr/db';
import type { CompanyScope } from '../../context.ts';
import { DomainError } from '../../errors.ts';
import { newId } from '../../ids.ts';
import { checkDate, addDays } from '../../calendar.ts';
import { Decimal } from '../../money.ts';
import { parseExchangeRate } from '../../currency/rules.ts';
import { JOURNAL_BATCH_LINES, openJournalBatch, type JournalBatch, type Posting } from '../../ledger/post.ts';
import { lineOfField, type PostingLine } from '../../ledger/rules.ts';
import { groupFor, standardChart, typeForNumber, type AccountType } from '../../ledger/standard-chart.ts';
import { fromOere, parseDecimalText, toOere } from '../../money.ts';
import type { SaftAnalysisIn, SaftAssetIn, SaftPartyIn, SaftRecord, SaftTransactionIn } from './reader.ts';
import { importSaftAssets } from './assets.ts';
import { dimensionCode, type LineDimensions } from '../../dimensions/schema.ts';
import { saftInvalid } from './schema-check.ts';

export interface SaftImportCounts {
  accounts: number;
  accounts_created: number;
  customers: number;
  suppliers: number;
  transactions: number;
  lines: number;
  assets: number;
}

/** A SAF-T amount as øre; what money.ts refuses (more than 2 decimals, beyond MAX_AMOUNT) is refused by name. */
function oere(text: string | undefined, line: number, element: string): bigint {
  const amount = parseDecimalText(text ?? '0');
  if (typeof amount === 'string') throw saftInvalid(line, element, `${JSON.stringify(text)} ${amount}`);
  return toOere(amount);
}

/** An exchange rate as the journal keeps it (parseExchangeRate: positive, at most 6 decimals, below 10^12). */
function rateOf(text: string | undefined, line: number, element: string): Decimal {
  const rate = parseExchangeRate(text ?? '');
  if (typeof rate === 'string') throw saftInvalid(line, element, `${JSON.stringify(text)} is not an exchange rate: it ${rate}`);
  return rate;
}

/** Where a posting and each of its lines are in the file, to name them in a refusal. */
interface FilePlace {
  /** "transaction 1002", "the opening balances". */
  name: string;
  /** "transaction 1002 does not balance". */
  unbalanced: string;
  line: number | null;
  element: string;
  lines: { line: number; element: string }[];
}

/**
 * A refusal of the journal writer (the posting rules, the lock date, the fiscal years) named by the
 * file's line and element: a rule of the lines is the file's fault (saft_file_invalid); the lock date
 * and a closed fiscal year keep their own codes.
 */
function refusedAt(e: unknown, at: FilePlace): unknown {
  if (!(e instanceof DomainError)) return e;
  const i = lineOfField(e.field);
  const where = i === undefined ? at : { line: at.lines[i]!.line || null, element: at.lines[i]!.element };
  const element = e.field === 'date' ? 'TransactionDate' : where.element;
  if (e.code === 'invalid_request' || e.code === 'unbalanced_transaction')
    return saftInvalid(where.line, element, `${e.code === 'unbalanced_transaction' ? at.unbalanced : at.name}: ${e.message}`);
  return new DomainError(e.code, `${where.line ? `Line ${where.line}: ` : ''}${e.message}`, element, where.line ? { line: where.line } : {});
}

const ACCOUNT_TYPES: Record<string, AccountType> = { Asset: 'asset', Liability: 'liability', Sale: 'revenue', Expense: 'expense' };

/** Imports the file's records (readSaft) into the company's empty books; throws, rolling back, on the first refusal. */
export async function importSaftRecords(db: Db, scope: CompanyScope, records: AsyncIterable<SaftRecord[]>): Promise<SaftImportCounts> {
  const c = scope.companyId;
  // A long import is many short statements: the service's bounds on one statement and on the pauses
  // between them (while the next batch is parsed) stand; the transaction's own is the caller's.
  // The number row's lock keeps every posting out until commit; under it the books must be empty.
  const [seq] = await db.$queryRaw<unknown[]>`SELECT 1 FROM number_sequences WHERE company_id = ${c}::uuid FOR UPDATE`;
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
  // Dates before the company's first fiscal year open theirs: the file brings the books kept before.
  const journal: JournalBatch = await openJournalBatch(db, scope, { events: false, years: 'history' });
  const existing = await db.account.findMany({
    where: { company_id: c },
    select: { id: true, account_number: true, name: true, standard_account_id: true },
  });
  const byNumber = new Map(existing.map((a) => [a.account_number, a.id]));
  const byStandard = new Map(existing.filter((a) => a.standard_account_id).map((a) => [a.standard_account_id, a.id]));
  const names = new Map(existing.map((a) => [a.id, { account_number: a.account_number, name: a.name }]));
  // A line's TaxInformation/TaxCode is kept when it is one of the company's VAT codes (decision 372).
  const vatCodes = new Set((await db.vatCode.findMany({ where: { company_id: c, active: true }, select: { code: true } })).map((v) => v.code));
  const claimed = new Set<string>();
  const accountOf = new Map<string, string>(); // AccountID of the file -> our account id
  const openings = new Map<string, bigint>(); // our account id -> signed opening (debit positive)
  const counts: SaftImportCounts = { accounts: 0, accounts_created: 0, customers: 0, suppliers: 0, transactions: 0, lines: 0, assets: 0 };
  // The assets and their transactions: few, kept until the journal is written (decision 860).
  const assetRecords: SaftAssetIn[] = [];
  const assetTransactions: SaftAssetIn[] = [];
  let periodStart = '';
  let parties: { kind: 'customer' | 'supplier'; fields: Map<string, string> }[] = [];

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

  /** Hands a posting to the journal writer (checked there), writing every JOURNAL_BATCH_LINES lines. */
  const post = async (posting: Posting, at: FilePlace) => {
    try {
      await journal.add(posting);
    } catch (e) {
      throw refusedAt(e, at);
    }
    counts.transactions += 1;
    counts.lines += posting.lines.length;
    // Written while the next batch is read (send): the parse and the database work side by side.
    if (journal.lines >= JOURNAL_BATCH_LINES) await journal.send();
  };

  // The file's dimensions (decision 588): each AnalysisTypeTableEntry is a value of the dimension its
  // AnalysisTypeDescription names (else its AnalysisType), made before the first posting (the journal
  // batch reads the company's dimensions then); a line's Analysis elements are its dimensions.
  const analysisEntries: SaftAnalysisIn[] = [];
  const analysisOf = new Map<string, { name: string; code: string }>(); // AnalysisType NUL AnalysisID -> dimension and code
  let dimensionsMade = false;
  const makeDimensions = async () => {
    if (dimensionsMade) return;
    dimensionsMade = true;
    const wanted = new Map<string, Map<string, string>>(); // name -> code -> value name
    for (const e of analysisEntries) {
      const type = e.fields.get('AnalysisType') ?? '';
      const name =
        (e.fields.get('AnalysisTypeDescription') ?? '')
          .replace(/[[\]:,=&]/g, ' ')
          .trim()
          .slice(0, 50) || type;
      const code = (e.fields.get('AnalysisID') ?? '').trim();
      if (!dimensionCode().safeParse(code).success)
        throw saftInvalid(
          e.line,
          'AnalysisID',
          `the analysis id ${JSON.stringify(code)} is not a dimension value code (letters, digits, space and . _ - /, at most 35)`,
        );
      analysisOf.set(`${type}\u0000${code}`, { name, code });
      const values = wanted.get(name) ?? new Map<string, string>();
      values.set(code, (e.fields.get('AnalysisIDDescription') || code).slice(0, 200));
      wanted.set(name, values);
    }
    for (const [name, values] of wanted) {
      const dimension =
        (await db.dimension.findFirst({ where: { company_id: c, name }, select: { id: true } })) ??
        (await db.dimension.create({ data: { id: newId(), company_id: c, name }, select: { id: true } }));
      await db.dimensionValue.createMany({
        data: [...values].map(([code, valueName]) => ({ id: newId(), company_id: c, dimension_id: dimension.id, code, name: valueName })),
        skipDuplicates: true,
      });
    }
  };
  /** A line's Analysis as its dimensions; each must be in AnalysisTypeTable, one value per dimension. */
  const dimensionsOf = (analysis: readonly { type: string; id: string }[], line: number): LineDimensions | undefined => {
    if (!analysis.length) return undefined;
    const out: LineDimensions = {};
    for (const a of analysis) {
      const v = analysisOf.get(`${a.type}\u0000${a.id.trim()}`);
      if (!v) throw saftInvalid(line, 'Analysis', `the analysis ${a.type} ${a.id} is not in MasterFiles/AnalysisTypeTable`);
      if (out[v.name] !== undefined) throw saftInvalid(line, 'Analysis', `the line carries two values of the dimension ${v.name}`);
      out[v.name] = v.code;
    }
    return out;
  };

  const zero = new Decimal(0);
  const addTransaction = async (t: SaftTransactionIn, fileCurrency: string) => {
    await makeDimensions();
    const id = t.fields.get('TransactionID') ?? '';
    const date = t.fields.get('TransactionDate') ?? '';
    const bad = checkDate(date);
    if (bad) throw saftInvalid(t.line, 'TransactionDate', `the date ${bad}`);
    const lines: PostingLine[] = [];
    const at: FilePlace = { name: `transaction ${id}`, unbalanced: `transaction ${id} does not balance`, line: t.line, element: 'Transaction', lines: [] };
    for (const l of t.lines) {
      const f = l.fields;
      const side = f.has('DebitAmount/Amount') ? 'DebitAmount' : 'CreditAmount';
      const amount = new Decimal(fromOere(oere(f.get(`${side}/Amount`), l.line, `${side}/Amount`)));
      // A line of no amount moves no balance: the journal keeps none (decision 373).
      if (amount.isZero()) continue;
      const accountId = accountOf.get(f.get('AccountID') ?? '');
      if (!accountId) throw saftInvalid(l.line, 'AccountID', `account ${JSON.stringify(f.get('AccountID'))} is not in GeneralLedgerAccounts`);
      const code = f.get(`${side}/CurrencyCode`) ?? '';
      const foreign = code !== '' && code !== fileCurrency && f.has(`${side}/CurrencyAmount`) && f.has(`${side}/ExchangeRate`);
      const tax = f.get('TaxInformation/TaxCode') ?? '';
      const dimensions = dimensionsOf(l.analysis, l.line);
      lines.push({
        ...(dimensions ? { dimensions } : {}),
        accountId,
        account: names.get(accountId)!,
        debit: side === 'DebitAmount' ? amount : zero,
        credit: side === 'CreditAmount' ? amount : zero,
        description: f.get('Description') ?? '',
        vatCode: vatCodes.has(tax) ? tax : '',
        foreign: foreign
          ? {
              currency: code,
              amount: new Decimal(fromOere(oere(f.get(`${side}/CurrencyAmount`), l.line, `${side}/CurrencyAmount`))),
              rate: rateOf(f.get(`${side}/ExchangeRate`), l.line, `${side}/ExchangeRate`),
            }
          : undefined,
      });
      at.lines.push({ line: l.line, element: `${side}/Amount` });
    }
    // A transaction of zero lines only has nothing to post.
    if (!lines.length && t.lines.length) return;
    await post({ date, description: t.fields.get('Description') ?? '', source: 'import', sourceJournalId: t.journalId, sourceTransactionId: id, lines }, at);
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
          const name = (f.get('AccountDescription') ?? number).slice(0, 200);
          await db.account.create({
            data: {
              id,
              company_id: c,
              account_number: number,
              name,
              type,
              group_code: groupFor(number, standardChart().groups)?.code ?? '',
              standard_account_id: standard,
            },
          });
          byNumber.set(number, id);
          names.set(id, { account_number: number, name });
          counts.accounts_created += 1;
        }
        claimed.add(id);
        accountOf.set(number, id);
        counts.accounts += 1;
        const opening = f.has('OpeningDebitBalance')
          ? oere(f.get('OpeningDebitBalance'), r.line, 'OpeningDebitBalance')
          : -oere(f.get('OpeningCreditBalance'), r.line, 'OpeningCreditBalance');
        if (opening !== 0n) openings.set(id, opening);
      } else if (r.kind === 'analysis') {
        analysisEntries.push(r);
      } else if (r.kind === 'asset') {
        assetRecords.push(r);
      } else if (r.kind === 'asset_transaction') {
        assetTransactions.push(r);
      } else if (r.kind === 'customer' || r.kind === 'supplier') {
        parties.push(r as SaftPartyIn);
        if (parties.length >= 1000) await flushParties();
      } else await addTransaction(r as SaftTransactionIn, fileCurrency);
    }
  }
  await flushParties();
  await makeDimensions();

  if (openings.size) {
    if (!periodStart) throw saftInvalid(null, 'SelectionStartDate', 'opening balances need the period the file covers (SelectionCriteria/SelectionStartDate)');
    const lines = [...openings].map(([accountId, v]): PostingLine => {
      const amount = new Decimal(fromOere(v > 0n ? v : -v));
      return {
        accountId,
        account: names.get(accountId)!,
        debit: v > 0n ? amount : zero,
        credit: v > 0n ? zero : amount,
        description: 'Opening balance',
        vatCode: '',
      };
    });
    await post(
      {
        date: addDays(periodStart, -1),
        description: 'Opening balances (SAF-T import)',
        source: 'import',
        sourceJournalId: '',
        sourceTransactionId: 'OPENING',
        lines,
      },
      {
        name: 'the opening balances',
        unbalanced: 'the opening balances do not balance',
        line: null,
        element: 'GeneralLedgerAccounts',
        lines: lines.map(() => ({ line: 0, element: 'GeneralLedgerAccounts' })),
      },
    );
  }
  await journal.flush();
  counts.assets = await importSaftAssets(db, scope, assetRecords, assetTransactions, accountOf);
  return counts;
}
