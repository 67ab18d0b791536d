-- Order 16: one row per backup run (status, type, times, size, error) and, recorded at its start, each
-- company's books (last ids, trial balance) that the restore drill compares a restored database with.
-- CreateTable
CREATE TABLE "backup_runs" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "type" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMPTZ(3),
    "label" TEXT,
    "repo_size" BIGINT,
    "database_size" BIGINT,
    "error" TEXT,
    "books" JSONB NOT NULL,

    CONSTRAINT "backup_runs_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "backup_runs_started_at_idx" ON "backup_runs"("started_at");
