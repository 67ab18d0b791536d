-- AlterTable
ALTER TABLE "imports" ADD COLUMN     "attempts" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "einvoice_id" UUID;

-- CreateIndex
CREATE INDEX "imports_kind_status_idx" ON "imports"("kind", "status");
