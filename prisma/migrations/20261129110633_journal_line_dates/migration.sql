-- The posting's date and system id on each journal line (decision 453): an account's lines in posting
-- order are one index range, so a page of the general ledger reads its own rows instead of every line of
-- the period joined to its posting. The journal writer (ledger/post.ts) writes them with the line.
ALTER TABLE "transaction_lines" ADD COLUMN "date" DATE, ADD COLUMN "system_id" BIGINT;

-- The lines already posted take their posting's: the one change ever made to posted lines, by this
-- migration's own role, with the immutability trigger held off for it alone.
ALTER TABLE "transaction_lines" DISABLE TRIGGER "transaction_lines_immutable";
UPDATE "transaction_lines" l SET "date" = t."date", "system_id" = t."system_id"
FROM "ledger_transactions" t WHERE t."id" = l."transaction_id";
ALTER TABLE "transaction_lines" ENABLE TRIGGER "transaction_lines_immutable";

ALTER TABLE "transaction_lines" ALTER COLUMN "date" SET NOT NULL, ALTER COLUMN "system_id" SET NOT NULL;

-- The new index begins with the old one's columns, and serves what it served.
DROP INDEX "transaction_lines_company_id_account_id_idx";
CREATE INDEX "transaction_lines_company_id_account_id_date_system_id_line_idx" ON "transaction_lines"("company_id", "account_id", "date", "system_id", "line_number");

-- How many lines each day holds on each account, beside its sums: a general ledger's count of lines over
-- a period reads the days, not the lines. Kept by the journal writer with the sums.
ALTER TABLE "account_daily_balances" ADD COLUMN "lines" INTEGER NOT NULL DEFAULT 0;
UPDATE "account_daily_balances" b SET "lines" = c.n
FROM (SELECT "company_id", "account_id", "date", COUNT(*)::int AS n FROM "transaction_lines" GROUP BY 1, 2, 3) c
WHERE b."company_id" = c."company_id" AND b."account_id" = c."account_id" AND b."date" = c."date";
