// GET /bank-lines/{id}: one bank line of the caller's company.
import type { BankLine, Db } from '@tlr/db';
import type { CompanyScope } from '../context.ts';
import { notFound } from '../errors.ts';

export async function getBankLine(db: Db, scope: CompanyScope, id: string): Promise<BankLine> {
  const line = await db.bankLine.findFirst({ where: { id, company_id: scope.companyId } });
  if (!line) throw notFound('bank line', id);
  return line;
}
