-- AlterTable
ALTER TABLE "expenses" ADD COLUMN     "currency" TEXT NOT NULL DEFAULT 'DKK',
ADD COLUMN     "exchange_rate" DECIMAL(18,6),
ADD COLUMN     "payable_dkk" DECIMAL(18,2) NOT NULL DEFAULT 0,
ADD COLUMN     "vat_code" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "vat_deductible_percent" DECIMAL(5,2);

-- AlterTable
ALTER TABLE "invoice_lines" ADD COLUMN     "vat_code" TEXT NOT NULL DEFAULT '';

-- AlterTable
ALTER TABLE "invoices" ADD COLUMN     "customer_vat_number" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "exchange_rate" DECIMAL(18,6),
ADD COLUMN     "total_dkk" DECIMAL(18,2) NOT NULL DEFAULT 0,
ADD COLUMN     "paid_dkk" DECIMAL(18,2) NOT NULL DEFAULT 0;

-- Invoices before currencies were in DKK: what they posted to receivables is their total.
UPDATE "invoices" SET "exchange_rate" = 1, "total_dkk" = "total", "paid_dkk" = "paid_amount" WHERE "status" <> 'draft';
UPDATE "expenses" SET "exchange_rate" = 1, "payable_dkk" = "amount" WHERE "status" <> 'draft';

-- AlterTable
ALTER TABLE "invoice_payments" ADD COLUMN     "exchange_rate" DECIMAL(18,6) NOT NULL DEFAULT 1;

-- AlterTable
ALTER TABLE "vat_codes" ADD COLUMN     "deductible_percent" DECIMAL(5,2) NOT NULL DEFAULT 100,
ADD COLUMN     "standard_code" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;

-- DropTable
DROP TABLE "rate_limit_windows";

-- CreateTable
CREATE TABLE "vat_monthly_bases" (
    "company_id" UUID NOT NULL,
    "month" DATE NOT NULL,
    "vat_code" TEXT NOT NULL,
    "debit" DECIMAL(38,2) NOT NULL DEFAULT 0,
    "credit" DECIMAL(38,2) NOT NULL DEFAULT 0,

    CONSTRAINT "vat_monthly_bases_pkey" PRIMARY KEY ("company_id","month","vat_code")
);

-- CreateTable
CREATE TABLE "vat_returns" (
    "id" UUID NOT NULL,
    "company_id" UUID NOT NULL,
    "period" TEXT NOT NULL,
    "version" SMALLINT NOT NULL,
    "start_date" DATE NOT NULL,
    "end_date" DATE NOT NULL,
    "deadline" DATE NOT NULL,
    "fields" JSONB NOT NULL,
    "exact" JSONB NOT NULL,
    "transaction_id" UUID,
    "settled_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "vat_returns_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "vat_returns_company_id_end_date_idx" ON "vat_returns"("company_id", "end_date");

-- CreateIndex
CREATE UNIQUE INDEX "vat_returns_company_id_period_version_key" ON "vat_returns"("company_id", "period", "version");

-- The VAT treatments (packages/domain/src/vat/codes.ts, as of this migration): existing companies' seeded
-- codes take their new kinds, names and standard codes, and every company gets the codes it lacks.
CREATE TEMPORARY TABLE seed_vat_codes (code text, name text, kind text, rate numeric, account_number text, offset_account_number text, deductible_percent numeric, standard_code text);
INSERT INTO seed_vat_codes VALUES
  ('S25', 'Salgsmoms 25%', 'output', 25, '7680', '', 100, 'S-DK-25'),
  ('S0', 'Momsfrit salg (0 %)', 'exempt_sale', 0, '', '', 100, 'S-DK-MF'),
  ('SMF', 'Momsfritaget salg (momslovens § 13)', 'exempt_sale', 0, '', '', 100, 'S-DK-MF'),
  ('SEUV', 'Salg af varer til EU, 0% (rubrik B, indberettes)', 'eu_sale_goods', 0, '', '', 100, 'S-EU-V-0'),
  ('SEUVI', 'Salg af varer til EU, 0% (rubrik B, indberettes ikke)', 'eu_sale_goods_unlisted', 0, '', '', 100, 'S-EU-V-0%'),
  ('SEUY', 'Salg af ydelser til EU, 0% (rubrik B)', 'eu_sale_services', 0, '', '', 100, 'S-EU-Y-0'),
  ('SEXP', 'Eksport uden for EU, 0% (rubrik C)', 'export', 0, '', '', 100, 'S-DK-0'),
  ('SOMV', 'Salg med omvendt betalingspligt (momslovens § 46, rubrik C)', 'domestic_reverse_charge_sale', 0, '', '', 100, 'S-DK-0'),
  ('K25', 'Købsmoms 25%, fuldt fradrag', 'input', 25, '7740', '', 100, 'K-DK-Fradrag'),
  ('KDELVIS', 'Købsmoms 25%, delvist fradrag (angivet procent)', 'input', 25, '7740', '', 100, 'K-DK-DelvisFradrag'),
  ('KREP', 'Repræsentation, 25% af momsen fradrages', 'input', 25, '7740', '', 25, 'K-DK-RepræsentationFradragFuld'),
  ('K0', 'Momsfrit køb', 'exempt_purchase', 0, '', '', 100, 'K-DK-IngenFradrag'),
  ('EUV', 'Køb af varer i EU, erhvervelsesmoms (rubrik A)', 'eu_purchase_goods', 25, '7700', '7740', 100, 'K-EU-V-Fradrag'),
  ('EUY', 'Køb af ydelser i EU, omvendt betalingspligt (rubrik A)', 'eu_purchase_services', 25, '7720', '7740', 100, 'K-EU-Y-Fradrag'),
  ('IMPV', 'Import af varer uden for EU, importmoms', 'import_goods', 25, '7700', '7740', 100, 'K-%EU-V-Fradrag'),
  ('UY', 'Køb af ydelser uden for EU, omvendt betalingspligt', 'foreign_purchase_services', 25, '7720', '7740', 100, 'K-%EU-Y-Fradrag'),
  ('KOMV', 'Køb med omvendt betalingspligt (momslovens § 46)', 'domestic_reverse_charge_purchase', 25, '7680', '7740', 100, 'K-DKO-Fradrag');
UPDATE vat_codes v SET name = s.name, kind = s.kind, rate = s.rate, account_number = s.account_number, offset_account_number = s.offset_account_number,
  deductible_percent = s.deductible_percent, standard_code = s.standard_code
FROM seed_vat_codes s WHERE s.code = v.code;
INSERT INTO vat_codes (id, company_id, code, name, kind, rate, account_number, offset_account_number, deductible_percent, standard_code)
SELECT gen_random_uuid(), c.id, s.code, s.name, s.kind, s.rate, s.account_number, s.offset_account_number, s.deductible_percent, s.standard_code
FROM companies c CROSS JOIN seed_vat_codes s
ON CONFLICT (company_id, code) DO NOTHING;
DROP TABLE seed_vat_codes;

-- Invoice lines written before codes carry their rate's code.
UPDATE invoice_lines SET vat_code = CASE WHEN vat_rate = 0 THEN 'S0' ELSE 'S' || trim(to_char(vat_rate, 'FM990')) END WHERE vat_code = '';

-- The bases of the postings made so far: coded lines on accounts other than the VAT return's.
INSERT INTO vat_monthly_bases (company_id, month, vat_code, debit, credit)
SELECT l.company_id, date_trunc('month', t.date)::date, l.vat_code, sum(l.debit), sum(l.credit)
FROM transaction_lines l JOIN ledger_transactions t ON t.id = l.transaction_id JOIN accounts a ON a.id = l.account_id
WHERE l.vat_code <> '' AND a.account_number NOT IN ('7680', '7700', '7720', '7740', '7760', '7780', '7800', '7810', '7820', '7830')
GROUP BY 1, 2, 3;

-- A filed return is never changed; a sandbox reset deletes it as it deletes the sandbox's ledger.
CREATE TRIGGER vat_returns_immutable BEFORE UPDATE OR DELETE ON "vat_returns"
  FOR EACH ROW EXECUTE FUNCTION tlr_ledger_is_immutable();
