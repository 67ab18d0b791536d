-- SAF-T import (Order 16): the imports table and its file's pieces, and the original JournalID and
-- TransactionID of imported postings, so a company switching system keeps its ids next to ours.
-- AlterTable
ALTER TABLE "ledger_transactions" ADD COLUMN     "source_journal_id" TEXT,
ADD COLUMN     "source_transaction_id" TEXT;

-- CreateTable
CREATE TABLE "imports" (
    "id" UUID NOT NULL,
    "company_id" UUID NOT NULL,
    "kind" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "file_name" TEXT NOT NULL DEFAULT '',
    "file_sha256" TEXT NOT NULL,
    "file_size" BIGINT NOT NULL,
    "phase" TEXT NOT NULL DEFAULT '',
    "progress_bytes" BIGINT NOT NULL DEFAULT 0,
    "accounts" INTEGER NOT NULL DEFAULT 0,
    "accounts_created" INTEGER NOT NULL DEFAULT 0,
    "customers" INTEGER NOT NULL DEFAULT 0,
    "suppliers" INTEGER NOT NULL DEFAULT 0,
    "transactions" INTEGER NOT NULL DEFAULT 0,
    "lines" INTEGER NOT NULL DEFAULT 0,
    "problem" JSONB,
    "requested_by_type" TEXT NOT NULL,
    "requested_by_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "started_at" TIMESTAMPTZ(3),
    "finished_at" TIMESTAMPTZ(3),

    CONSTRAINT "imports_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "import_file_chunks" (
    "import_id" UUID NOT NULL,
    "seq" INTEGER NOT NULL,
    "data" BYTEA NOT NULL,

    CONSTRAINT "import_file_chunks_pkey" PRIMARY KEY ("import_id","seq")
);

-- CreateIndex
CREATE INDEX "imports_company_id_created_at_id_idx" ON "imports"("company_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "imports_company_id_file_sha256_idx" ON "imports"("company_id", "file_sha256");

-- AddForeignKey
ALTER TABLE "import_file_chunks" ADD CONSTRAINT "import_file_chunks_import_id_fkey" FOREIGN KEY ("import_id") REFERENCES "imports"("id") ON DELETE CASCADE ON UPDATE CASCADE;
