// POST /bank-lines/{id}/match: the user names the invoice, expense or transaction a line pays; the match is
// made as the machine's would be (apply-match.ts).
import type { BankLine, Db } from '@tlr/db';
import type { CompanyScope } from '../context.ts';
import { invalidRequest } from '../errors.ts';
import type { MatchInput } from './schema.ts';
import { alreadyMatched, lockLine, type Target } from './bank-line-match.ts';
import { applyMatch } from './apply-match.ts';

/** POST /bank-lines/{id}/match: the user names what the line pays. */
export async function matchBankLine(db: Db, scope: CompanyScope, id: string, input: MatchInput): Promise<BankLine> {
  const given = (['invoice_id', 'expense_id', 'transaction_id'] as const).filter((k) => input[k] !== undefined);
  if (given.length !== 1) throw invalidRequest('Name exactly one of invoice_id, expense_id and transaction_id.', given[1] ?? 'invoice_id');
  const locked = (await lockLine(db, scope, id))!;
  if (locked.line.status === 'matched') throw alreadyMatched(locked.line);
  const field = given[0]!;
  if (field === 'transaction_id') {
    const tx = await db.ledgerTransaction.findFirst({ where: { id: input.transaction_id!, company_id: scope.companyId }, select: { id: true } });
    if (!tx) throw invalidRequest(`No transaction ${input.transaction_id} in the company's books.`, 'transaction_id');
  }
  const type = field.replace('_id', '') as Target['type'];
  return applyMatch(db, scope, locked.line, locked.bank, { type, id: input[field]! }, 'manual');
}
