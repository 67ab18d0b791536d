// The chart of accounts through the API. An account with postings keeps its number and type (the
// ledger refers to them); accounts are deactivated, never deleted.
import { isUniqueViolation, type Db } from '@tlr/db';
import type { CompanyScope } from '../context.ts';
import { DomainError, invalidRequest, notFound } from '../errors.ts';
import { newId } from '../ids.ts';
import { listPage, type ListParams, type ListSpec, type Page } from '../lists/list.ts';
import { groupFor, standardChart, typeForNumber, type AccountType } from './standard-chart.ts';
import { accountView, type AccountView } from './views.ts';

export interface AccountInput {
  account_number: string;
  name: string;
  /** Default: the type the number's standard-chart group implies. */
  type?: AccountType | undefined;
  standard_account_id?: string | undefined;
  default_vat_code?: string | undefined;
  active?: boolean | undefined;
}

function groupName(code: string): string {
  return standardChart().groups.find((g) => g.code === code)?.name ?? '';
}
const view = (a: Parameters<typeof accountView>[0]) => accountView(a, groupName(a.group_code));

async function checkVatCode(db: Db, scope: CompanyScope, code: string | undefined) {
  if (!code) return;
  const found = await db.vatCode.findUnique({ where: { company_id_code: { company_id: scope.companyId, code } } });
  if (!found) throw invalidRequest(`Unknown VAT code ${code}.`, 'default_vat_code');
}

function checkStandardAccount(id: string | undefined) {
  if (id && !standardChart().accounts.some((a) => a.standard_account_id === id)) {
    throw invalidRequest(`${id} is not an account of the Danish standard chart.`, 'standard_account_id');
  }
}

const numberTaken = (n: string) => new DomainError('account_number_taken', `Account number ${n} is already in the chart of accounts.`, 'account_number');

export async function createAccount(db: Db, scope: CompanyScope, input: AccountInput): Promise<AccountView> {
  const type = input.type ?? typeForNumber(input.account_number);
  if (!type) throw invalidRequest(`Account number ${input.account_number} lies outside the standard chart's groups; give its type.`, 'type');
  await checkVatCode(db, scope, input.default_vat_code);
  checkStandardAccount(input.standard_account_id);
  if (await db.account.findUnique({ where: { company_id_account_number: { company_id: scope.companyId, account_number: input.account_number } } })) {
    throw numberTaken(input.account_number);
  }
  const row = await db.account
    .create({
      data: {
        id: newId(),
        company_id: scope.companyId,
        account_number: input.account_number,
        name: input.name,
        type,
        group_code: groupFor(input.account_number, standardChart().groups)?.code ?? '',
        standard_account_id: input.standard_account_id ?? '',
        default_vat_code: input.default_vat_code ?? '',
        active: input.active ?? true,
      },
    })
    // A concurrent create of the same number passed the check above too; the unique index decides.
    .catch((e) => Promise.reject(isUniqueViolation(e) ? numberTaken(input.account_number) : e));
  return view(row);
}

export async function getAccount(db: Db, scope: CompanyScope, id: string): Promise<AccountView> {
  const row = await db.account.findFirst({ where: { id, company_id: scope.companyId } });
  if (!row) throw notFound('account', id);
  return view(row);
}

export async function updateAccount(db: Db, scope: CompanyScope, id: string, input: Partial<AccountInput>): Promise<AccountView> {
  const current = await db.account.findFirst({ where: { id, company_id: scope.companyId } });
  if (!current) throw notFound('account', id);
  const renumber = input.account_number !== undefined && input.account_number !== current.account_number;
  const retype = input.type !== undefined && input.type !== current.type;
  if (renumber || retype) {
    const posted = await db.transactionLine.findFirst({ where: { company_id: scope.companyId, account_id: id }, select: { id: true } });
    if (posted) {
      throw new DomainError(
        'account_has_postings',
        `Account ${current.account_number} has postings; its ${renumber ? 'number' : 'type'} cannot change. Deactivate it and create a new account instead.`,
        renumber ? 'account_number' : 'type',
      );
    }
  }
  if (
    renumber &&
    (await db.account.findUnique({ where: { company_id_account_number: { company_id: scope.companyId, account_number: input.account_number! } } }))
  ) {
    throw numberTaken(input.account_number!);
  }
  await checkVatCode(db, scope, input.default_vat_code);
  checkStandardAccount(input.standard_account_id);
  const row = await db.account
    .update({
      where: { id },
      data: {
        ...(input.name !== undefined ? { name: input.name } : {}),
        ...(input.type !== undefined ? { type: input.type } : {}),
        ...(input.active !== undefined ? { active: input.active } : {}),
        ...(input.default_vat_code !== undefined ? { default_vat_code: input.default_vat_code } : {}),
        ...(input.standard_account_id !== undefined ? { standard_account_id: input.standard_account_id } : {}),
        ...(renumber ? { account_number: input.account_number!, group_code: groupFor(input.account_number!, standardChart().groups)?.code ?? '' } : {}),
      },
    })
    .catch((e) => Promise.reject(isUniqueViolation(e) ? numberTaken(input.account_number!) : e));
  return view(row);
}

export function listAccounts(
  db: Db,
  scope: CompanyScope,
  params: ListParams & { active?: boolean | undefined; type?: string | undefined },
): Promise<Page<AccountView>> {
  const base = {
    company_id: scope.companyId,
    ...(params.active !== undefined ? { active: params.active } : {}),
    ...(params.type ? { type: params.type } : {}),
  };
  return listPage(db.account, base, params, ACCOUNT_LIST, view);
}

export const ACCOUNT_LIST = {
  sort: { account_number: 'account_number', name: 'name', created_at: 'created_at' },
  defaultSort: 'account_number',
  search: ['account_number', 'name'],
  dateColumn: 'created_at',
  dateDescription: 'creation date',
} satisfies ListSpec;
