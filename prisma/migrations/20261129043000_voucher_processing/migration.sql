-- Order 23: a voucher being read by a worker holds a lease here (two workers never read one document at
-- once, and a worker that dies frees it when the lease ends); a document read for good without result
-- keeps the reason (a bound it hit, or its last failed attempt). Apart from vouchers: no trail row.
-- CreateTable
CREATE TABLE "voucher_processing" (
    "voucher_id" UUID NOT NULL,
    "company_id" UUID NOT NULL,
    "lease_until" TIMESTAMPTZ(3) NOT NULL,
    "failure" TEXT NOT NULL DEFAULT '',
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "voucher_processing_pkey" PRIMARY KEY ("voucher_id")
);

-- AddForeignKey
ALTER TABLE "voucher_processing" ADD CONSTRAINT "voucher_processing_voucher_id_fkey" FOREIGN KEY ("voucher_id") REFERENCES "vouchers"("id") ON DELETE CASCADE ON UPDATE CASCADE;
