-- AlterTable
ALTER TABLE "companies" ADD COLUMN     "lock_date" DATE,
ADD COLUMN     "vat_period_frequency" TEXT NOT NULL DEFAULT 'quarterly';

-- CreateTable
CREATE TABLE "fiscal_years" (
    "id" UUID NOT NULL,
    "company_id" UUID NOT NULL,
    "start_date" DATE NOT NULL,
    "end_date" DATE NOT NULL,
    "closed" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "fiscal_years_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "vat_periods" (
    "id" UUID NOT NULL,
    "company_id" UUID NOT NULL,
    "fiscal_year_id" UUID NOT NULL,
    "start_date" DATE NOT NULL,
    "end_date" DATE NOT NULL,

    CONSTRAINT "vat_periods_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "accounts" (
    "id" UUID NOT NULL,
    "company_id" UUID NOT NULL,
    "account_number" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "group_code" TEXT NOT NULL DEFAULT '',
    "standard_account_id" TEXT NOT NULL DEFAULT '',
    "default_vat_code" TEXT NOT NULL DEFAULT '',
    "active" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "accounts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "vat_codes" (
    "id" UUID NOT NULL,
    "company_id" UUID NOT NULL,
    "code" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "rate" DECIMAL(5,2) NOT NULL,
    "account_number" TEXT NOT NULL DEFAULT '',
    "offset_account_number" TEXT NOT NULL DEFAULT '',
    "active" BOOLEAN NOT NULL DEFAULT true,

    CONSTRAINT "vat_codes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "number_sequences" (
    "company_id" UUID NOT NULL,
    "last_document_number" BIGINT NOT NULL DEFAULT 0,
    "last_system_id" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "number_sequences_pkey" PRIMARY KEY ("company_id")
);

-- CreateTable
CREATE TABLE "ledger_transactions" (
    "id" UUID NOT NULL,
    "company_id" UUID NOT NULL,
    "document_number" BIGINT NOT NULL,
    "system_id" BIGINT NOT NULL,
    "date" DATE NOT NULL,
    "description" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "source_id" UUID,
    "reverses_id" UUID,
    "voucher_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ledger_transactions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "transaction_lines" (
    "id" UUID NOT NULL,
    "company_id" UUID NOT NULL,
    "transaction_id" UUID NOT NULL,
    "line_number" SMALLINT NOT NULL,
    "account_id" UUID NOT NULL,
    "debit" DECIMAL(18,2) NOT NULL DEFAULT 0,
    "credit" DECIMAL(18,2) NOT NULL DEFAULT 0,
    "description" TEXT NOT NULL DEFAULT '',
    "vat_code" TEXT NOT NULL DEFAULT '',

    CONSTRAINT "transaction_lines_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "account_daily_balances" (
    "company_id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "date" DATE NOT NULL,
    "debit" DECIMAL(20,2) NOT NULL DEFAULT 0,
    "credit" DECIMAL(20,2) NOT NULL DEFAULT 0,

    CONSTRAINT "account_daily_balances_pkey" PRIMARY KEY ("company_id","account_id","date")
);

-- CreateIndex
CREATE UNIQUE INDEX "fiscal_years_company_id_start_date_key" ON "fiscal_years"("company_id", "start_date");

-- CreateIndex
CREATE UNIQUE INDEX "vat_periods_company_id_start_date_key" ON "vat_periods"("company_id", "start_date");

-- CreateIndex
CREATE INDEX "accounts_company_id_name_id_idx" ON "accounts"("company_id", "name", "id");

-- CreateIndex
CREATE INDEX "accounts_company_id_created_at_id_idx" ON "accounts"("company_id", "created_at", "id");

-- CreateIndex
CREATE UNIQUE INDEX "accounts_company_id_account_number_key" ON "accounts"("company_id", "account_number");

-- CreateIndex
CREATE UNIQUE INDEX "vat_codes_company_id_code_key" ON "vat_codes"("company_id", "code");

-- CreateIndex
CREATE UNIQUE INDEX "ledger_transactions_reverses_id_key" ON "ledger_transactions"("reverses_id");

-- CreateIndex
CREATE INDEX "ledger_transactions_company_id_document_number_idx" ON "ledger_transactions"("company_id", "document_number");

-- CreateIndex
CREATE INDEX "ledger_transactions_company_id_date_id_idx" ON "ledger_transactions"("company_id", "date", "id");

-- CreateIndex
CREATE INDEX "ledger_transactions_company_id_created_at_id_idx" ON "ledger_transactions"("company_id", "created_at", "id");

-- CreateIndex
CREATE UNIQUE INDEX "ledger_transactions_company_id_system_id_key" ON "ledger_transactions"("company_id", "system_id");

-- CreateIndex
CREATE INDEX "transaction_lines_company_id_account_id_idx" ON "transaction_lines"("company_id", "account_id");

-- CreateIndex
CREATE UNIQUE INDEX "transaction_lines_transaction_id_line_number_key" ON "transaction_lines"("transaction_id", "line_number");

-- CreateIndex
CREATE INDEX "account_daily_balances_company_id_date_idx" ON "account_daily_balances"("company_id", "date");

-- AddForeignKey
ALTER TABLE "fiscal_years" ADD CONSTRAINT "fiscal_years_company_id_fkey" FOREIGN KEY ("company_id") REFERENCES "companies"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "vat_periods" ADD CONSTRAINT "vat_periods_fiscal_year_id_fkey" FOREIGN KEY ("fiscal_year_id") REFERENCES "fiscal_years"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "accounts" ADD CONSTRAINT "accounts_company_id_fkey" FOREIGN KEY ("company_id") REFERENCES "companies"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ledger_transactions" ADD CONSTRAINT "ledger_transactions_reverses_id_fkey" FOREIGN KEY ("reverses_id") REFERENCES "ledger_transactions"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "transaction_lines" ADD CONSTRAINT "transaction_lines_transaction_id_fkey" FOREIGN KEY ("transaction_id") REFERENCES "ledger_transactions"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "transaction_lines" ADD CONSTRAINT "transaction_lines_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- Posted transactions are immutable (Danish Bookkeeping Act: an unbroken audit trail). A correction is a
-- reversing transaction. Only a sandbox reset may delete, and it says so with SET LOCAL tlr.ledger_reset = 'on'.
CREATE FUNCTION tlr_ledger_is_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' AND current_setting('tlr.ledger_reset', true) = 'on' THEN
    RETURN OLD;
  END IF;
  RAISE EXCEPTION 'posted ledger rows are immutable (% on %)', TG_OP, TG_TABLE_NAME USING ERRCODE = 'P0001';
END $$;

CREATE TRIGGER ledger_transactions_immutable BEFORE UPDATE OR DELETE ON "ledger_transactions"
  FOR EACH ROW EXECUTE FUNCTION tlr_ledger_is_immutable();
CREATE TRIGGER transaction_lines_immutable BEFORE UPDATE OR DELETE ON "transaction_lines"
  FOR EACH ROW EXECUTE FUNCTION tlr_ledger_is_immutable();
