-- Recurring invoices: the templates, and each period they made, unique per template and period.
CREATE TABLE "recurring_invoices" (
    "id" UUID NOT NULL,
    "company_id" UUID NOT NULL,
    "customer_id" UUID NOT NULL,
    "status" TEXT NOT NULL,
    "interval" TEXT NOT NULL,
    "every" INTEGER NOT NULL,
    "start_date" DATE NOT NULL,
    "end_date" DATE,
    "count" INTEGER,
    "day_of_month" SMALLINT NOT NULL,
    "payment_terms_days" INTEGER,
    "action" TEXT NOT NULL,
    "currency" TEXT NOT NULL DEFAULT 'DKK',
    "notes" TEXT NOT NULL DEFAULT '',
    "lines" JSONB NOT NULL,
    "next_date" DATE,
    "made" INTEGER NOT NULL DEFAULT 0,
    "last_period" DATE,
    "resumed_on" DATE,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deleted_at" TIMESTAMPTZ(3),

    CONSTRAINT "recurring_invoices_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "recurring_invoice_periods" (
    "id" UUID NOT NULL,
    "company_id" UUID NOT NULL,
    "recurring_invoice_id" UUID NOT NULL,
    "period" DATE NOT NULL,
    "invoice_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "recurring_invoice_periods_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "recurring_invoices_company_id_created_at_id_idx" ON "recurring_invoices"("company_id", "created_at", "id");
CREATE INDEX "recurring_invoices_status_next_date_idx" ON "recurring_invoices"("status", "next_date");
CREATE INDEX "recurring_invoice_periods_invoice_id_idx" ON "recurring_invoice_periods"("invoice_id");
CREATE UNIQUE INDEX "recurring_invoice_periods_recurring_invoice_id_period_key" ON "recurring_invoice_periods"("recurring_invoice_id", "period");

ALTER TABLE "recurring_invoice_periods" ADD CONSTRAINT "recurring_invoice_periods_recurring_invoice_id_fkey" FOREIGN KEY ("recurring_invoice_id") REFERENCES "recurring_invoices"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "recurring_invoice_periods" ADD CONSTRAINT "recurring_invoice_periods_invoice_id_fkey" FOREIGN KEY ("invoice_id") REFERENCES "invoices"("id") ON DELETE SET NULL ON UPDATE CASCADE;
