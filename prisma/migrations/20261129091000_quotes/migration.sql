-- Quotes (tilbud): their own gapless number series beside the unified document numbers, the quotes and
-- their lines (an invoice line's columns), and the invoice an accepted quote was made into.
-- AlterTable
ALTER TABLE "number_sequences" ADD COLUMN     "last_quote_number" BIGINT NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "invoices" ADD COLUMN     "quote_id" UUID;

-- CreateTable
CREATE TABLE "quotes" (
    "id" UUID NOT NULL,
    "company_id" UUID NOT NULL,
    "quote_number" TEXT NOT NULL DEFAULT '',
    "number" BIGINT,
    "customer_id" UUID,
    "customer_name" TEXT NOT NULL DEFAULT '',
    "status" TEXT NOT NULL,
    "issue_date" DATE NOT NULL,
    "valid_until" DATE NOT NULL,
    "currency" TEXT NOT NULL DEFAULT 'DKK',
    "notes" TEXT NOT NULL DEFAULT '',
    "subtotal" DECIMAL(18,2) NOT NULL,
    "vat_amount" DECIMAL(18,2) NOT NULL,
    "total" DECIMAL(18,2) NOT NULL,
    "invoice_id" UUID,
    "sent_at" TIMESTAMPTZ(3),
    "accepted_at" TIMESTAMPTZ(3),
    "declined_at" TIMESTAMPTZ(3),
    "expired_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "quotes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "quote_lines" (
    "id" UUID NOT NULL,
    "company_id" UUID NOT NULL,
    "quote_id" UUID NOT NULL,
    "line_number" SMALLINT NOT NULL,
    "product_id" UUID,
    "description" TEXT NOT NULL DEFAULT '',
    "quantity" DECIMAL(18,4) NOT NULL,
    "unit_price" DECIMAL(18,2) NOT NULL,
    "vat_rate" DECIMAL(5,2) NOT NULL,
    "vat_code" TEXT NOT NULL DEFAULT '',
    "unit" TEXT NOT NULL DEFAULT 'C62',
    "discount_percent" DECIMAL(5,2) NOT NULL DEFAULT 0,
    "amount" DECIMAL(18,2) NOT NULL,

    CONSTRAINT "quote_lines_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "quotes_invoice_id_key" ON "quotes"("invoice_id");

-- CreateIndex
CREATE INDEX "quotes_company_id_created_at_id_idx" ON "quotes"("company_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "quotes_company_id_status_created_at_id_idx" ON "quotes"("company_id", "status", "created_at", "id");

-- CreateIndex
CREATE INDEX "quotes_status_valid_until_idx" ON "quotes"("status", "valid_until");

-- CreateIndex
CREATE UNIQUE INDEX "quotes_company_id_number_key" ON "quotes"("company_id", "number");

-- CreateIndex
CREATE UNIQUE INDEX "quote_lines_quote_id_line_number_key" ON "quote_lines"("quote_id", "line_number");

-- AddForeignKey
ALTER TABLE "quotes" ADD CONSTRAINT "quotes_invoice_id_fkey" FOREIGN KEY ("invoice_id") REFERENCES "invoices"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "quote_lines" ADD CONSTRAINT "quote_lines_quote_id_fkey" FOREIGN KEY ("quote_id") REFERENCES "quotes"("id") ON DELETE CASCADE ON UPDATE CASCADE;
