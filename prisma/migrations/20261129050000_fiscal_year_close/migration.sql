-- Order 20: closing a fiscal year (docs/reports.md#closing-the-fiscal-year): the closing entry that moved
-- the year's result to equity, and when the year was closed. A reopened year has neither.
-- AlterTable
ALTER TABLE "fiscal_years" ADD COLUMN     "closed_at" TIMESTAMPTZ(3),
ADD COLUMN     "closing_transaction_id" UUID;

-- The profit and loss leaves the closing entries out (decision 551): it finds them among a year's postings
-- without reading the others.
CREATE INDEX "ledger_transactions_year_end" ON "ledger_transactions" ("company_id", "date") WHERE source = 'year_end';
