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
-- Triggers rather than CHECK constraints: the WebAssembly schema engine that `db:migrate:check` runs
-- cannot introspect CHECK constraints (it then errors, or reports no drift where there is some), and it
-- leaves triggers alone. Lines are never updated (transaction_lines_immutable), so INSERT is enough there.
CREATE FUNCTION tlr_exchange_rate_is_valid() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.rate <= 0 THEN
    RAISE EXCEPTION 'an exchange rate is greater than 0 (%)', NEW.rate USING ERRCODE = '23514';
  END IF;
  IF NEW.source NOT IN ('api', 'nationalbanken') THEN
    RAISE EXCEPTION 'an exchange rate comes from the API or Nationalbanken, not %', NEW.source USING ERRCODE = '23514';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER exchange_rates_valid BEFORE INSERT OR UPDATE ON "exchange_rates"
  FOR EACH ROW EXECUTE FUNCTION tlr_exchange_rate_is_valid();

CREATE FUNCTION tlr_line_currency_is_whole() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT ((NEW.currency = '' AND NEW.currency_amount IS NULL AND NEW.exchange_rate IS NULL)
       OR (NEW.currency <> '' AND NEW.currency_amount IS NOT NULL AND NEW.exchange_rate > 0)) THEN
    RAISE EXCEPTION 'a journal line carries currency, currency_amount and a positive exchange_rate together, or none of them' USING ERRCODE = '23514';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER transaction_lines_currency_whole BEFORE INSERT ON "transaction_lines"
  FOR EACH ROW WHEN (NEW.currency <> '' OR NEW.currency_amount IS NOT NULL OR NEW.exchange_rate IS NOT NULL)
  EXECUTE FUNCTION tlr_line_currency_is_whole();
