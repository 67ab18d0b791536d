-- FI payments (Order 15): the company's creditor number, and an invoice's +71 payment id with the creditor number
-- it was approved with, both frozen at approval (decisions 245-247).
-- AlterTable
ALTER TABLE "companies" ADD COLUMN     "fi_creditor_number" TEXT NOT NULL DEFAULT '';

-- AlterTable
ALTER TABLE "invoices" ADD COLUMN     "fi_creditor_number" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "payment_id" TEXT NOT NULL DEFAULT '';
