-- CreateTable
CREATE TABLE "invoice_count_deltas" (
    "id" BIGSERIAL NOT NULL,
    "company_id" UUID NOT NULL,
    "status" TEXT NOT NULL,
    "delta" BIGINT NOT NULL,

    CONSTRAINT "invoice_count_deltas_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "invoice_count_deltas_company_id_status_idx" ON "invoice_count_deltas"("company_id", "status");

-- Exact list totals without counting a million rows: statement-level triggers add one signed row per
-- (company, status) that a statement changed. Appends only, so concurrent writers never wait on a
-- shared counter row (no hot row, no lock-order deadlock between status changes); readers sum the
-- few rows of a company, and a job folds them (packages/domain/src/invoices/counts.ts).
CREATE FUNCTION invoice_counts_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO invoice_count_deltas (company_id, status, delta)
  SELECT company_id, status, count(*) FROM new_rows GROUP BY company_id, status;
  RETURN NULL;
END $$;

CREATE FUNCTION invoice_counts_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO invoice_count_deltas (company_id, status, delta)
  SELECT company_id, status, -count(*) FROM old_rows GROUP BY company_id, status;
  RETURN NULL;
END $$;

CREATE FUNCTION invoice_counts_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO invoice_count_deltas (company_id, status, delta)
  SELECT company_id, status, sum(delta) FROM (
    SELECT o.company_id, o.status, -1 AS delta FROM old_rows o JOIN new_rows n ON n.id = o.id
    WHERE (o.company_id, o.status) IS DISTINCT FROM (n.company_id, n.status)
    UNION ALL
    SELECT n.company_id, n.status, 1 FROM old_rows o JOIN new_rows n ON n.id = o.id
    WHERE (o.company_id, o.status) IS DISTINCT FROM (n.company_id, n.status)
  ) changed
  GROUP BY company_id, status;
  RETURN NULL;
END $$;

CREATE TRIGGER invoice_counts_insert AFTER INSERT ON invoices
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION invoice_counts_insert();
CREATE TRIGGER invoice_counts_delete AFTER DELETE ON invoices
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION invoice_counts_delete();
CREATE TRIGGER invoice_counts_update AFTER UPDATE ON invoices
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION invoice_counts_update();

-- The invoices that exist already.
INSERT INTO invoice_count_deltas (company_id, status, delta)
SELECT company_id, status, count(*) FROM invoices GROUP BY company_id, status;
