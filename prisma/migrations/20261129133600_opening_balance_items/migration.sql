-- What the opening balances brought in per customer and supplier (docs/reports.md#where-the-books-begin;
-- decisions 850-853): the aged receivables and payables and the customer statement read them as open items.
-- CreateTable
CREATE TABLE "opening_balance_items" (
    "company_id" UUID NOT NULL,
    "transaction_id" UUID NOT NULL,
    "line_number" SMALLINT NOT NULL,
    "customer_id" UUID,
    "supplier_id" UUID,
    "amount" DECIMAL(18,2) NOT NULL,
    "date" DATE NOT NULL,
    "due_date" DATE NOT NULL,

    CONSTRAINT "opening_balance_items_pkey" PRIMARY KEY ("transaction_id","line_number")
);

-- CreateIndex
CREATE INDEX "opening_balance_items_company_id_customer_id_idx" ON "opening_balance_items"("company_id", "customer_id");

-- CreateIndex
CREATE INDEX "opening_balance_items_company_id_supplier_id_idx" ON "opening_balance_items"("company_id", "supplier_id");
