-- Order 18: a received e-invoice's lines (each with the account proposed for it), payment means and
-- taxes other than VAT (excise duties), as the document states them.
-- AlterTable
ALTER TABLE "einvoice_messages" ADD COLUMN     "lines" JSONB NOT NULL DEFAULT '[]',
ADD COLUMN     "other_taxes" JSONB NOT NULL DEFAULT '[]',
ADD COLUMN     "payment_means" JSONB NOT NULL DEFAULT '[]';
