// Resetting a sandbox to a freshly provisioned state (contract, Test mode 4): bookkeeping data, master
// data, stored idempotency keys and events go; API keys, webhook subscriptions and the request audit
// log stay; the chart of accounts, fiscal year and VAT periods are seeded again.
import type { Db } from '@tlr/db';
import { forbidden } from '../errors.ts';
import { provisionBooks } from '../ledger/books.ts';
import type { Credential } from '../credentials/authenticate.ts';
import { mirroredSettings } from './companies.ts';
import type { VoucherStore } from '../vouchers/vouchers.ts';

export function assertMayResetSandbox(credential: Credential): void {
  if (credential.type !== 'api_key' || credential.mode !== 'test') {
    throw forbidden('Only test API keys (tlr_test_...) may reset the sandbox; live keys and OAuth tokens address real books.');
  }
}

/**
 * `cleanup`: where the sandbox's voucher documents go once the reset committed (they are marked for the
 * sweeper in the reset's transaction, so a failed clean-up is finished later).
 */
export async function resetSandbox(db: Db, companyId: string, cleanup?: { store: VoucherStore; afterCommit: (fn: (pool: Db) => Promise<void>) => void }) {
  const company = await db.company.findUnique({ where: { id: companyId } });
  if (!company?.sandbox_of_id) {
    throw forbidden('Only a sandbox company can be reset.');
  }
  // Wait for postings in flight: they hold this row until they commit.
  await db.$queryRaw`SELECT 1 FROM number_sequences WHERE company_id = ${companyId}::uuid FOR UPDATE`;
  // The ledger refuses deletes except during a reset, which says so for this transaction only.
  await db.$executeRaw`SELECT set_config('tlr.ledger_reset', 'on', true)`;
  const where = { company_id: companyId };
  const documents = await db.voucher.findMany({ where, select: { storage_key: true } });
  if (documents.length) {
    await db.storedObjectIntent.createMany({ data: documents.map((d) => ({ storage_key: d.storage_key, company_id: companyId })), skipDuplicates: true });
    cleanup?.afterCommit(async (pool) => {
      await cleanup.store.deletePrefix(`${companyId}/`);
      await pool.storedObjectIntent.deleteMany({ where: { storage_key: { in: documents.map((d) => d.storage_key) } } });
    });
  }
  await db.voucher.deleteMany({ where });
  await db.expenseLine.deleteMany({ where });
  await db.expense.deleteMany({ where });
  await db.supplierItemAccount.deleteMany({ where });
  await db.assetDepreciation.deleteMany({ where });
  await db.accrualPosting.deleteMany({ where });
  await db.accrual.deleteMany({ where });
  await db.fixedAsset.deleteMany({ where });
  await db.recurringInvoicePeriod.deleteMany({ where });
  await db.recurringInvoice.deleteMany({ where });
  await db.einvoiceMessage.deleteMany({ where });
  // Before the invoices and quotes they name; the sandbox's texts go too, as its settings are mirrored anew.
  await db.emailDelivery.deleteMany({ where });
  await db.emailTemplate.deleteMany({ where });
  await db.creditNote.deleteMany({ where });
  await db.quote.deleteMany({ where });
  await db.invoiceReminder.deleteMany({ where });
  await db.invoicePayment.deleteMany({ where });
  await db.invoiceLine.deleteMany({ where });
  await db.invoice.deleteMany({ where });
  await db.journalLineDimension.deleteMany({ where });
  await db.openingBalanceItem.deleteMany({ where });
  await db.openingBalancePayment.deleteMany({ where });
  await db.transactionLine.deleteMany({ where });
  await db.ledgerTransaction.deleteMany({ where });
  await db.accountDailyBalance.deleteMany({ where });
  await db.accountMonthlyBalance.deleteMany({ where });
  await db.vatMonthlyBase.deleteMany({ where });
  await db.vatFiling.deleteMany({ where });
  await db.vatReturn.deleteMany({ where });
  await db.numberSequence.deleteMany({ where });
  // Before the chart: a bank account refers to its ledger account; its lines and statements refer to it.
  await db.bankLine.deleteMany({ where });
  await db.bankStatement.deleteMany({ where });
  await db.bankAccount.deleteMany({ where });
  await db.budget.deleteMany({ where });
  await db.dimension.deleteMany({ where });
  await db.account.deleteMany({ where });
  await db.vatCode.deleteMany({ where });
  await db.vatPeriod.deleteMany({ where });
  await db.fiscalYear.deleteMany({ where });
  await db.customer.deleteMany({ where });
  await db.product.deleteMany({ where });
  await db.supplier.deleteMany({ where });
  await db.exchangeRate.deleteMany({ where });
  await db.idempotencyKey.deleteMany({ where });
  await db.outboxEvent.deleteMany({ where });
  // Mirror the live company's settings again, as a new sandbox would.
  const live = await db.company.findUniqueOrThrow({ where: { id: company.sandbox_of_id } });
  const mirrored = await db.company.update({
    where: { id: companyId },
    data: { ...mirroredSettings(live), lock_date: null },
  });
  await provisionBooks(db, mirrored);
  return { company_id: companyId, reset: true as const };
}
