-- Sign-in throttling by account and address (decision 174): a key now counts failures until an hour
-- after its last one and holds itself until held_until, instead of a fixed 15-minute window. The old
-- windows mean something else and are forgotten (the table is UNLOGGED counters; nothing else reads it).
-- The trusted browsers (device cookies) are records and stay logged.
DELETE FROM "sign_in_throttles";

-- AlterTable
ALTER TABLE "sign_in_throttles" DROP COLUMN "window_start",
ADD COLUMN     "held_until" TIMESTAMPTZ(3),
ADD COLUMN     "last_failure_at" TIMESTAMPTZ(3),
ALTER COLUMN "failures" SET DEFAULT 0;

-- CreateTable
CREATE TABLE "sign_in_devices" (
    "id_hash" BYTEA NOT NULL,
    "realm" TEXT NOT NULL,
    "user_id" UUID NOT NULL,
    "failures" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "sign_in_devices_pkey" PRIMARY KEY ("id_hash")
);

-- CreateIndex
CREATE INDEX "sign_in_devices_expires_at_idx" ON "sign_in_devices"("expires_at");

-- CreateIndex
CREATE INDEX "sign_in_throttles_last_failure_at_idx" ON "sign_in_throttles"("last_failure_at");
