-- Fixed assets from one expense line, with dimensions, and the depreciation run's refusal kept on the asset
-- (decisions 870-876). An expense may now hold several assets, one per line; as a whole it is still one
-- asset at most (a partial unique index), and a line one (a unique key): two creates at once make one.
ALTER TABLE "fixed_assets" ADD COLUMN "expense_line_id" UUID,
ADD COLUMN "dimensions" JSONB,
ADD COLUMN "depreciation_failure" JSONB;

DROP INDEX "fixed_assets_company_id_expense_id_key";
CREATE INDEX "fixed_assets_company_id_expense_id_idx" ON "fixed_assets"("company_id", "expense_id");
CREATE UNIQUE INDEX "fixed_assets_one_per_expense" ON "fixed_assets"("company_id", "expense_id") WHERE "expense_line_id" IS NULL;
CREATE UNIQUE INDEX "fixed_assets_expense_line_id_key" ON "fixed_assets"("expense_line_id");
