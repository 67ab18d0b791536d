-- Issue 41: the format of the e-invoices sent to a customer (peppol, oioubl or auto); peppol for the customers before.
ALTER TABLE "customers" ADD COLUMN "einvoice_format" TEXT NOT NULL DEFAULT 'peppol';
