-- CreateTable
CREATE TABLE "expense_lines" (
    "id" UUID NOT NULL,
    "company_id" UUID NOT NULL,
    "expense_id" UUID NOT NULL,
    "position" SMALLINT NOT NULL,
    "kind" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "item_id" TEXT NOT NULL DEFAULT '',
    "item_key" TEXT NOT NULL,
    "quantity" DECIMAL(24,8) NOT NULL,
    "unit" TEXT NOT NULL DEFAULT '',
    "unit_price" DECIMAL(24,8),
    "allowance_amount" DECIMAL(18,2) NOT NULL DEFAULT 0,
    "charge_amount" DECIMAL(18,2) NOT NULL DEFAULT 0,
    "net_amount" DECIMAL(18,2) NOT NULL,
    "vat_code" TEXT NOT NULL,
    "vat_rate" DECIMAL(5,2),
    "vat_amount" DECIMAL(18,2) NOT NULL,
    "account_id" UUID NOT NULL,
    "account_source" TEXT NOT NULL,

    CONSTRAINT "expense_lines_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "supplier_item_accounts" (
    "company_id" UUID NOT NULL,
    "supplier_id" UUID NOT NULL,
    "item_key" TEXT NOT NULL,
    "account_id" UUID NOT NULL,
    "expense_id" UUID NOT NULL,
    "booked_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "supplier_item_accounts_pkey" PRIMARY KEY ("company_id","supplier_id","item_key")
);

-- CreateIndex
CREATE UNIQUE INDEX "expense_lines_expense_id_position_key" ON "expense_lines"("expense_id", "position");

-- AddForeignKey
ALTER TABLE "expense_lines" ADD CONSTRAINT "expense_lines_expense_id_fkey" FOREIGN KEY ("expense_id") REFERENCES "expenses"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- What booked received documents taught before lines were the expense's own (decision 682): each
-- supplier's item, by the latest booked expense that carried it, to that expense's one account.
INSERT INTO "supplier_item_accounts" ("company_id", "supplier_id", "item_key", "account_id", "expense_id", "booked_at")
SELECT DISTINCT ON (m.company_id, m.supplier_id, l.item_key) m.company_id, m.supplier_id, l.item_key, e.account_id, e.id, e.updated_at
FROM "einvoice_messages" m
JOIN "expenses" e ON e.id = m.expense_id AND e.status IN ('booked', 'paid')
CROSS JOIN LATERAL jsonb_to_recordset(m.lines) AS l(item_key text)
WHERE m.direction = 'inbound' AND m.supplier_id IS NOT NULL AND l.item_key IS NOT NULL AND l.item_key <> ''
ORDER BY m.company_id, m.supplier_id, l.item_key, e.date DESC, m.created_at DESC;
