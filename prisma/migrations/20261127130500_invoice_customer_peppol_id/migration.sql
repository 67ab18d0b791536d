-- The buyer's Peppol id, frozen on the invoice at approval with the rest of the buyer (Order 14).
-- AlterTable
ALTER TABLE "invoices" ADD COLUMN     "customer_peppol_id" TEXT NOT NULL DEFAULT '';
