-- AlterTable
ALTER TABLE "companies" ADD COLUMN     "address_line1" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "address_line2" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "bank_account_number" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "bank_reg_number" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "city" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "country" CHAR(2) NOT NULL DEFAULT 'DK',
ADD COLUMN     "email" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "iban" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "phone" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "postal_code" TEXT NOT NULL DEFAULT '';

-- CreateTable
CREATE TABLE "invoices" (
    "id" UUID NOT NULL,
    "company_id" UUID NOT NULL,
    "invoice_number" TEXT NOT NULL DEFAULT '',
    "document_number" BIGINT,
    "customer_id" UUID,
    "customer_name" TEXT NOT NULL DEFAULT '',
    "customer_address_line1" TEXT NOT NULL DEFAULT '',
    "customer_address_line2" TEXT NOT NULL DEFAULT '',
    "customer_postal_code" TEXT NOT NULL DEFAULT '',
    "customer_city" TEXT NOT NULL DEFAULT '',
    "customer_country" TEXT NOT NULL DEFAULT '',
    "customer_cvr" TEXT NOT NULL DEFAULT '',
    "customer_ean" TEXT NOT NULL DEFAULT '',
    "status" TEXT NOT NULL,
    "issue_date" DATE NOT NULL,
    "due_date" DATE NOT NULL,
    "currency" TEXT NOT NULL DEFAULT 'DKK',
    "notes" TEXT NOT NULL DEFAULT '',
    "subtotal" DECIMAL(18,2) NOT NULL,
    "vat_amount" DECIMAL(18,2) NOT NULL,
    "total" DECIMAL(18,2) NOT NULL,
    "paid_amount" DECIMAL(18,2) NOT NULL DEFAULT 0,
    "posted_transaction_id" UUID,
    "posted_system_id" BIGINT,
    "approved_at" TIMESTAMPTZ(3),
    "sent_at" TIMESTAMPTZ(3),
    "paid_at" TIMESTAMPTZ(3),
    "cancelled_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "invoices_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "invoice_lines" (
    "id" UUID NOT NULL,
    "company_id" UUID NOT NULL,
    "invoice_id" UUID NOT NULL,
    "line_number" SMALLINT NOT NULL,
    "product_id" UUID,
    "description" TEXT NOT NULL DEFAULT '',
    "quantity" DECIMAL(18,4) NOT NULL,
    "unit_price" DECIMAL(18,2) NOT NULL,
    "vat_rate" DECIMAL(5,2) NOT NULL,
    "amount" DECIMAL(18,2) NOT NULL,
    "account_id" UUID,

    CONSTRAINT "invoice_lines_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "invoice_payments" (
    "id" UUID NOT NULL,
    "company_id" UUID NOT NULL,
    "invoice_id" UUID NOT NULL,
    "amount" DECIMAL(18,2) NOT NULL,
    "date" DATE NOT NULL,
    "account_id" UUID NOT NULL,
    "transaction_id" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "invoice_payments_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "credit_notes" (
    "id" UUID NOT NULL,
    "company_id" UUID NOT NULL,
    "invoice_id" UUID NOT NULL,
    "document_number" BIGINT NOT NULL,
    "date" DATE NOT NULL,
    "transaction_id" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "credit_notes_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "invoices_company_id_created_at_id_idx" ON "invoices"("company_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "invoices_company_id_status_created_at_id_idx" ON "invoices"("company_id", "status", "created_at", "id");

-- CreateIndex
CREATE INDEX "invoices_company_id_issue_date_id_idx" ON "invoices"("company_id", "issue_date", "id");

-- CreateIndex
CREATE INDEX "invoices_company_id_due_date_id_idx" ON "invoices"("company_id", "due_date", "id");

-- CreateIndex
CREATE INDEX "invoices_company_id_total_id_idx" ON "invoices"("company_id", "total", "id");

-- CreateIndex
CREATE INDEX "invoices_company_id_document_number_id_idx" ON "invoices"("company_id", "document_number", "id");

-- CreateIndex
CREATE INDEX "invoices_status_due_date_idx" ON "invoices"("status", "due_date");

-- CreateIndex
CREATE UNIQUE INDEX "invoice_lines_invoice_id_line_number_key" ON "invoice_lines"("invoice_id", "line_number");

-- CreateIndex
CREATE INDEX "invoice_payments_company_id_invoice_id_idx" ON "invoice_payments"("company_id", "invoice_id");

-- CreateIndex
CREATE UNIQUE INDEX "credit_notes_invoice_id_key" ON "credit_notes"("invoice_id");

-- CreateIndex
CREATE INDEX "credit_notes_company_id_document_number_idx" ON "credit_notes"("company_id", "document_number");

-- AddForeignKey
ALTER TABLE "invoice_lines" ADD CONSTRAINT "invoice_lines_invoice_id_fkey" FOREIGN KEY ("invoice_id") REFERENCES "invoices"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "invoice_payments" ADD CONSTRAINT "invoice_payments_invoice_id_fkey" FOREIGN KEY ("invoice_id") REFERENCES "invoices"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "credit_notes" ADD CONSTRAINT "credit_notes_invoice_id_fkey" FOREIGN KEY ("invoice_id") REFERENCES "invoices"("id") ON DELETE CASCADE ON UPDATE CASCADE;
