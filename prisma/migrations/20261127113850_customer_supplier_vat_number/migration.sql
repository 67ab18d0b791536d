-- Customers' and suppliers' EU VAT number (momsregistreringsnummer; decisions 198 and 199), normalised
-- as identifiers/vat-number.ts writes it; "" for none, as cvr.
-- AlterTable
ALTER TABLE "customers" ADD COLUMN     "vat_number" TEXT NOT NULL DEFAULT '';

-- AlterTable
ALTER TABLE "suppliers" ADD COLUMN     "vat_number" TEXT NOT NULL DEFAULT '';
