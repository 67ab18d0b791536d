-- The rate limits become a sliding log (decision 172): per key, the times of its last accepted
-- requests. A counter, not a record: UNLOGGED like the windows it replaces (a crash forgets at most a
-- minute of requests). rate_limit_windows stays for one release, for servers of the previous release
-- during a rolling deploy.
-- CreateTable
CREATE UNLOGGED TABLE "rate_limit_logs" (
    "key_id" UUID NOT NULL,
    "accepted" TIMESTAMPTZ(6)[],
    "allowed" BOOLEAN NOT NULL,

    CONSTRAINT "rate_limit_logs_pkey" PRIMARY KEY ("key_id")
);
