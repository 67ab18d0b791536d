-- A SAF-T import counts the fixed assets it entered in the register (docs/saft-import.md; decision 860).
-- AlterTable
ALTER TABLE "imports" ADD COLUMN     "assets" INTEGER NOT NULL DEFAULT 0;
