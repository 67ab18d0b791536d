// The chart accounts an invoice's postings go to (approval, payment, reminder fees), read by number: a
// missing or deactivated one is refused by name.
import type { Account, Db } from '@tlr/db';
import type { CompanyScope } from '../context.ts';
import { DomainError } from '../errors.ts';

/** Active accounts of the company by number; a missing or deactivated one is a clear 422. */
export async function accountsByNumber(db: Db, scope: CompanyScope, numbers: string[]) {
  const rows = await db.$queryRaw<Pick<Account, 'id' | 'account_number' | 'name' | 'active'>[]>`
    SELECT id, account_number, name, active FROM accounts WHERE company_id = ${scope.companyId}::uuid AND account_number = ANY(${[...new Set(numbers)]}::text[])`;
  const byNumber = new Map(rows.map((a) => [a.account_number, a]));
  return (n: string, field?: string) => {
    const a = byNumber.get(n);
    if (!a) throw new DomainError('invoice_incomplete', `The chart of accounts has no account ${n}, which this invoice posts to.`, field);
    if (!a.active) throw new DomainError('account_inactive', `Account ${n} (${a.name}), which this invoice posts to, is deactivated.`, field);
    return a;
  };
}
