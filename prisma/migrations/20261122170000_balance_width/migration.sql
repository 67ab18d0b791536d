-- Running balances can never overflow: 36 integer digits, where every posting is below 10^15.
ALTER TABLE "account_daily_balances" ALTER COLUMN "debit" SET DATA TYPE DECIMAL(38,2), ALTER COLUMN "credit" SET DATA TYPE DECIMAL(38,2);
ALTER TABLE "account_monthly_balances" ALTER COLUMN "debit" SET DATA TYPE DECIMAL(38,2), ALTER COLUMN "credit" SET DATA TYPE DECIMAL(38,2);
