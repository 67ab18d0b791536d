-- Bank reconciliation from running totals: per bank account and day, the bank side (its statement lines,
-- those still unmatched) and the ledger side (the journal lines on the linked ledger account, those a bank
-- line names), so a reconciliation sums a few hundred rows a year instead of every line of both sides.
-- Kept by statement-level triggers on the rows themselves, so every writer (imports, matching, unmatching,
-- the journal writer, a sandbox reset) keeps them in the same transaction without knowing of them.
CREATE TABLE "bank_reconciliation_days" (
    "company_id" UUID NOT NULL,
    "bank_account_id" UUID NOT NULL,
    "date" DATE NOT NULL,
    "bank_sum" DECIMAL(38,2) NOT NULL DEFAULT 0,
    "open_bank_count" INTEGER NOT NULL DEFAULT 0,
    "open_bank_sum" DECIMAL(38,2) NOT NULL DEFAULT 0,
    "ledger_count" INTEGER NOT NULL DEFAULT 0,
    "ledger_sum" DECIMAL(38,2) NOT NULL DEFAULT 0,
    "matched_count" INTEGER NOT NULL DEFAULT 0,
    "matched_sum" DECIMAL(38,2) NOT NULL DEFAULT 0,

    CONSTRAINT "bank_reconciliation_days_pkey" PRIMARY KEY ("company_id","bank_account_id","date")
);

ALTER TABLE "bank_reconciliation_days" ADD CONSTRAINT "bank_reconciliation_days_bank_account_id_fkey" FOREIGN KEY ("bank_account_id") REFERENCES "bank_accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- A journal line's amount as the bank account counts it: debit − credit for a DKK account; for a foreign
-- one the currency amount of a line registered in its currency (positive on the side its DKK amount
-- stands), NULL for any other line (a DKK adjustment moves no foreign money).
CREATE FUNCTION tlr_bank_ledger_amount(bank_currency text, debit numeric, credit numeric, line_currency text, currency_amount numeric)
RETURNS numeric LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN bank_currency = 'DKK' THEN debit - credit
              WHEN line_currency = bank_currency THEN CASE WHEN credit > 0 THEN -currency_amount ELSE currency_amount END END
$$;

-- The signed deltas of a set of bank lines (a transition table, by name) as the day rows count them: the
-- bank side on its booking date; the ledger side's matched count on the date of the journal line it names,
-- for the bank account whose ledger account holds that line.
CREATE FUNCTION tlr_bank_line_deltas_sql(rows_name text, sign int) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT format($q$
    SELECT l.company_id, l.bank_account_id, l.booking_date AS date, %2$s * l.amount AS bank_sum,
           %2$s * (l.status = 'unmatched')::int AS open_bank_count,
           %2$s * CASE WHEN l.status = 'unmatched' THEN l.amount ELSE 0 END AS open_bank_sum,
           0 AS ledger_count, 0 AS ledger_sum, 0 AS matched_count, 0 AS matched_sum
    FROM %1$I l
    UNION ALL
    SELECT b.company_id, b.id, t.date, 0, 0, 0, 0, 0, %2$s, %2$s * m.amount
    FROM %1$I l
    JOIN transaction_lines tl ON tl.id = l.journal_line_id AND tl.company_id = l.company_id
    JOIN accounts a ON a.id = tl.account_id
    JOIN bank_accounts b ON b.company_id = a.company_id AND b.account_number = a.account_number
    JOIN ledger_transactions t ON t.id = tl.transaction_id
    CROSS JOIN LATERAL (SELECT tlr_bank_ledger_amount(b.currency, tl.debit, tl.credit, tl.currency, tl.currency_amount) AS amount) m
    WHERE m.amount IS NOT NULL$q$, rows_name, sign)
$$;

-- The signed deltas of a set of journal lines: the ledger side of the bank account whose ledger account
-- holds them, on their transaction's date (a line a bank line already names counts as matched too).
CREATE FUNCTION tlr_journal_line_deltas_sql(rows_name text, sign int) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT format($q$
    SELECT b.company_id, b.id AS bank_account_id, t.date, 0 AS bank_sum, 0 AS open_bank_count, 0 AS open_bank_sum,
           %2$s AS ledger_count, %2$s * m.amount AS ledger_sum,
           %2$s * (bl.id IS NOT NULL)::int AS matched_count, %2$s * CASE WHEN bl.id IS NOT NULL THEN m.amount ELSE 0 END AS matched_sum
    FROM %1$I tl
    JOIN accounts a ON a.id = tl.account_id
    JOIN bank_accounts b ON b.company_id = a.company_id AND b.account_number = a.account_number
    JOIN ledger_transactions t ON t.id = tl.transaction_id
    LEFT JOIN bank_lines bl ON bl.journal_line_id = tl.id
    CROSS JOIN LATERAL (SELECT tlr_bank_ledger_amount(b.currency, tl.debit, tl.credit, tl.currency, tl.currency_amount) AS amount) m
    WHERE m.amount IS NOT NULL$q$, rows_name, sign)
$$;

-- The statement that adds signed deltas to the day rows: summed per day first (an import of 100,000 lines
-- is a few hundred days), rows whose deltas are all zero (an update of other columns) skipped, in key order
-- (two writers lock the days they share in the same order).
CREATE FUNCTION tlr_bank_days_sql(deltas_sql text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT format($q$
    INSERT INTO bank_reconciliation_days AS d (company_id, bank_account_id, date, bank_sum, open_bank_count, open_bank_sum,
                                               ledger_count, ledger_sum, matched_count, matched_sum)
    SELECT company_id, bank_account_id, date, SUM(bank_sum), SUM(open_bank_count), SUM(open_bank_sum),
           SUM(ledger_count), SUM(ledger_sum), SUM(matched_count), SUM(matched_sum)
    FROM (%s) x
    GROUP BY company_id, bank_account_id, date
    HAVING SUM(bank_sum) <> 0 OR SUM(open_bank_count) <> 0 OR SUM(open_bank_sum) <> 0 OR SUM(ledger_count) <> 0
        OR SUM(ledger_sum) <> 0 OR SUM(matched_count) <> 0 OR SUM(matched_sum) <> 0
    ORDER BY company_id, bank_account_id, date
    ON CONFLICT (company_id, bank_account_id, date) DO UPDATE SET
      bank_sum = d.bank_sum + EXCLUDED.bank_sum,
      open_bank_count = d.open_bank_count + EXCLUDED.open_bank_count,
      open_bank_sum = d.open_bank_sum + EXCLUDED.open_bank_sum,
      ledger_count = d.ledger_count + EXCLUDED.ledger_count,
      ledger_sum = d.ledger_sum + EXCLUDED.ledger_sum,
      matched_count = d.matched_count + EXCLUDED.matched_count,
      matched_sum = d.matched_sum + EXCLUDED.matched_sum$q$, deltas_sql)
$$;

DO $do$
DECLARE
  trigger_function constant text := $f$CREATE FUNCTION %I() RETURNS trigger LANGUAGE plpgsql AS $b$
BEGIN
  IF TG_OP = 'INSERT' THEN
    %s;
  ELSIF TG_OP = 'DELETE' THEN
    %s;
  ELSE
    %s;
  END IF;
  RETURN NULL;
END $b$$f$;
BEGIN
  EXECUTE format(trigger_function, 'tlr_bank_lines_days',
    tlr_bank_days_sql(tlr_bank_line_deltas_sql('new_rows', 1)),
    tlr_bank_days_sql(tlr_bank_line_deltas_sql('old_rows', -1)),
    tlr_bank_days_sql(tlr_bank_line_deltas_sql('new_rows', 1) || ' UNION ALL ' || tlr_bank_line_deltas_sql('old_rows', -1)));
  -- Journal lines are never updated (tlr_ledger_is_immutable): no update branch.
  EXECUTE format(trigger_function, 'tlr_transaction_lines_days',
    tlr_bank_days_sql(tlr_journal_line_deltas_sql('new_rows', 1)),
    tlr_bank_days_sql(tlr_journal_line_deltas_sql('old_rows', -1)),
    'NULL');
END $do$;

CREATE TRIGGER bank_lines_days_insert AFTER INSERT ON "bank_lines" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION tlr_bank_lines_days();
CREATE TRIGGER bank_lines_days_update AFTER UPDATE ON "bank_lines" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION tlr_bank_lines_days();
CREATE TRIGGER bank_lines_days_delete AFTER DELETE ON "bank_lines" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION tlr_bank_lines_days();

CREATE TRIGGER transaction_lines_days_insert AFTER INSERT ON "transaction_lines" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION tlr_transaction_lines_days();
CREATE TRIGGER transaction_lines_days_delete AFTER DELETE ON "transaction_lines" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION tlr_transaction_lines_days();

-- The day rows of one bank account counted from scratch: what the triggers keep, by definition. The backfill,
-- a bank account created over existing postings or relinked, and the tests' recount use it.
CREATE FUNCTION tlr_bank_days_count(account uuid)
RETURNS TABLE (company_id uuid, bank_account_id uuid, date date, bank_sum numeric, open_bank_count int, open_bank_sum numeric,
               ledger_count int, ledger_sum numeric, matched_count int, matched_sum numeric)
LANGUAGE sql STABLE AS $$
  SELECT b.company_id, b.id, x.date, SUM(x.bank_sum), SUM(x.open_bank_count)::int, SUM(x.open_bank_sum),
         SUM(x.ledger_count)::int, SUM(x.ledger_sum), SUM(x.matched_count)::int, SUM(x.matched_sum)
  FROM bank_accounts b
  JOIN accounts a ON a.company_id = b.company_id AND a.account_number = b.account_number
  CROSS JOIN LATERAL (
    SELECT l.booking_date AS date, l.amount AS bank_sum, (l.status = 'unmatched')::int AS open_bank_count,
           CASE WHEN l.status = 'unmatched' THEN l.amount ELSE 0 END AS open_bank_sum,
           0 AS ledger_count, 0 AS ledger_sum, 0 AS matched_count, 0 AS matched_sum
    FROM bank_lines l WHERE l.bank_account_id = b.id
    UNION ALL
    SELECT t.date, 0, 0, 0, 1, m.amount, (bl.id IS NOT NULL)::int, CASE WHEN bl.id IS NOT NULL THEN m.amount ELSE 0 END
    FROM transaction_lines tl
    JOIN ledger_transactions t ON t.id = tl.transaction_id
    LEFT JOIN bank_lines bl ON bl.journal_line_id = tl.id
    CROSS JOIN LATERAL (SELECT tlr_bank_ledger_amount(b.currency, tl.debit, tl.credit, tl.currency, tl.currency_amount) AS amount) m
    WHERE tl.company_id = b.company_id AND tl.account_id = a.id AND m.amount IS NOT NULL
  ) x
  WHERE b.id = account
  GROUP BY b.company_id, b.id, x.date
$$;

CREATE FUNCTION tlr_bank_days_recount(account uuid) RETURNS void LANGUAGE sql AS $$
  DELETE FROM bank_reconciliation_days WHERE bank_account_id = account;
  INSERT INTO bank_reconciliation_days SELECT * FROM tlr_bank_days_count(account);
$$;

CREATE FUNCTION tlr_bank_accounts_days() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM tlr_bank_days_recount(NEW.id);
  RETURN NULL;
END $$;

-- A bank account over postings already made, or linked to another ledger account or currency: its days anew.
CREATE TRIGGER bank_accounts_days AFTER INSERT OR UPDATE OF account_number, currency ON "bank_accounts"
  FOR EACH ROW EXECUTE FUNCTION tlr_bank_accounts_days();

-- The backfill.
SELECT tlr_bank_days_recount(id) FROM bank_accounts;
