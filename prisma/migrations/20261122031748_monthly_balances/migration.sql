-- CreateTable
CREATE TABLE "account_monthly_balances" (
    "company_id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "month" DATE NOT NULL,
    "debit" DECIMAL(20,2) NOT NULL DEFAULT 0,
    "credit" DECIMAL(20,2) NOT NULL DEFAULT 0,

    CONSTRAINT "account_monthly_balances_pkey" PRIMARY KEY ("company_id","account_id","month")
);

-- CreateIndex
CREATE INDEX "account_monthly_balances_company_id_month_idx" ON "account_monthly_balances"("company_id", "month");

-- Backfill from the daily balances posted before this table existed.
INSERT INTO "account_monthly_balances" (company_id, account_id, month, debit, credit)
SELECT company_id, account_id, date_trunc('month', date)::date, SUM(debit), SUM(credit)
FROM "account_daily_balances"
GROUP BY company_id, account_id, date_trunc('month', date);
