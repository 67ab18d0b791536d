-- Payments of the customers' and suppliers' opening balances (POST /opening-balances/payments; decision 853).
-- CreateTable
CREATE TABLE "opening_balance_payments" (
    "id" UUID NOT NULL,
    "company_id" UUID NOT NULL,
    "customer_id" UUID,
    "supplier_id" UUID,
    "date" DATE NOT NULL,
    "amount" DECIMAL(18,2) NOT NULL,
    "transaction_id" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "opening_balance_payments_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "opening_balance_payments_company_id_customer_id_idx" ON "opening_balance_payments"("company_id", "customer_id");

-- CreateIndex
CREATE INDEX "opening_balance_payments_company_id_supplier_id_idx" ON "opening_balance_payments"("company_id", "supplier_id");
