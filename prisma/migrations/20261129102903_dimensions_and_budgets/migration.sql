-- AlterTable
ALTER TABLE "expenses" ADD COLUMN     "dimensions" JSONB;

-- AlterTable
ALTER TABLE "invoice_lines" ADD COLUMN     "dimensions" JSONB;

-- CreateTable
CREATE TABLE "dimensions" (
    "id" UUID NOT NULL,
    "company_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "required_account_ids" UUID[] DEFAULT ARRAY[]::UUID[],
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "dimensions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "dimension_values" (
    "id" UUID NOT NULL,
    "company_id" UUID NOT NULL,
    "dimension_id" UUID NOT NULL,
    "code" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "retired_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "dimension_values_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "journal_line_dimensions" (
    "line_id" UUID NOT NULL,
    "dimension_id" UUID NOT NULL,
    "value_id" UUID NOT NULL,
    "company_id" UUID NOT NULL,
    "transaction_id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "date" DATE NOT NULL,
    "debit" DECIMAL(18,2) NOT NULL,
    "credit" DECIMAL(18,2) NOT NULL,

    CONSTRAINT "journal_line_dimensions_pkey" PRIMARY KEY ("line_id","dimension_id")
);

-- CreateTable
CREATE TABLE "budgets" (
    "id" UUID NOT NULL,
    "company_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "start_date" DATE NOT NULL,
    "end_date" DATE NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "budgets_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "budget_lines" (
    "budget_id" UUID NOT NULL,
    "company_id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "month" DATE NOT NULL,
    "amount" DECIMAL(18,2) NOT NULL,

    CONSTRAINT "budget_lines_pkey" PRIMARY KEY ("budget_id","account_id","month")
);

-- CreateIndex
CREATE INDEX "dimensions_company_id_created_at_id_idx" ON "dimensions"("company_id", "created_at", "id");

-- CreateIndex
CREATE UNIQUE INDEX "dimensions_company_id_name_key" ON "dimensions"("company_id", "name");

-- CreateIndex
CREATE UNIQUE INDEX "dimension_values_dimension_id_code_key" ON "dimension_values"("dimension_id", "code");

-- CreateIndex
CREATE INDEX "journal_line_dimensions_company_id_value_id_date_idx" ON "journal_line_dimensions"("company_id", "value_id", "date");

-- CreateIndex
CREATE INDEX "journal_line_dimensions_company_id_dimension_id_date_idx" ON "journal_line_dimensions"("company_id", "dimension_id", "date");

-- CreateIndex
CREATE INDEX "budgets_company_id_created_at_id_idx" ON "budgets"("company_id", "created_at", "id");

-- AddForeignKey
ALTER TABLE "dimension_values" ADD CONSTRAINT "dimension_values_dimension_id_fkey" FOREIGN KEY ("dimension_id") REFERENCES "dimensions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "journal_line_dimensions" ADD CONSTRAINT "journal_line_dimensions_line_id_fkey" FOREIGN KEY ("line_id") REFERENCES "transaction_lines"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "journal_line_dimensions" ADD CONSTRAINT "journal_line_dimensions_value_id_fkey" FOREIGN KEY ("value_id") REFERENCES "dimension_values"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "budget_lines" ADD CONSTRAINT "budget_lines_budget_id_fkey" FOREIGN KEY ("budget_id") REFERENCES "budgets"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- A journal line's dimensions are part of the posted line: immutable like it (only a sandbox reset deletes).
CREATE TRIGGER journal_line_dimensions_immutable BEFORE UPDATE OR DELETE ON "journal_line_dimensions"
  FOR EACH ROW EXECUTE FUNCTION tlr_ledger_is_immutable();
