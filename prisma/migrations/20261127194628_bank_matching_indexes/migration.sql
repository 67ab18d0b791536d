-- Bank matching (Order 15): a bank line finds its invoice by FI payment id or by invoice number; without
-- these indexes each line read every invoice of the company (18 lines/s against 100,000 open invoices).
-- CreateIndex
CREATE INDEX "invoices_company_id_payment_id_idx" ON "invoices"("company_id", "payment_id");

-- CreateIndex
CREATE INDEX "invoices_company_id_invoice_number_idx" ON "invoices"("company_id", "invoice_number");
