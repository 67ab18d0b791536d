-- CreateTable
CREATE TABLE "master_data_count_deltas" (
    "id" BIGSERIAL NOT NULL,
    "company_id" UUID NOT NULL,
    "kind" TEXT NOT NULL,
    "delta" BIGINT NOT NULL,

    CONSTRAINT "master_data_count_deltas_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "master_data_count_deltas_company_id_kind_idx" ON "master_data_count_deltas"("company_id", "kind");

-- Exact list totals of customers, products and suppliers without counting the company's rows on every
-- list call (as invoice_counts does for invoices): statement-level triggers add one signed row per company
-- whose live rows (deleted_at IS NULL) a statement changed; kind is the table. Appends only, so concurrent
-- writers never wait on a shared counter row; readers sum a company's few rows, and a job folds them.
CREATE FUNCTION master_data_counts_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO master_data_count_deltas (company_id, kind, delta)
  SELECT company_id, TG_TABLE_NAME, count(*) FROM new_rows WHERE deleted_at IS NULL GROUP BY company_id;
  RETURN NULL;
END $$;

CREATE FUNCTION master_data_counts_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO master_data_count_deltas (company_id, kind, delta)
  SELECT company_id, TG_TABLE_NAME, -count(*) FROM old_rows WHERE deleted_at IS NULL GROUP BY company_id;
  RETURN NULL;
END $$;

-- A soft delete (deleted_at set) leaves the live count; a row brought back (deleted_at cleared) joins it.
CREATE FUNCTION master_data_counts_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO master_data_count_deltas (company_id, kind, delta)
  SELECT company_id, TG_TABLE_NAME, sum(delta) FROM (
    SELECT o.company_id, -1 AS delta FROM old_rows o JOIN new_rows n ON n.id = o.id
    WHERE o.deleted_at IS NULL AND (n.deleted_at IS NOT NULL OR n.company_id <> o.company_id)
    UNION ALL
    SELECT n.company_id, 1 FROM old_rows o JOIN new_rows n ON n.id = o.id
    WHERE n.deleted_at IS NULL AND (o.deleted_at IS NOT NULL OR n.company_id <> o.company_id)
  ) changed
  GROUP BY company_id
  HAVING sum(delta) <> 0;
  RETURN NULL;
END $$;

DO $$
DECLARE t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['customers', 'products', 'suppliers'] LOOP
    EXECUTE format('CREATE TRIGGER master_data_counts_insert AFTER INSERT ON %I
      REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION master_data_counts_insert()', t);
    EXECUTE format('CREATE TRIGGER master_data_counts_delete AFTER DELETE ON %I
      REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION master_data_counts_delete()', t);
    EXECUTE format('CREATE TRIGGER master_data_counts_update AFTER UPDATE ON %I
      REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION master_data_counts_update()', t);
  END LOOP;
END $$;

-- The rows that exist already.
INSERT INTO master_data_count_deltas (company_id, kind, delta)
SELECT company_id, 'customers', count(*) FROM customers WHERE deleted_at IS NULL GROUP BY company_id
UNION ALL
SELECT company_id, 'products', count(*) FROM products WHERE deleted_at IS NULL GROUP BY company_id
UNION ALL
SELECT company_id, 'suppliers', count(*) FROM suppliers WHERE deleted_at IS NULL GROUP BY company_id;
