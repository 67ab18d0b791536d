-- AlterTable
ALTER TABLE "einvoice_messages" ADD COLUMN     "attachment_voucher_ids" UUID[] DEFAULT ARRAY[]::UUID[],
ADD COLUMN     "counterpart_name" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "currency" TEXT NOT NULL DEFAULT 'DKK',
ADD COLUMN     "document_format" TEXT NOT NULL DEFAULT 'peppol-bis3',
ADD COLUMN     "expense_id" UUID,
ADD COLUMN     "issue_date" DATE,
ADD COLUMN     "net_amount" DECIMAL(18,2) NOT NULL DEFAULT 0,
ADD COLUMN     "payable_amount" DECIMAL(18,2) NOT NULL DEFAULT 0,
ADD COLUMN     "sender_peppol_id" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "supplier_id" UUID,
ADD COLUMN     "total_amount" DECIMAL(18,2) NOT NULL DEFAULT 0,
ADD COLUMN     "vat_amount" DECIMAL(18,2) NOT NULL DEFAULT 0,
ADD COLUMN     "voucher_id" UUID;

-- CreateIndex
CREATE INDEX "einvoice_messages_company_id_created_at_id_idx" ON "einvoice_messages"("company_id", "created_at", "id");

-- CreateIndex
CREATE UNIQUE INDEX "einvoice_messages_company_id_supplier_id_document_kind_docu_key" ON "einvoice_messages"("company_id", "supplier_id", "document_kind", "document_number");

-- Received documents (inbound) are `received`; the closed sets stay a trigger (see 20261127124223_einvoice_messages).
CREATE OR REPLACE FUNCTION tlr_einvoice_message_is_valid() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.status NOT IN ('queued', 'sent', 'delivered', 'rejected', 'failed', 'received')
     OR NEW.direction NOT IN ('outbound', 'inbound')
     OR NEW.document_kind NOT IN ('invoice', 'credit_note')
     OR NEW.document_format NOT IN ('peppol-bis3', 'oioubl-2.1')
     OR (NEW.status = 'received') <> (NEW.direction = 'inbound') THEN
    RAISE EXCEPTION 'einvoice_messages: status %, direction %, document_kind %, document_format % is not one the code writes',
      NEW.status, NEW.direction, NEW.document_kind, NEW.document_format
      USING ERRCODE = '23514';
  END IF;
  RETURN NEW;
END $$;

-- Messages sent before these columns: their invoice's counterpart, date, currency and totals.
UPDATE einvoice_messages m SET
  counterpart_name = i.customer_name, issue_date = i.issue_date, currency = i.currency,
  net_amount = i.subtotal, vat_amount = i.vat_amount, total_amount = i.total, payable_amount = i.total
FROM invoices i WHERE i.id = m.invoice_id;
