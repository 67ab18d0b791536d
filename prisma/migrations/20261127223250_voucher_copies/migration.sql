-- Order 16: which voucher objects have been copied to the second location (the backup bucket), so that
-- the copy job takes only the others.
-- CreateTable
CREATE TABLE "voucher_copies" (
    "storage_key" TEXT NOT NULL,
    "sha256" TEXT NOT NULL,
    "copied_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "voucher_copies_pkey" PRIMARY KEY ("storage_key")
);
