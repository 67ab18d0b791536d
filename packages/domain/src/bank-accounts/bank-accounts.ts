// Bank accounts (bankkonti): where the company keeps its money, each reconciled to one asset account of
// its chart (default 6470 Bankkonto). Created, read, listed and updated, always within the caller's
// company; an account's bank details are checked as a whole, whichever fields a request sends.
import { isUniqueViolation, type BankAccount, type Db } from '@tlr/db';
import { fromDate, toDate } from '../calendar.ts';
import type { CompanyScope } from '../context.ts';
import { DomainError, invalidRequest, notFound } from '../errors.ts';
import { newId } from '../ids.ts';
import { listPage, type ListParams, type ListSpec, type Page } from '../lists/list.ts';
import { definedOnly, viewOf } from '../master-data.ts';
import { bankAccountSchemas, type BankAccountInput, type BankAccountUpdate, type BankAccountView } from './schema.ts';
import { DEFAULT_ACCOUNTS } from '../ledger/default-accounts.ts';

const view = viewOf<typeof bankAccountSchemas.resource, BankAccount>(bankAccountSchemas.resource, {
  opening_balance_date: (r) => (r.opening_balance_date ? fromDate(r.opening_balance_date) : null),
});

export const BANK_ACCOUNT_LIST = {
  sort: { name: 'name', created_at: 'created_at' },
  defaultSort: 'name',
  search: ['name', 'iban', 'bank_account_number'],
  dateColumn: 'created_at',
  dateDescription: 'creation date',
} satisfies ListSpec;

type Details = Pick<BankAccount, 'bank_reg_number' | 'bank_account_number' | 'iban' | 'account_number'>;

/**
 * The bank details as they will be stored: a Danish account is its registreringsnummer and kontonummer
 * together, and a Danish IBAN spells out exactly those (DKkk, the 4 digits, the 10 digits zero-padded),
 * so a mismatch is a typing error in one of them.
 */
function checkDetails(d: Details): void {
  if (d.bank_reg_number && !d.bank_account_number) throw invalidRequest('A bank_reg_number needs its bank_account_number.', 'bank_account_number');
  if (d.bank_account_number && !d.bank_reg_number) throw invalidRequest('A bank_account_number needs its bank_reg_number.', 'bank_reg_number');
  if (d.iban.startsWith('DK') && d.bank_reg_number && d.iban.slice(4) !== d.bank_reg_number + d.bank_account_number.padStart(10, '0')) {
    throw invalidRequest(`The IBAN ${d.iban} is not that of ${d.bank_reg_number} ${d.bank_account_number}.`, 'iban');
  }
}

const taken = (n: string) => new DomainError('conflict', `Ledger account ${n} already backs another bank account of the company.`, 'account_number');

/** The ledger account must be an active asset account of the company's chart, backing no other of its bank accounts. */
async function checkLedgerAccount(db: Db, scope: CompanyScope, number: string, self?: string): Promise<void> {
  const account = await db.account.findUnique({ where: { company_id_account_number: { company_id: scope.companyId, account_number: number } } });
  if (!account) throw invalidRequest(`No account ${number} in the chart of accounts.`, 'account_number');
  if (account.type !== 'asset')
    throw invalidRequest(`Account ${number} (${account.name}) is a ${account.type} account; a bank account reconciles to an asset account.`, 'account_number');
  if (!account.active) throw invalidRequest(`Account ${number} (${account.name}) is deactivated.`, 'account_number');
  const other = await db.bankAccount.findFirst({ where: { company_id: scope.companyId, account_number: number, ...(self ? { NOT: { id: self } } : {}) } });
  if (other) throw taken(number);
}

/** A concurrent request took the ledger account after the check above: the unique index decides, with the same answer. */
const raced = (number: string) => (e: unknown) => Promise.reject(isUniqueViolation(e) ? taken(number) : e);

const dateColumn = (d: string | null | undefined) => (d === undefined ? undefined : d === null ? null : toDate(d));

export async function createBankAccount(db: Db, scope: CompanyScope, input: BankAccountInput): Promise<BankAccountView> {
  const row = {
    name: input.name,
    bank_reg_number: input.bank_reg_number ?? '',
    bank_account_number: input.bank_account_number ?? '',
    iban: input.iban ?? '',
    currency: input.currency ?? 'DKK',
    account_number: input.account_number ?? DEFAULT_ACCOUNTS.bank,
    opening_balance_date: dateColumn(input.opening_balance_date) ?? null,
  };
  checkDetails(row);
  await checkLedgerAccount(db, scope, row.account_number);
  const created = await db.bankAccount.create({ data: { ...row, id: newId(), company_id: scope.companyId } }).catch(raced(row.account_number));
  return view(created);
}

async function current(db: Db, scope: CompanyScope, id: string): Promise<BankAccount> {
  const row = await db.bankAccount.findFirst({ where: { id, company_id: scope.companyId } });
  if (!row) throw notFound('bank account', id);
  return row;
}

export async function getBankAccount(db: Db, scope: CompanyScope, id: string): Promise<BankAccountView> {
  return view(await current(db, scope, id));
}

export async function updateBankAccount(db: Db, scope: CompanyScope, id: string, input: BankAccountUpdate): Promise<BankAccountView> {
  // Locked first: two updates at once each check the details as a whole against what the other left, not
  // against a row read before it wrote (a reg. number from one and an account number from the other).
  await db.$executeRaw`SELECT 1 FROM bank_accounts WHERE id = ${id}::uuid AND company_id = ${scope.companyId}::uuid FOR UPDATE`;
  const before = await current(db, scope, id);
  const patch = definedOnly({ ...input, opening_balance_date: dateColumn(input.opening_balance_date) });
  checkDetails({ ...before, ...(patch as Partial<Details>) });
  if (input.account_number !== undefined && input.account_number !== before.account_number) await checkLedgerAccount(db, scope, input.account_number, id);
  const row = await db.bankAccount.update({ where: { id }, data: patch }).catch(raced(input.account_number ?? before.account_number));
  return view(row);
}

export function listBankAccounts(db: Db, scope: CompanyScope, params: ListParams): Promise<Page<BankAccountView>> {
  return listPage(db.bankAccount, { company_id: scope.companyId }, params, BANK_ACCOUNT_LIST, view);
}
