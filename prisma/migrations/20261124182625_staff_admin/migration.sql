-- AlterTable
ALTER TABLE "web_sessions" ADD COLUMN     "realm" TEXT NOT NULL DEFAULT 'owner';

-- CreateTable
CREATE TABLE "staff_users" (
    "id" UUID NOT NULL,
    "email" TEXT NOT NULL,
    "password_hash" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "disabled_at" TIMESTAMPTZ(3),

    CONSTRAINT "staff_users_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "staff_audit" (
    "id" BIGSERIAL NOT NULL,
    "staff_user_id" UUID NOT NULL,
    "staff_email" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "company_id" UUID,
    "target" TEXT NOT NULL DEFAULT '',
    "outcome" TEXT NOT NULL,
    "request_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "staff_audit_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sandbox_resets" (
    "id" UUID NOT NULL,
    "company_id" UUID NOT NULL,
    "status" TEXT NOT NULL,
    "requested_by" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "error" TEXT NOT NULL DEFAULT '',
    "requested_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "started_at" TIMESTAMPTZ(3),
    "finished_at" TIMESTAMPTZ(3),

    CONSTRAINT "sandbox_resets_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "staff_users_email_key" ON "staff_users"("email");

-- CreateIndex
CREATE INDEX "staff_audit_created_at_idx" ON "staff_audit"("created_at");

-- CreateIndex
CREATE INDEX "staff_audit_company_id_created_at_idx" ON "staff_audit"("company_id", "created_at");

-- CreateIndex
CREATE INDEX "sandbox_resets_company_id_requested_at_idx" ON "sandbox_resets"("company_id", "requested_at");

-- At most one pending or running reset per sandbox: a request that arrives meanwhile joins it.
CREATE UNIQUE INDEX "sandbox_resets_one_open" ON "sandbox_resets" ("company_id") WHERE status IN ('pending', 'running');

-- The staff audit trail is append-only: nobody, the application included, changes or removes a record.
CREATE FUNCTION staff_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'staff_audit is append-only' USING ERRCODE = 'insufficient_privilege';
END $$;
CREATE TRIGGER staff_audit_append_only BEFORE UPDATE OR DELETE ON "staff_audit"
  FOR EACH ROW EXECUTE FUNCTION staff_audit_append_only();
CREATE TRIGGER staff_audit_no_truncate BEFORE TRUNCATE ON "staff_audit"
  FOR EACH STATEMENT EXECUTE FUNCTION staff_audit_append_only();
