-- The rate-limit windows and sign-in throttle windows are counters, not records: UNLOGGED keeps their
-- writes out of the WAL, so the per-request count no longer waits for a WAL flush at commit (a commit
-- that wrote only unlogged rows is asynchronous). A crash empties them, which forgives at most one
-- window of counts; nothing else depends on them. (docs/decisions.md, Order 10.)
ALTER TABLE "rate_limit_windows" SET UNLOGGED;
ALTER TABLE "sign_in_throttles" SET UNLOGGED;
