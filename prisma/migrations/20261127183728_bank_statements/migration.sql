-- Bank statements and their lines (Order 15): each line stored once per bank account by its identity, matched
-- to at most one registration and one ledger line; an invoice payment undone by an unmatch keeps its row.
-- AlterTable
ALTER TABLE "invoice_payments" ADD COLUMN     "reversed_transaction_id" UUID;

-- CreateTable
CREATE TABLE "bank_statements" (
    "id" UUID NOT NULL,
    "company_id" UUID NOT NULL,
    "bank_account_id" UUID NOT NULL,
    "format" TEXT NOT NULL,
    "file_name" TEXT NOT NULL DEFAULT '',
    "file_sha256" TEXT NOT NULL,
    "statement_ref" TEXT NOT NULL DEFAULT '',
    "from_date" DATE,
    "to_date" DATE,
    "opening_balance" DECIMAL(18,2),
    "closing_balance" DECIMAL(18,2),
    "balance_status" TEXT NOT NULL DEFAULT 'not_stated',
    "balance_difference" DECIMAL(18,2),
    "line_count" INTEGER NOT NULL DEFAULT 0,
    "new_count" INTEGER NOT NULL DEFAULT 0,
    "duplicate_count" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "bank_statements_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "bank_lines" (
    "id" UUID NOT NULL,
    "company_id" UUID NOT NULL,
    "bank_account_id" UUID NOT NULL,
    "statement_id" UUID NOT NULL,
    "identity" TEXT NOT NULL,
    "booking_date" DATE NOT NULL,
    "value_date" DATE,
    "amount" DECIMAL(18,2) NOT NULL,
    "currency" CHAR(3) NOT NULL,
    "text" TEXT NOT NULL DEFAULT '',
    "counterparty_name" TEXT NOT NULL DEFAULT '',
    "counterparty_iban" TEXT NOT NULL DEFAULT '',
    "reference" TEXT NOT NULL DEFAULT '',
    "bank_reference" TEXT NOT NULL DEFAULT '',
    "status" TEXT NOT NULL DEFAULT 'unmatched',
    "match_type" TEXT,
    "invoice_id" UUID,
    "expense_id" UUID,
    "transaction_id" UUID,
    "journal_line_id" UUID,
    "matched_by" TEXT,
    "matched_at" TIMESTAMPTZ(3),
    "suggestions" JSONB NOT NULL DEFAULT '[]',
    "checked_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "bank_lines_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "bank_statements_company_id_bank_account_id_created_at_id_idx" ON "bank_statements"("company_id", "bank_account_id", "created_at", "id");

-- CreateIndex
CREATE UNIQUE INDEX "bank_lines_journal_line_id_key" ON "bank_lines"("journal_line_id");

-- CreateIndex
CREATE INDEX "bank_lines_company_id_bank_account_id_booking_date_id_idx" ON "bank_lines"("company_id", "bank_account_id", "booking_date", "id");

-- CreateIndex
CREATE INDEX "bank_lines_bank_account_id_status_booking_date_idx" ON "bank_lines"("bank_account_id", "status", "booking_date");

-- CreateIndex
CREATE INDEX "bank_lines_checked_at_bank_account_id_idx" ON "bank_lines"("checked_at", "bank_account_id");

-- CreateIndex
CREATE UNIQUE INDEX "bank_lines_bank_account_id_identity_key" ON "bank_lines"("bank_account_id", "identity");

-- AddForeignKey
ALTER TABLE "bank_statements" ADD CONSTRAINT "bank_statements_bank_account_id_fkey" FOREIGN KEY ("bank_account_id") REFERENCES "bank_accounts"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "bank_lines" ADD CONSTRAINT "bank_lines_bank_account_id_fkey" FOREIGN KEY ("bank_account_id") REFERENCES "bank_accounts"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
