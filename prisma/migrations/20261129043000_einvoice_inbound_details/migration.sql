-- Order 18: a received e-invoice's lines (each with the account proposed for it), payment means and
-- taxes other than VAT (excise duties), as the document states them.
-- AlterTable
ALTER TABLE "einvoice_messages" ADD COLUMN     "lines" JSONB NOT NULL DEFAULT '[]',
ADD COLUMN     "other_taxes" JSONB NOT NULL DEFAULT '[]',
ADD COLUMN     "payment_means" JSONB NOT NULL DEFAULT '[]';

-- Received documents may also be EN 16931 in UBL (plain, XRechnung) or CII (XRechnung CII, Factur-X).
CREATE OR REPLACE FUNCTION tlr_einvoice_message_is_valid() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.status NOT IN ('queued', 'sent', 'delivered', 'rejected', 'failed', 'received')
     OR NEW.direction NOT IN ('outbound', 'inbound')
     OR NEW.document_kind NOT IN ('invoice', 'credit_note')
     OR NEW.document_format NOT IN ('peppol-bis3', 'oioubl-2.1', 'en16931-ubl', 'en16931-cii')
     OR (NEW.status = 'received') <> (NEW.direction = 'inbound') THEN
    RAISE EXCEPTION 'einvoice_messages: status %, direction %, document_kind %, document_format % is not one the code writes',
      NEW.status, NEW.direction, NEW.document_kind, NEW.document_format
      USING ERRCODE = '23514';
  END IF;
  RETURN NEW;
END $$;
