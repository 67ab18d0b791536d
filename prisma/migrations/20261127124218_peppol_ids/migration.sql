-- Customers', suppliers' and the company's own Peppol participant identifier (decisions 204 to 206),
-- normalised as identifiers/peppol-id.ts writes it (0184:12345674); "" for none. Indexed for the customer
-- lookup and an inbound e-invoice's supplier.
-- AlterTable
ALTER TABLE "companies" ADD COLUMN     "peppol_id" TEXT NOT NULL DEFAULT '';

-- AlterTable
ALTER TABLE "customers" ADD COLUMN     "peppol_id" TEXT NOT NULL DEFAULT '';

-- AlterTable
ALTER TABLE "suppliers" ADD COLUMN     "peppol_id" TEXT NOT NULL DEFAULT '';

-- CreateIndex
CREATE INDEX "customers_company_id_peppol_id_idx" ON "customers"("company_id", "peppol_id");

-- CreateIndex
CREATE INDEX "suppliers_company_id_peppol_id_idx" ON "suppliers"("company_id", "peppol_id");
