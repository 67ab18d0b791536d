-- Invoice lines: the unit of the quantity (UN/ECE Recommendation 20; C62 "one" for the lines before) and a
-- discount in percent (0 for the lines before). Additive: existing lines keep their amounts.
ALTER TABLE "invoice_lines" ADD COLUMN "unit" TEXT NOT NULL DEFAULT 'C62',
ADD COLUMN "discount_percent" DECIMAL(5,2) NOT NULL DEFAULT 0;
