-- E-mail delivery of documents (docs/email.md): the companies' e-mail templates and one row per e-mail, queued
-- with its text, PDF and Message-ID in the transaction that asks for it.
-- CreateTable
CREATE TABLE "email_templates" (
    "company_id" UUID NOT NULL,
    "kind" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "email_templates_pkey" PRIMARY KEY ("company_id","kind")
);

-- CreateTable
CREATE TABLE "email_deliveries" (
    "id" UUID NOT NULL,
    "company_id" UUID NOT NULL,
    "document_kind" TEXT NOT NULL,
    "invoice_id" UUID,
    "quote_id" UUID,
    "customer_id" UUID,
    "reminder_number" SMALLINT,
    "document_label" TEXT NOT NULL,
    "recipients" TEXT[],
    "reply_to" TEXT NOT NULL DEFAULT '',
    "from_name" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "message_id" TEXT NOT NULL,
    "attachment_name" TEXT NOT NULL,
    "attachment" BYTEA NOT NULL,
    "status" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3),
    "last_error" TEXT NOT NULL DEFAULT '',
    "last_response" TEXT NOT NULL DEFAULT '',
    "sent_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "email_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "email_deliveries_message_id_key" ON "email_deliveries"("message_id");

-- CreateIndex
CREATE INDEX "email_deliveries_company_id_created_at_id_idx" ON "email_deliveries"("company_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "email_deliveries_invoice_id_idx" ON "email_deliveries"("invoice_id");

-- CreateIndex
CREATE INDEX "email_deliveries_quote_id_idx" ON "email_deliveries"("quote_id");

-- CreateIndex
CREATE INDEX "email_deliveries_next_attempt_at_idx" ON "email_deliveries"("next_attempt_at");

-- AddForeignKey
ALTER TABLE "email_deliveries" ADD CONSTRAINT "email_deliveries_invoice_id_fkey" FOREIGN KEY ("invoice_id") REFERENCES "invoices"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "email_deliveries" ADD CONSTRAINT "email_deliveries_quote_id_fkey" FOREIGN KEY ("quote_id") REFERENCES "quotes"("id") ON DELETE SET NULL ON UPDATE CASCADE;
