// Manual ledger transactions through the API: resolve and check the accounts and VAT codes of the
// company, then post through the one posting function. Posted transactions are never changed; a
// correction is a reversing transaction.
import { isUniqueViolation, type Db } from '@tlr/db';
import type { CompanyScope } from '../context.ts';
import { DomainError, invalidRequest, notFound } from '../errors.ts';
import { Decimal } from '../money.ts';
import { listPage, type ListParams, type ListSpec, type Page } from '../lists/list.ts';
import { today } from '../calendar.ts';
import { postTransaction, transactionInclude } from './post.ts';
import { reversingLines, storedPostingLine, STORED_LINE_DIMENSIONS, type PostingLine } from './rules.ts';
import { foreignOf, type ForeignInput } from '../currency/rules.ts';
import { transactionView, type TransactionView } from './views.ts';
import type { LineDimensions } from '../dimensions/schema.ts';
import { lockVoucherForAttachment, markVoucherPosted } from '../vouchers/vouchers.ts';

export interface TransactionLineInput extends ForeignInput {
  account_id?: string | undefined;
  account_number?: string | undefined;
  debit?: Decimal | undefined;
  credit?: Decimal | undefined;
  description?: string | undefined;
  vat_code?: string | undefined;
  dimensions?: LineDimensions | undefined;
}

export interface TransactionInput {
  date: string;
  description?: string | undefined;
  lines: TransactionLineInput[];
  /** A voucher of the company that documents this posting (it is then kept for the retention period). */
  voucher_id?: string | undefined;
}

/** Maps each input line to an active account of the company (by id or number) and a known VAT code. */
export async function resolveLines(db: Db, scope: CompanyScope, lines: TransactionLineInput[]): Promise<PostingLine[]> {
  const ids = lines.flatMap((l) => (l.account_id ? [l.account_id] : []));
  const numbers = lines.flatMap((l) => (l.account_id ? [] : l.account_number ? [l.account_number] : []));
  const accounts = await db.account.findMany({
    where: { company_id: scope.companyId, OR: [{ id: { in: ids } }, { account_number: { in: numbers } }] },
  });
  const byId = new Map(accounts.map((a) => [a.id, a]));
  const byNumber = new Map(accounts.map((a) => [a.account_number, a]));
  // Most postings name no VAT code: then there is nothing to check against.
  const codes = lines.some((l) => l.vat_code)
    ? new Set((await db.vatCode.findMany({ where: { company_id: scope.companyId, active: true }, select: { code: true } })).map((v) => v.code))
    : new Set<string>();
  return lines.map((l, i) => {
    const field = `lines[${i}].${l.account_id ? 'account_id' : 'account_number'}`;
    if (!l.account_id && !l.account_number) throw invalidRequest('Each line needs an account_id or an account_number.', `lines[${i}].account_id`);
    const account = l.account_id ? byId.get(l.account_id) : byNumber.get(l.account_number!);
    // Another company's account is indistinguishable from one that does not exist.
    if (!account) throw invalidRequest(`No account ${l.account_id ?? l.account_number} in the company's chart of accounts.`, field);
    if (!account.active) {
      throw new DomainError('account_inactive', `Account ${account.account_number} is deactivated.`, field);
    }
    const vatCode = l.vat_code ?? '';
    if (vatCode && !codes.has(vatCode)) throw invalidRequest(`Unknown VAT code ${vatCode}.`, `lines[${i}].vat_code`);
    return {
      accountId: account.id,
      account: { account_number: account.account_number, name: account.name },
      debit: l.debit ?? new Decimal(0),
      credit: l.credit ?? new Decimal(0),
      description: l.description ?? '',
      vatCode,
      foreign: foreignOf(l, `lines[${i}]`),
      ...(l.dimensions && Object.keys(l.dimensions).length ? { dimensions: l.dimensions } : {}),
    };
  });
}

export async function createTransaction(db: Db, scope: CompanyScope, input: TransactionInput): Promise<TransactionView> {
  const lines = await resolveLines(db, scope, input.lines);
  // Checked (and locked) before the posting draws a number: a foreign voucher consumes none.
  if (input.voucher_id) await lockVoucherForAttachment(db, scope, input.voucher_id);
  const posted = await postTransaction(db, scope, {
    date: input.date,
    description: input.description ?? '',
    lines,
    source: 'manual',
    voucherId: input.voucher_id,
  });
  if (input.voucher_id) await markVoucherPosted(db, scope, input.voucher_id, { id: posted.id, date: input.date });
  return posted;
}

export async function getTransaction(db: Db, scope: CompanyScope, id: string): Promise<TransactionView> {
  const row = await db.ledgerTransaction.findFirst({ where: { id, company_id: scope.companyId }, include: transactionInclude });
  if (!row) throw notFound('transaction', id);
  return transactionView(row);
}

export function listTransactions(db: Db, scope: CompanyScope, params: ListParams): Promise<Page<TransactionView>> {
  const delegate = {
    findMany: (args: object) => db.ledgerTransaction.findMany({ ...args, include: transactionInclude }),
    count: (args: { where: object }) => db.ledgerTransaction.count(args),
  };
  return listPage(delegate, { company_id: scope.companyId }, params, TRANSACTION_LIST, transactionView);
}

export const TRANSACTION_LIST = {
  sort: { date: 'date', created_at: 'created_at' },
  defaultSort: 'date',
  search: ['description'],
  // The posting date: what a bookkeeper filters on.
  dateColumn: 'date',
  dateDescription: 'posting date',
} satisfies ListSpec;

export interface ReverseInput {
  date?: string | undefined;
  description?: string | undefined;
}

/** Posts the reversal of a transaction (same accounts, debit and credit swapped), at most once. */
export async function reverseTransaction(db: Db, scope: CompanyScope, id: string, input: ReverseInput): Promise<TransactionView> {
  const original = await db.ledgerTransaction.findFirst({
    where: { id, company_id: scope.companyId },
    // The lines with their dimensions: the reversal carries them back (decision 585).
    include: { lines: { orderBy: { line_number: 'asc' }, include: { dimensions: STORED_LINE_DIMENSIONS } }, reversed_by: true },
  });
  if (!original) throw notFound('transaction', id);
  if (original.reversed_by) {
    throw new DomainError('already_reversed', `Transaction ${id} was already reversed by ${original.reversed_by.id}.`);
  }
  if (original.source === 'reversal') {
    throw new DomainError('reversal_of_reversal', 'A reversing transaction cannot itself be reversed; post a new transaction instead.');
  }
  if (original.source !== 'manual') {
    // Its document would no longer match the books: an invoice is cancelled with a credit note instead.
    throw new DomainError(
      'reversal_of_document',
      `Transaction ${id} is the posting of a ${original.source.replace('_', ' ')}; change the document instead (an invoice is cancelled with a credit note).`,
    );
  }
  const lines = reversingLines(original.lines.map(storedPostingLine));
  try {
    return await postTransaction(db, scope, {
      date: input.date ?? today(),
      description: input.description ?? `Tilbageførsel af bilag ${original.document_number}: ${original.description}`,
      lines,
      source: 'reversal',
      reversesId: original.id,
    });
  } catch (e) {
    // A concurrent reversal of the same transaction won the unique reverses_id.
    if (isUniqueViolation(e)) {
      throw new DomainError('already_reversed', `Transaction ${id} was already reversed.`);
    }
    throw e;
  }
}
