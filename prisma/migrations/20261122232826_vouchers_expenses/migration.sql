-- CreateTable
CREATE TABLE "vouchers" (
    "id" UUID NOT NULL,
    "company_id" UUID NOT NULL,
    "filename" TEXT NOT NULL,
    "mime_type" TEXT NOT NULL,
    "file_size" INTEGER NOT NULL,
    "sha256" TEXT NOT NULL,
    "storage_key" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "expense_id" UUID,
    "transaction_id" UUID,
    "retention_until" DATE,
    "display_name" TEXT NOT NULL DEFAULT '',
    "vendor" TEXT NOT NULL DEFAULT '',
    "vendor_supplier_id" UUID,
    "extracted_text" TEXT NOT NULL DEFAULT '',
    "processing_attempts" INTEGER NOT NULL DEFAULT 0,
    "processed_at" TIMESTAMPTZ(3),
    "uploaded_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "vouchers_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "stored_object_intents" (
    "storage_key" TEXT NOT NULL,
    "company_id" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "stored_object_intents_pkey" PRIMARY KEY ("storage_key")
);

-- CreateTable
CREATE TABLE "expenses" (
    "id" UUID NOT NULL,
    "company_id" UUID NOT NULL,
    "supplier_id" UUID,
    "voucher_id" UUID,
    "date" DATE NOT NULL,
    "due_date" DATE NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "amount" DECIMAL(18,2) NOT NULL,
    "vat_amount" DECIMAL(18,2) NOT NULL,
    "account_id" UUID NOT NULL,
    "status" TEXT NOT NULL,
    "posted_transaction_id" UUID,
    "posted_system_id" BIGINT,
    "payment_transaction_id" UUID,
    "paid_date" DATE,
    "reversal_transaction_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "expenses_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "vouchers_expense_id_key" ON "vouchers"("expense_id");

-- CreateIndex
CREATE UNIQUE INDEX "vouchers_transaction_id_key" ON "vouchers"("transaction_id");

-- CreateIndex
CREATE INDEX "vouchers_company_id_uploaded_at_id_idx" ON "vouchers"("company_id", "uploaded_at", "id");

-- CreateIndex
CREATE INDEX "vouchers_company_id_status_uploaded_at_id_idx" ON "vouchers"("company_id", "status", "uploaded_at", "id");

-- CreateIndex
CREATE INDEX "vouchers_company_id_filename_id_idx" ON "vouchers"("company_id", "filename", "id");

-- CreateIndex
CREATE INDEX "vouchers_company_id_file_size_id_idx" ON "vouchers"("company_id", "file_size", "id");

-- CreateIndex
CREATE INDEX "vouchers_status_uploaded_at_idx" ON "vouchers"("status", "uploaded_at");

-- CreateIndex
CREATE INDEX "stored_object_intents_created_at_idx" ON "stored_object_intents"("created_at");

-- CreateIndex
CREATE UNIQUE INDEX "expenses_voucher_id_key" ON "expenses"("voucher_id");

-- CreateIndex
CREATE INDEX "expenses_company_id_created_at_id_idx" ON "expenses"("company_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "expenses_company_id_status_created_at_id_idx" ON "expenses"("company_id", "status", "created_at", "id");

-- CreateIndex
CREATE INDEX "expenses_company_id_date_id_idx" ON "expenses"("company_id", "date", "id");

-- CreateIndex
CREATE INDEX "expenses_company_id_amount_id_idx" ON "expenses"("company_id", "amount", "id");
