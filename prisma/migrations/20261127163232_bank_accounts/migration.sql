-- Bank accounts (Order 15): the company's accounts in its banks, each reconciled to one asset account of
-- its chart by (company_id, account_number), at most one bank account per ledger account (decisions 250-254).
-- CreateTable
CREATE TABLE "bank_accounts" (
    "id" UUID NOT NULL,
    "company_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "bank_reg_number" TEXT NOT NULL DEFAULT '',
    "bank_account_number" TEXT NOT NULL DEFAULT '',
    "iban" TEXT NOT NULL DEFAULT '',
    "currency" CHAR(3) NOT NULL DEFAULT 'DKK',
    "account_number" TEXT NOT NULL,
    "opening_balance_date" DATE,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "bank_accounts_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "bank_accounts_company_id_name_id_idx" ON "bank_accounts"("company_id", "name", "id");

-- CreateIndex
CREATE INDEX "bank_accounts_company_id_created_at_id_idx" ON "bank_accounts"("company_id", "created_at", "id");

-- CreateIndex
CREATE UNIQUE INDEX "bank_accounts_company_id_account_number_key" ON "bank_accounts"("company_id", "account_number");

-- AddForeignKey
ALTER TABLE "bank_accounts" ADD CONSTRAINT "bank_accounts_company_id_fkey" FOREIGN KEY ("company_id") REFERENCES "companies"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "bank_accounts" ADD CONSTRAINT "bank_accounts_company_id_account_number_fkey" FOREIGN KEY ("company_id", "account_number") REFERENCES "accounts"("company_id", "account_number") ON DELETE RESTRICT ON UPDATE CASCADE;
