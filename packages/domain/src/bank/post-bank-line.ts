// POST /bank-lines/{id}/post: a line that pays no document (a fee, interest, an owner's draw) posted to an
// account, with the VAT of a code split out, and marked matched to its posting.
import type { BankLine, Db } from '@tlr/db';
import type { CompanyScope } from '../context.ts';
import { DomainError, invalidRequest } from '../errors.ts';
import { bookingLines, expenseVat } from '../expenses/rules.ts';
import { reversingLines, type PostingLine } from '../ledger/rules.ts';
import { Decimal, decimalOf } from '../money.ts';
import { vatFromGross } from '../vat/arithmetic.ts';
import { isSalesKind, vatLines } from '../vat/codes.ts';
import { postableCode, vatCodesOf } from '../vat/treatments.ts';
import type { PostLineInput } from './schema.ts';
import { alreadyMatched, lockLine, postAndMatch } from './bank-line-match.ts';

/**
 * POST /bank-lines/{id}/post: a line that pays no document (a fee, interest, an owner's draw) is posted
 * to an account, the bank's ledger account on the other side. The amount includes the VAT of the code:
 * a purchase code splits it as an expense's booking does, a sales code as a sale's; money the other way
 * posts the mirror (a refund), so the VAT return sees it reduced.
 */
export async function postBankLine(db: Db, scope: CompanyScope, id: string, input: PostLineInput): Promise<BankLine> {
  const { line, bank } = (await lockLine(db, scope, id))!;
  if (line.status === 'matched') throw alreadyMatched(line);
  const account = await db.account.findUnique({ where: { company_id_account_number: { company_id: scope.companyId, account_number: input.account_number } } });
  if (!account) throw invalidRequest(`No account ${input.account_number} in the chart of accounts.`, 'account_number');
  if (!account.active) throw new DomainError('account_inactive', `Account ${account.account_number} is deactivated.`, 'account_number');
  if (account.id === bank.ledgerAccountId)
    throw invalidRequest(`Account ${account.account_number} is the bank account's own ledger account.`, 'account_number');
  if (bank.account.currency !== 'DKK') {
    throw invalidRequest(
      `A line of a ${bank.account.currency} account is matched to a document or a posting in its currency, not posted from here.`,
      'account_number',
    );
  }
  const amount = decimalOf(line.amount);
  const size = amount.abs();
  const text = (input.description ?? (line.text || line.counterparty_name || 'Bankpostering')).slice(0, 500);
  const plain: PostingLine[] = [
    { accountId: bank.ledgerAccountId, debit: size, credit: new Decimal(0), description: text, vatCode: '' },
    { accountId: account.id, debit: new Decimal(0), credit: size, description: text, vatCode: '' },
  ];
  let lines = amount.isNegative() ? reversingLines(plain) : plain;
  if (input.vat_code) {
    const code = (await vatCodesOf(db, scope, [input.vat_code])).get(input.vat_code);
    if (!code || !code.active) throw invalidRequest(`Unknown VAT code ${input.vat_code}; GET /vat-codes lists the company's codes.`, 'vat_code');
    postableCode(code, 'vat_code');
    if (isSalesKind(code.kind)) {
      // Money in under a sales code: the bank is debited the gross, the account credited the base, the VAT owed.
      const vat = code.kind === 'output' ? vatFromGross(size, code.rate).vat : new Decimal(0);
      const sale: PostingLine[] = [
        { accountId: bank.ledgerAccountId, debit: size, credit: new Decimal(0), description: text, vatCode: '' },
        { accountId: account.id, debit: new Decimal(0), credit: size.minus(vat), description: text, vatCode: code.code },
        ...vatLines(code, vat, text).lines,
      ];
      lines = amount.isNegative() ? reversingLines(sale) : sale;
    } else {
      // Money out under a purchase code is a bill paid at once: the expense's booking with the bank for payables.
      const bill = bookingLines(
        { costAccountId: account.id, payableAccountId: bank.ledgerAccountId, amount: size, vat: expenseVat(code, size, undefined), text },
        code,
      );
      lines = amount.isNegative() ? bill : reversingLines(bill);
    }
  }
  return postAndMatch(db, scope, line, bank, { description: text, lines }, 'manual');
}
