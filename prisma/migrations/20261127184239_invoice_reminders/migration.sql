-- Payment reminders (rykkere, Order 15 item 6): the company settings for fees, interest and the daily job,
-- and the reminders themselves, at most one of each number 1..3 per invoice (decisions 285-299).
-- AlterTable
ALTER TABLE "companies" ADD COLUMN     "reminder_fee" DECIMAL(18,2) NOT NULL DEFAULT 100.00,
ADD COLUMN     "reminder_fee_enabled" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "reminder_interest_enabled" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "reminder_reference_rate" DECIMAL(5,2) NOT NULL DEFAULT 1.60,
ADD COLUMN     "reminders_automatic" BOOLEAN NOT NULL DEFAULT false;

-- CreateTable
CREATE TABLE "invoice_reminders" (
    "id" UUID NOT NULL,
    "company_id" UUID NOT NULL,
    "invoice_id" UUID NOT NULL,
    "number" SMALLINT NOT NULL,
    "invoice_number" TEXT NOT NULL,
    "date" DATE NOT NULL,
    "balance_due" DECIMAL(18,2) NOT NULL,
    "balance_dkk" DECIMAL(18,2) NOT NULL,
    "fee" DECIMAL(18,2) NOT NULL,
    "interest" DECIMAL(18,2) NOT NULL,
    "interest_days" INTEGER NOT NULL DEFAULT 0,
    "rate" DECIMAL(5,2),
    "transaction_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "invoice_reminders_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "invoice_reminders_company_id_invoice_id_number_idx" ON "invoice_reminders"("company_id", "invoice_id", "number");

-- CreateIndex
CREATE UNIQUE INDEX "invoice_reminders_invoice_id_number_key" ON "invoice_reminders"("invoice_id", "number");

-- AddForeignKey
ALTER TABLE "invoice_reminders" ADD CONSTRAINT "invoice_reminders_invoice_id_fkey" FOREIGN KEY ("invoice_id") REFERENCES "invoices"("id") ON DELETE CASCADE ON UPDATE CASCADE;
