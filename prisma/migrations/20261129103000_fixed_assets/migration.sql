-- Fixed assets (anlægskartotek): the register, each month of depreciation posted (unique per asset and
-- month), and the company's small-asset limit for the tax view (null: the statutory limit of the year).
ALTER TABLE "companies" ADD COLUMN "small_asset_limit" DECIMAL(18,2);

CREATE TABLE "fixed_assets" (
    "id" UUID NOT NULL,
    "company_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "group" TEXT NOT NULL,
    "acquisition_date" DATE NOT NULL,
    "cost" DECIMAL(18,2) NOT NULL,
    "useful_life_months" INTEGER NOT NULL,
    "residual_value" DECIMAL(18,2) NOT NULL DEFAULT 0,
    "asset_account_id" UUID NOT NULL,
    "accumulated_account_id" UUID NOT NULL,
    "depreciation_account_id" UUID NOT NULL,
    "expense_id" UUID,
    "transaction_id" UUID,
    "capitalisation_transaction_id" UUID,
    "status" TEXT NOT NULL DEFAULT 'active',
    "months_posted" INTEGER NOT NULL DEFAULT 0,
    "depreciated" DECIMAL(18,2) NOT NULL DEFAULT 0,
    "disposed_date" DATE,
    "disposal_proceeds" DECIMAL(18,2),
    "disposal_transaction_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "fixed_assets_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "asset_depreciations" (
    "id" UUID NOT NULL,
    "company_id" UUID NOT NULL,
    "asset_id" UUID NOT NULL,
    "month" DATE NOT NULL,
    "amount" DECIMAL(18,2) NOT NULL,
    "transaction_id" UUID NOT NULL,
    "date" DATE NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "asset_depreciations_pkey" PRIMARY KEY ("id")
);

CREATE UNIQUE INDEX "fixed_assets_company_id_expense_id_key" ON "fixed_assets"("company_id", "expense_id");
CREATE INDEX "fixed_assets_company_id_created_at_id_idx" ON "fixed_assets"("company_id", "created_at", "id");
CREATE INDEX "fixed_assets_status_idx" ON "fixed_assets"("status");
CREATE UNIQUE INDEX "asset_depreciations_asset_id_month_key" ON "asset_depreciations"("asset_id", "month");
CREATE INDEX "asset_depreciations_company_id_date_idx" ON "asset_depreciations"("company_id", "date");

ALTER TABLE "asset_depreciations" ADD CONSTRAINT "asset_depreciations_asset_id_fkey" FOREIGN KEY ("asset_id") REFERENCES "fixed_assets"("id") ON DELETE CASCADE ON UPDATE CASCADE;
