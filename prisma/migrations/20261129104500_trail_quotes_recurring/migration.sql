-- Quotes and recurring invoices in the control trail (kontrolspor) as invoices are (decision 800): who registered
-- each and when (registered_at, registered_by, stamped by tlr_registered()), and a trail row for every
-- registration and change (tlr_trail()).
-- AlterTable
ALTER TABLE "quotes" ADD COLUMN     "registered_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
ADD COLUMN     "registered_by" JSONB NOT NULL DEFAULT '{"type": "system", "id": null, "name": "tlr"}';

-- AlterTable
ALTER TABLE "recurring_invoices" ADD COLUMN     "registered_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
ADD COLUMN     "registered_by" JSONB NOT NULL DEFAULT '{"type": "system", "id": null, "name": "tlr"}';

-- Rows registered before the trail reached them: their time is when they were created; who made them was not recorded.
UPDATE "quotes" SET registered_at = created_at, registered_by = '{"type": "system", "id": null, "name": "registered before the control trail"}';
UPDATE "recurring_invoices" SET registered_at = created_at, registered_by = '{"type": "system", "id": null, "name": "registered before the control trail"}';

-- tlr_trail() as before, with two more words for an update (decision 801): setting deleted_at (a soft delete: a
-- customer, product, supplier or recurring invoice) is 'deleted', not 'updated'; and the optional fourth argument
-- renames a status as its action ('{"active": "resumed"}': a recurring invoice made active again is resumed).
CREATE OR REPLACE FUNCTION tlr_trail() RETURNS trigger LANGUAGE plpgsql AS $$
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
    IF diff ? 'deleted_at' AND r->>'deleted_at' IS NOT NULL THEN
      act := 'deleted';
    ELSE
      act := CASE WHEN TG_ARGV[2] = ':status' THEN CASE WHEN diff ? 'status' THEN r->>'status' ELSE 'updated' END ELSE TG_ARGV[2] END;
      IF TG_NARGS > 3 THEN act := COALESCE(TG_ARGV[3]::jsonb->>act, act); END IF;
    END IF;
  END IF;
  INSERT INTO control_trail (company_id, registered_at, actor, request_id, resource_type, resource_id, action, changes)
  VALUES ((r->>'company_id')::uuid, CASE WHEN TG_OP = 'INSERT' AND r ? 'registered_at' THEN (r->>'registered_at')::timestamptz ELSE clock_timestamp() END, tlr_actor(), NULLIF(current_setting('tlr.actor', true), '')::jsonb->>'request_id',
          TG_ARGV[0], (r->>'id')::uuid, act, diff);
  RETURN NULL;
END $$;

CREATE TRIGGER quotes_registered BEFORE INSERT OR UPDATE ON "quotes" FOR EACH ROW EXECUTE FUNCTION tlr_registered();
CREATE TRIGGER recurring_invoices_registered BEFORE INSERT OR UPDATE ON "recurring_invoices" FOR EACH ROW EXECUTE FUNCTION tlr_registered();

-- A quote: created, updated, sent, accepted, declined, expired, deleted (a draft).
CREATE TRIGGER quotes_trail AFTER INSERT OR UPDATE OR DELETE ON "quotes" FOR EACH ROW EXECUTE FUNCTION tlr_trail('quote', 'created', ':status');
-- A recurring invoice: created, updated (its template, or the job moving it to its next period), paused, resumed,
-- ended, deleted (soft).
CREATE TRIGGER recurring_invoices_trail AFTER INSERT OR UPDATE OR DELETE ON "recurring_invoices" FOR EACH ROW
  EXECUTE FUNCTION tlr_trail('recurring_invoice', 'created', ':status', '{"active": "resumed"}');
