-- Outbound OIOUBL reminders: a message of document_kind reminder for each reminder of an invoice sent as
-- OIOUBL, once per reminder (its number beside the invoice and kind in the unique key; 0 for every other
-- message, so an invoice still has one message per document).
-- DropIndex
DROP INDEX "einvoice_messages_company_id_invoice_id_document_kind_key";

-- AlterTable
ALTER TABLE "einvoice_messages" ADD COLUMN     "reminder_number" SMALLINT NOT NULL DEFAULT 0;

-- CreateIndex
CREATE UNIQUE INDEX "einvoice_messages_company_id_invoice_id_document_kind_remin_key" ON "einvoice_messages"("company_id", "invoice_id", "document_kind", "reminder_number");

-- A reminder is outbound, of an invoice, numbered 1 to 3, in OIOUBL; no other message carries a number.
CREATE OR REPLACE FUNCTION tlr_einvoice_message_is_valid() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.status NOT IN ('queued', 'sent', 'delivered', 'rejected', 'failed', 'received')
     OR NEW.direction NOT IN ('outbound', 'inbound')
     OR NEW.document_kind NOT IN ('invoice', 'credit_note', 'application_response', 'reminder')
     OR NEW.document_format NOT IN ('peppol-bis3', 'oioubl-2.1', 'en16931-ubl', 'en16931-cii')
     OR (NEW.status = 'received') <> (NEW.direction = 'inbound')
     OR (NEW.document_kind = 'application_response') <> (NEW.response_status IN ('received', 'accepted', 'rejected'))
     OR (NEW.document_kind = 'application_response' AND (NEW.direction <> 'outbound' OR NEW.response_to_id IS NULL))
     OR (NEW.document_kind <> 'application_response' AND (NEW.response_status <> '' OR NEW.response_to_id IS NOT NULL))
     OR (NEW.document_kind = 'reminder') <> (NEW.reminder_number BETWEEN 1 AND 3)
     OR (NEW.document_kind = 'reminder' AND (NEW.direction <> 'outbound' OR NEW.invoice_id IS NULL OR NEW.document_format <> 'oioubl-2.1')) THEN
    RAISE EXCEPTION 'einvoice_messages: status %, direction %, document_kind %, document_format %, response_status %, reminder_number % is not one the code writes',
      NEW.status, NEW.direction, NEW.document_kind, NEW.document_format, NEW.response_status, NEW.reminder_number
      USING ERRCODE = '23514';
  END IF;
  RETURN NEW;
END $$;
