-- Foreign currency (Order 13): the company's exchange-rate table, and the currency, foreign amount and
-- rate of a journal line registered in foreign currency (bogføringsloven § 15).

-- AlterTable
ALTER TABLE "transaction_lines" ADD COLUMN     "currency" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "currency_amount" DECIMAL(18,2),
ADD COLUMN     "exchange_rate" DECIMAL(18,6);

-- CreateTable
CREATE TABLE "exchange_rates" (
    "id" UUID NOT NULL,
    "company_id" UUID NOT NULL,
    "currency" CHAR(3) NOT NULL,
    "date" DATE NOT NULL,
    "rate" DECIMAL(18,6) NOT NULL,
    "source" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "exchange_rates_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "exchange_rates_company_id_date_id_idx" ON "exchange_rates"("company_id", "date", "id");

-- CreateIndex
CREATE UNIQUE INDEX "exchange_rates_company_id_currency_date_key" ON "exchange_rates"("company_id", "currency", "date");

-- AddForeignKey
ALTER TABLE "exchange_rates" ADD CONSTRAINT "exchange_rates_company_id_fkey" FOREIGN KEY ("company_id") REFERENCES "companies"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- What Prisma cannot declare. A rate is DKK per unit and never zero or negative; a line carries all three
-- currency fields (a foreign registration) or none (DKK), so no reader has to guess which half holds.
ALTER TABLE "exchange_rates" ADD CONSTRAINT "exchange_rates_rate_positive" CHECK ("rate" > 0),
ADD CONSTRAINT "exchange_rates_source" CHECK ("source" IN ('api', 'nationalbanken'));
ALTER TABLE "transaction_lines" ADD CONSTRAINT "transaction_lines_currency_all_or_none"
CHECK (("currency" = '') = ("currency_amount" IS NULL) AND ("currency" = '') = ("exchange_rate" IS NULL) AND ("exchange_rate" IS NULL OR "exchange_rate" > 0));
