-- The audit log records every caller (REST credentials, the operator CLI, staff in the admin app) as an
-- actor, and the problem code of a refused request.
ALTER TABLE "request_audit_log" RENAME COLUMN "credential_type" TO "actor_type";
ALTER TABLE "request_audit_log" RENAME COLUMN "credential_id" TO "actor_id";
ALTER TABLE "request_audit_log" ALTER COLUMN "actor_id" SET DATA TYPE TEXT;
ALTER TABLE "request_audit_log" ADD COLUMN "problem_code" TEXT;

-- A replayed response is byte for byte the original: json keeps the text, jsonb reorders the keys.
ALTER TABLE "idempotency_keys" ALTER COLUMN "response_body" SET DATA TYPE JSON;
