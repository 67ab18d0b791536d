-- E-invoicing (Order 14): the messages sent to (and later received from) the Peppol network, and the
-- company setting that queues an invoice for sending when it is approved.

-- AlterTable
ALTER TABLE "companies" ADD COLUMN     "einvoice_auto_send" BOOLEAN NOT NULL DEFAULT false;

-- CreateTable
CREATE TABLE "einvoice_messages" (
    "id" UUID NOT NULL,
    "company_id" UUID NOT NULL,
    "invoice_id" UUID,
    "direction" TEXT NOT NULL,
    "document_kind" TEXT NOT NULL,
    "document_number" TEXT NOT NULL,
    "channel" TEXT NOT NULL,
    "receiver_peppol_id" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3),
    "last_error" TEXT NOT NULL DEFAULT '',
    "last_response" JSONB,
    "document_xml" TEXT NOT NULL,
    "document_uuid" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "einvoice_messages_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "einvoice_messages_invoice_id_idx" ON "einvoice_messages"("invoice_id");

-- CreateIndex
CREATE INDEX "einvoice_messages_next_attempt_at_idx" ON "einvoice_messages"("next_attempt_at");

-- CreateIndex
CREATE INDEX "einvoice_messages_document_uuid_idx" ON "einvoice_messages"("document_uuid");

-- CreateIndex
CREATE UNIQUE INDEX "einvoice_messages_company_id_invoice_id_document_kind_key" ON "einvoice_messages"("company_id", "invoice_id", "document_kind");

-- AddForeignKey
ALTER TABLE "einvoice_messages" ADD CONSTRAINT "einvoice_messages_invoice_id_fkey" FOREIGN KEY ("invoice_id") REFERENCES "invoices"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- What Prisma cannot declare: the closed sets the code writes (packages/domain/src/einvoice/schema.ts). A
-- trigger rather than CHECK constraints, which the WebAssembly schema engine of db:migrate:check cannot
-- introspect (see 20261127113935_exchange_rates).
CREATE FUNCTION tlr_einvoice_message_is_valid() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.status NOT IN ('queued', 'sent', 'delivered', 'rejected', 'failed')
     OR NEW.direction NOT IN ('outbound', 'inbound')
     OR NEW.document_kind NOT IN ('invoice', 'credit_note') THEN
    RAISE EXCEPTION 'einvoice_messages: status %, direction %, document_kind % is not one the code writes', NEW.status, NEW.direction, NEW.document_kind
      USING ERRCODE = '23514';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER einvoice_messages_valid BEFORE INSERT OR UPDATE ON "einvoice_messages"
  FOR EACH ROW EXECUTE FUNCTION tlr_einvoice_message_is_valid();
