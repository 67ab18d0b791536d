-- Accruals (periodisering): an expense, an expense line or an invoice line spread over a range of months;
-- the accrued lines of booked documents, and each month moved to the result account (unique per accrual and month).
ALTER TABLE "expenses" ADD COLUMN "accrual_from" DATE,
ADD COLUMN "accrual_to" DATE;

ALTER TABLE "expense_lines" ADD COLUMN "accrual_from" DATE,
ADD COLUMN "accrual_to" DATE;

ALTER TABLE "invoice_lines" ADD COLUMN "accrual_from" DATE,
ADD COLUMN "accrual_to" DATE;

CREATE TABLE "accruals" (
    "id" UUID NOT NULL,
    "company_id" UUID NOT NULL,
    "document_type" TEXT NOT NULL,
    "document_id" UUID NOT NULL,
    "line_id" UUID,
    "description" TEXT NOT NULL DEFAULT '',
    "holding_account_id" UUID NOT NULL,
    "result_account_id" UUID NOT NULL,
    "amount" DECIMAL(18,2) NOT NULL,
    "from_month" DATE NOT NULL,
    "months" INTEGER NOT NULL,
    "months_posted" INTEGER NOT NULL DEFAULT 0,
    "moved" DECIMAL(18,2) NOT NULL DEFAULT 0,
    "status" TEXT NOT NULL DEFAULT 'active',
    "dimensions" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "accruals_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "accrual_postings" (
    "id" UUID NOT NULL,
    "company_id" UUID NOT NULL,
    "accrual_id" UUID NOT NULL,
    "month" DATE NOT NULL,
    "amount" DECIMAL(18,2) NOT NULL,
    "transaction_id" UUID NOT NULL,
    "date" DATE NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "accrual_postings_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "accruals_company_id_document_id_idx" ON "accruals"("company_id", "document_id");
CREATE INDEX "accruals_status_idx" ON "accruals"("status");
CREATE UNIQUE INDEX "accruals_document_id_line_id_key" ON "accruals"("document_id", "line_id");
CREATE UNIQUE INDEX "accrual_postings_accrual_id_month_key" ON "accrual_postings"("accrual_id", "month");

ALTER TABLE "accrual_postings" ADD CONSTRAINT "accrual_postings_accrual_id_fkey" FOREIGN KEY ("accrual_id") REFERENCES "accruals"("id") ON DELETE CASCADE ON UPDATE CASCADE;
