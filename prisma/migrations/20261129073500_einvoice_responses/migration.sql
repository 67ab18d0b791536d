-- Invoice responses: the answers a company sends the senders of the documents it received (received,
-- accepted, rejected), as outbound messages of kind application_response; and a supplier's default
-- expense account, proposed for the lines of its documents.
-- AlterTable
ALTER TABLE "einvoice_messages" ADD COLUMN     "response_reason" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "response_status" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "response_to_id" UUID;

-- AlterTable
ALTER TABLE "suppliers" ADD COLUMN     "default_account_number" TEXT NOT NULL DEFAULT '';

-- CreateIndex
CREATE INDEX "einvoice_messages_expense_id_idx" ON "einvoice_messages"("expense_id");

-- CreateIndex
CREATE UNIQUE INDEX "einvoice_messages_response_to_id_response_status_key" ON "einvoice_messages"("response_to_id", "response_status");

-- A response is outbound, answers a received message, and says one of three things; no other message
-- carries a response status.
CREATE OR REPLACE FUNCTION tlr_einvoice_message_is_valid() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.status NOT IN ('queued', 'sent', 'delivered', 'rejected', 'failed', 'received')
     OR NEW.direction NOT IN ('outbound', 'inbound')
     OR NEW.document_kind NOT IN ('invoice', 'credit_note', 'application_response')
     OR NEW.document_format NOT IN ('peppol-bis3', 'oioubl-2.1', 'en16931-ubl', 'en16931-cii')
     OR (NEW.status = 'received') <> (NEW.direction = 'inbound')
     OR (NEW.document_kind = 'application_response') <> (NEW.response_status IN ('received', 'accepted', 'rejected'))
     OR (NEW.document_kind = 'application_response' AND (NEW.direction <> 'outbound' OR NEW.response_to_id IS NULL))
     OR (NEW.document_kind <> 'application_response' AND (NEW.response_status <> '' OR NEW.response_to_id IS NOT NULL)) THEN
    RAISE EXCEPTION 'einvoice_messages: status %, direction %, document_kind %, document_format %, response_status % is not one the code writes',
      NEW.status, NEW.direction, NEW.document_kind, NEW.document_format, NEW.response_status
      USING ERRCODE = '23514';
  END IF;
  RETURN NEW;
END $$;
