-- The control trail (kontrolspor, bogføringsloven annex 1 no. 2): every registration records who made it, when by the
-- database clock and from which request; triggers write it from the transaction's actor (tlr.actor), append-only.
-- AlterTable
ALTER TABLE "credit_notes" ADD COLUMN     "registered_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
ADD COLUMN     "registered_by" JSONB NOT NULL DEFAULT '{"type": "system", "id": null, "name": "tlr"}';

-- AlterTable
ALTER TABLE "expenses" ADD COLUMN     "registered_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
ADD COLUMN     "registered_by" JSONB NOT NULL DEFAULT '{"type": "system", "id": null, "name": "tlr"}';

-- AlterTable
ALTER TABLE "invoice_payments" ADD COLUMN     "registered_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
ADD COLUMN     "registered_by" JSONB NOT NULL DEFAULT '{"type": "system", "id": null, "name": "tlr"}';

-- AlterTable
ALTER TABLE "invoices" ADD COLUMN     "registered_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
ADD COLUMN     "registered_by" JSONB NOT NULL DEFAULT '{"type": "system", "id": null, "name": "tlr"}';

-- AlterTable
ALTER TABLE "ledger_transactions" ADD COLUMN     "registered_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
ADD COLUMN     "registered_by" JSONB NOT NULL DEFAULT '{"type": "system", "id": null, "name": "tlr"}';

-- AlterTable
ALTER TABLE "vat_returns" ADD COLUMN     "registered_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
ADD COLUMN     "registered_by" JSONB NOT NULL DEFAULT '{"type": "system", "id": null, "name": "tlr"}';

-- AlterTable
ALTER TABLE "vouchers" ADD COLUMN     "registered_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
ADD COLUMN     "registered_by" JSONB NOT NULL DEFAULT '{"type": "system", "id": null, "name": "tlr"}';

-- CreateTable
CREATE TABLE "control_trail" (
    "id" BIGSERIAL NOT NULL,
    "company_id" UUID NOT NULL,
    "registered_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "actor" JSONB NOT NULL,
    "request_id" TEXT,
    "resource_type" TEXT NOT NULL,
    "resource_id" UUID NOT NULL,
    "action" TEXT NOT NULL,
    "changes" JSONB,

    CONSTRAINT "control_trail_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "control_trail_company_id_registered_at_id_idx" ON "control_trail"("company_id", "registered_at", "id");

-- CreateIndex
CREATE INDEX "control_trail_company_id_resource_id_id_idx" ON "control_trail"("company_id", "resource_id", "id");

-- Rows registered before the trail existed: their time is when they were created; who made them was not recorded.
ALTER TABLE "ledger_transactions" DISABLE TRIGGER USER;
ALTER TABLE "vat_returns" DISABLE TRIGGER USER;
ALTER TABLE "invoices" DISABLE TRIGGER USER;
UPDATE "ledger_transactions" SET registered_at = created_at, registered_by = '{"type": "system", "id": null, "name": "registered before the control trail"}';
UPDATE "vat_returns" SET registered_at = settled_at, registered_by = '{"type": "system", "id": null, "name": "registered before the control trail"}';
UPDATE "invoices" SET registered_at = created_at, registered_by = '{"type": "system", "id": null, "name": "registered before the control trail"}';
UPDATE "invoice_payments" SET registered_at = created_at, registered_by = '{"type": "system", "id": null, "name": "registered before the control trail"}';
UPDATE "credit_notes" SET registered_at = created_at, registered_by = '{"type": "system", "id": null, "name": "registered before the control trail"}';
UPDATE "expenses" SET registered_at = created_at, registered_by = '{"type": "system", "id": null, "name": "registered before the control trail"}';
UPDATE "vouchers" SET registered_at = uploaded_at, registered_by = '{"type": "system", "id": null, "name": "registered before the control trail"}';
ALTER TABLE "ledger_transactions" ENABLE TRIGGER USER;
ALTER TABLE "vat_returns" ENABLE TRIGGER USER;
ALTER TABLE "invoices" ENABLE TRIGGER USER;

-- Who acts in this transaction, as registered_by shows it: { type, id, name } (+ user for an OAuth application).
-- The application names the actor with SET LOCAL tlr.actor = '{"type":"api_key","id":"…","request_id":"…"}'
-- (trail/actor.ts); the names are read here, once per transaction, so that the trail keeps the name the actor had
-- when it acted. No actor named: the system itself (a background job).
CREATE FUNCTION tlr_actor() RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  cached text := current_setting('tlr.actor_resolved', true);
  given jsonb := NULLIF(current_setting('tlr.actor', true), '')::jsonb;
  result jsonb;
BEGIN
  IF cached IS NOT NULL AND cached <> '' THEN RETURN cached::jsonb; END IF;
  IF given IS NULL THEN
    result := '{"type": "system", "id": null, "name": "tlr"}';
  ELSIF given->>'type' = 'api_key' THEN
    SELECT jsonb_build_object('type', 'api_key', 'id', k.id, 'name', k.name) INTO result
    FROM api_keys k WHERE k.id = (given->>'id')::uuid;
  ELSIF given->>'type' = 'oauth_token' THEN
    SELECT jsonb_build_object('type', 'oauth_application', 'id', c.id, 'name', c.name,
                              'user', jsonb_build_object('type', 'user', 'id', u.id, 'name', u.email)) INTO result
    FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id JOIN oauth_clients c ON c.id = g.client_id
         JOIN users u ON u.id = g.user_id
    WHERE t.id = (given->>'id')::uuid;
  ELSIF given->>'type' = 'owner' THEN
    SELECT jsonb_build_object('type', 'owner', 'id', u.id, 'name', u.email) INTO result FROM users u WHERE u.id = (given->>'id')::uuid;
  ELSIF given->>'type' = 'staff' THEN
    SELECT jsonb_build_object('type', 'staff', 'id', s.id, 'name', s.email) INTO result FROM staff_users s WHERE s.id = (given->>'id')::uuid;
  END IF;
  result := COALESCE(result, jsonb_build_object('type', given->>'type', 'id', given->'id', 'name', COALESCE(given->>'name', '')));
  PERFORM set_config('tlr.actor_resolved', result::text, true);
  RETURN result;
END $$;

-- A registration's own record of who and when (the moment of the insert, not the transaction's start): set on insert,
-- kept on every update.
CREATE FUNCTION tlr_registered() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    NEW.registered_at := clock_timestamp();
    NEW.registered_by := tlr_actor();
  ELSE
    NEW.registered_at := OLD.registered_at;
    NEW.registered_by := OLD.registered_by;
  END IF;
  RETURN NEW;
END $$;

-- One trail row per registration or change. Arguments: the resource type, the action of an insert, and of an
-- update: a word, or ':status' (the new status when it changed, else 'updated'). An update that changes nothing
-- but updated_at is none. A sandbox reset (tlr.ledger_reset) empties a sandbox without a row per deleted row.
CREATE FUNCTION tlr_trail() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  r jsonb := to_jsonb(CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END);
  act text;
  diff jsonb;
BEGIN
  IF current_setting('tlr.ledger_reset', true) = 'on' THEN RETURN NULL; END IF;
  IF TG_OP = 'INSERT' THEN
    act := TG_ARGV[1];
  ELSIF TG_OP = 'DELETE' THEN
    act := 'deleted';
  ELSE
    SELECT jsonb_object_agg(n.key, jsonb_build_array(o.value, n.value)) INTO diff
    FROM jsonb_each(to_jsonb(OLD)) o JOIN jsonb_each(r) n ON n.key = o.key
    WHERE o.value IS DISTINCT FROM n.value
      -- bookkeeping of the machinery, not changes to the books
      AND n.key NOT IN ('updated_at', 'checked_at', 'suggestions', 'processing_attempts', 'processed_at', 'extracted_text');
    IF diff IS NULL THEN RETURN NULL; END IF;
    act := CASE WHEN TG_ARGV[2] = ':status' THEN CASE WHEN diff ? 'status' THEN r->>'status' ELSE 'updated' END ELSE TG_ARGV[2] END;
  END IF;
  INSERT INTO control_trail (company_id, registered_at, actor, request_id, resource_type, resource_id, action, changes)
  VALUES ((r->>'company_id')::uuid, CASE WHEN TG_OP = 'INSERT' AND r ? 'registered_at' THEN (r->>'registered_at')::timestamptz ELSE clock_timestamp() END, tlr_actor(), NULLIF(current_setting('tlr.actor', true), '')::jsonb->>'request_id',
          TG_ARGV[0], (r->>'id')::uuid, act, diff);
  RETURN NULL;
END $$;

CREATE FUNCTION tlr_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% is append-only (% refused)', TG_TABLE_NAME, TG_OP USING ERRCODE = 'insufficient_privilege';
END $$;
CREATE TRIGGER control_trail_append_only BEFORE UPDATE OR DELETE ON "control_trail" FOR EACH ROW EXECUTE FUNCTION tlr_append_only();
CREATE TRIGGER control_trail_no_truncate BEFORE TRUNCATE ON "control_trail" FOR EACH STATEMENT EXECUTE FUNCTION tlr_append_only();

CREATE TRIGGER ledger_transactions_registered BEFORE INSERT ON "ledger_transactions" FOR EACH ROW EXECUTE FUNCTION tlr_registered();
CREATE TRIGGER vat_returns_registered BEFORE INSERT ON "vat_returns" FOR EACH ROW EXECUTE FUNCTION tlr_registered();
CREATE TRIGGER credit_notes_registered BEFORE INSERT OR UPDATE ON "credit_notes" FOR EACH ROW EXECUTE FUNCTION tlr_registered();
CREATE TRIGGER invoices_registered BEFORE INSERT OR UPDATE ON "invoices" FOR EACH ROW EXECUTE FUNCTION tlr_registered();
CREATE TRIGGER invoice_payments_registered BEFORE INSERT OR UPDATE ON "invoice_payments" FOR EACH ROW EXECUTE FUNCTION tlr_registered();
CREATE TRIGGER expenses_registered BEFORE INSERT OR UPDATE ON "expenses" FOR EACH ROW EXECUTE FUNCTION tlr_registered();
CREATE TRIGGER vouchers_registered BEFORE INSERT OR UPDATE ON "vouchers" FOR EACH ROW EXECUTE FUNCTION tlr_registered();

CREATE TRIGGER ledger_transactions_trail AFTER INSERT ON "ledger_transactions" FOR EACH ROW EXECUTE FUNCTION tlr_trail('transaction', 'posted', 'updated');
CREATE TRIGGER vat_returns_trail AFTER INSERT ON "vat_returns" FOR EACH ROW EXECUTE FUNCTION tlr_trail('vat_return', 'settled', 'updated');
CREATE TRIGGER credit_notes_trail AFTER INSERT ON "credit_notes" FOR EACH ROW EXECUTE FUNCTION tlr_trail('credit_note', 'created', 'updated');
CREATE TRIGGER invoices_trail AFTER INSERT OR UPDATE OR DELETE ON "invoices" FOR EACH ROW EXECUTE FUNCTION tlr_trail('invoice', 'created', ':status');
CREATE TRIGGER invoice_payments_trail AFTER INSERT OR UPDATE ON "invoice_payments" FOR EACH ROW EXECUTE FUNCTION tlr_trail('invoice_payment', 'registered', 'reversed');
CREATE TRIGGER expenses_trail AFTER INSERT OR UPDATE OR DELETE ON "expenses" FOR EACH ROW EXECUTE FUNCTION tlr_trail('expense', 'created', ':status');
CREATE TRIGGER vouchers_trail AFTER INSERT OR UPDATE OR DELETE ON "vouchers" FOR EACH ROW EXECUTE FUNCTION tlr_trail('voucher', 'uploaded', ':status');
CREATE TRIGGER bank_statements_trail AFTER INSERT ON "bank_statements" FOR EACH ROW EXECUTE FUNCTION tlr_trail('bank_statement', 'imported', 'updated');
CREATE TRIGGER bank_lines_trail AFTER UPDATE ON "bank_lines" FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.journal_line_id IS DISTINCT FROM NEW.journal_line_id)
  EXECUTE FUNCTION tlr_trail('bank_line', 'imported', ':status');
CREATE TRIGGER bank_accounts_trail AFTER INSERT OR UPDATE OR DELETE ON "bank_accounts" FOR EACH ROW EXECUTE FUNCTION tlr_trail('bank_account', 'created', 'updated');
CREATE TRIGGER customers_trail AFTER INSERT OR UPDATE OR DELETE ON "customers" FOR EACH ROW EXECUTE FUNCTION tlr_trail('customer', 'created', 'updated');
CREATE TRIGGER suppliers_trail AFTER INSERT OR UPDATE OR DELETE ON "suppliers" FOR EACH ROW EXECUTE FUNCTION tlr_trail('supplier', 'created', 'updated');
CREATE TRIGGER products_trail AFTER INSERT OR UPDATE OR DELETE ON "products" FOR EACH ROW EXECUTE FUNCTION tlr_trail('product', 'created', 'updated');
CREATE TRIGGER accounts_trail AFTER INSERT OR UPDATE OR DELETE ON "accounts" FOR EACH ROW EXECUTE FUNCTION tlr_trail('account', 'created', 'updated');
