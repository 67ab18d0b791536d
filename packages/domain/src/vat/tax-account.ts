// The tax account (skattekontoen) paid from the bank: once Skattestyrelsen's receipt is in (vat/filing.ts),
// the VAT payable on Skyldig moms is a payable to the tax account, identified by the receipt's OCR line. A
// bank line that pays it (money out) or receives its refund (money in) is matched by automatic matching
// like an invoice payment (bank/find-candidates.ts, rule 0): by the OCR number in its text or reference
// with the amount, or by the amount with Skattestyrelsen named in its text. The match posts the bank line
// against Skyldig moms (the settlement's account) and records the posting on the filing.
import type { BankLine, Db } from '@tlr/db';
import type { CompanyScope } from '../context.ts';
import { DomainError, notFound } from '../errors.ts';
import { DEFAULT_ACCOUNTS } from '../ledger/default-accounts.ts';
import { Decimal, decimalOf } from '../money.ts';
import { postAndMatch, type Bank } from '../bank/bank-line-match.ts';

/** Skattestyrelsen named in a bank line's text or counterparty (SKAT, Skattestyrelsen, skattekonto). */
const NAMES_SKAT = /\bskat(?:testyrelsen|tekonto(?:en)?)?\b/i;

const ocrNumberOf = (ocrLine: string) => /<(\d{16})/.exec(ocrLine)?.[1] ?? '';

/**
 * The approved, unpaid filings a bank line may pay (or be the refund of): certain when the line carries
 * the OCR number and the amount, or the amount and Skattestyrelsen's name (nothing else is suggested: a
 * line that only nearly fits is left to the other rules and to a person).
 */
export async function taxAccountCandidatesMany(db: Db, scope: CompanyScope, lines: readonly BankLine[]): Promise<string[][]> {
  const seen = lines.map((line) => {
    const amount = decimalOf(line.amount);
    const text = `${line.reference} ${line.text} ${line.counterparty_name}`;
    const digits = text.replace(/[\s.-]/g, '');
    const byName = NAMES_SKAT.test(text);
    // Most lines carry neither an OCR number nor Skattestyrelsen's name: no query for them.
    return { amount, digits, byName, possible: !amount.isZero() && (byName || /\d{16}/.test(digits)) };
  });
  if (!seen.some((l) => l.possible)) return lines.map(() => []);
  const filings = await db.vatFiling.findMany({
    where: { company_id: scope.companyId, state: 'approved', paid_transaction_id: null, amount_due: { not: 0 } },
    select: { id: true, amount_due: true, ocr_line: true },
  });
  return seen.map(({ amount, digits, byName, possible }) => {
    const certain: string[] = [];
    if (!possible) return certain;
    for (const f of filings) {
      const exact = amount.negated().equals(decimalOf(f.amount_due!));
      const ocr = ocrNumberOf(f.ocr_line);
      if (exact && ((ocr !== '' && digits.includes(ocr)) || byName)) certain.push(f.id);
    }
    return certain;
  });
}

/**
 * The match: the bank line posted against Skyldig moms (7840) on its booking date, the filing paid, the
 * line matched to the posting. The caller holds the line's lock; the filing's row is locked here.
 */
export async function payTaxAccount(db: Db, scope: CompanyScope, line: BankLine, bank: Bank, filingId: string, by: 'auto' | 'manual'): Promise<BankLine> {
  const [filing] = await db.$queryRaw<{ id: string; period: string; paid_transaction_id: string | null }[]>`
    SELECT id, period, paid_transaction_id FROM vat_filings WHERE id = ${filingId}::uuid AND company_id = ${scope.companyId}::uuid FOR UPDATE`;
  if (!filing) throw notFound('vat filing', filingId);
  if (filing.paid_transaction_id)
    throw new DomainError('conflict', `The tax account of the VAT return ${filing.period} is already paid (transaction ${filing.paid_transaction_id}).`);
  const amount = decimalOf(line.amount);
  const size = amount.abs();
  const settlement = await db.account.findUniqueOrThrow({
    where: { company_id_account_number: { company_id: scope.companyId, account_number: DEFAULT_ACCOUNTS.vatSettlement } },
    select: { id: true },
  });
  const text = `${amount.isNegative() ? 'Betaling af moms' : 'Tilbagebetaling af moms'} ${filing.period}, skattekontoen`;
  const zero = new Decimal(0);
  // Money out: Skyldig moms debited (the debt paid), the bank credited; a refund the other way.
  const lines = [
    { accountId: settlement.id, debit: amount.isNegative() ? size : zero, credit: amount.isNegative() ? zero : size, description: text, vatCode: '' },
    { accountId: bank.ledgerAccountId, debit: amount.isNegative() ? zero : size, credit: amount.isNegative() ? size : zero, description: text, vatCode: '' },
  ];
  return postAndMatch(db, scope, line, bank, { description: text, lines }, by, (transactionId) =>
    db.vatFiling.update({ where: { id: filingId }, data: { paid_transaction_id: transactionId } }),
  );
}
