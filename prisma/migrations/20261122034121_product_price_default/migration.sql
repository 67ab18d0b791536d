-- AlterTable
ALTER TABLE "products" ALTER COLUMN "unit_price" SET DEFAULT 0;
