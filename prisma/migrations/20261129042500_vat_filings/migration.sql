-- Order 19: the VAT return filed with Skattestyrelsen through the RSU B2B gateway (vat_filings, one row per
-- settled version sent) and the company's SE number.
-- AlterTable
ALTER TABLE "companies" ADD COLUMN     "eu_sales_frequency" TEXT NOT NULL DEFAULT 'quarterly',
ADD COLUMN     "se_number" TEXT NOT NULL DEFAULT '';

-- CreateTable
CREATE TABLE "vat_filings" (
    "id" UUID NOT NULL,
    "company_id" UUID NOT NULL,
    "period" TEXT NOT NULL,
    "version" SMALLINT NOT NULL,
    "kind" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "se_number" TEXT NOT NULL,
    "request_transaction_id" UUID NOT NULL,
    "skat_transaction_id" TEXT NOT NULL DEFAULT '',
    "approval_url" TEXT NOT NULL DEFAULT '',
    "messages" JSONB NOT NULL DEFAULT '[]',
    "fields" JSONB NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3),
    "last_error" TEXT NOT NULL DEFAULT '',
    "submitted_at" TIMESTAMPTZ(3),
    "approved_at" TIMESTAMPTZ(3),
    "amount_due" DECIMAL(18,2),
    "payment_deadline" DATE,
    "ocr_line" TEXT NOT NULL DEFAULT '',
    "receipt_voucher_id" UUID,
    "calendar_deadline" DATE,
    "paid_transaction_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "vat_filings_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "vat_filings_request_transaction_id_key" ON "vat_filings"("request_transaction_id");

-- CreateIndex
CREATE INDEX "vat_filings_state_next_attempt_at_idx" ON "vat_filings"("state", "next_attempt_at");

-- CreateIndex
CREATE UNIQUE INDEX "vat_filings_company_id_period_version_key" ON "vat_filings"("company_id", "period", "version");

-- The VAT code of triangular trade (trekantshandel), for the companies seeded before it (vat/codes.ts, decision 511).
INSERT INTO "vat_codes" ("id", "company_id", "code", "name", "kind", "rate", "account_number", "offset_account_number", "deductible_percent", "standard_code")
SELECT gen_random_uuid(), c."id", 'SEUT', 'Trekantshandel, salg af varer til EU, 0% (rubrik B, indberettes)', 'eu_sale_goods', 0, '', '', 100, 'S-EU-V-0'
FROM "companies" c
WHERE NOT EXISTS (SELECT 1 FROM "vat_codes" v WHERE v."company_id" = c."id" AND v."code" = 'SEUT');
