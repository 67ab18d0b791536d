// The rate limits, in one place: 100 requests per 60 seconds per credential (and the token endpoint's
// 10 per client and address), held over ANY 60 seconds: a sliding log of the times of the requests a
// key accepted, kept in PostgreSQL so that every server shares it. A fixed window let 99 requests
// just before its end and 100 just after through (199 within 2 s); the log cannot (decision 172).
// The counting SQL is a CTE, so that authenticating a credential and counting its request cost one
// round trip.
import type { Db } from '@tlr/db';

export const RATE_LIMIT = 100;
export const RATE_WINDOW_SECONDS = 60;

/**
 * CTEs ending in one named `hit` that counts one request for the key selected by `keyIds` (a SELECT of
 * one `id` column) against `limit` requests per RATE_WINDOW_SECONDS, and returns `allowed`,
 * `remaining` and `reset_seconds`.
 *
 * The key's row keeps the times of the requests it accepted within the last 60 s, oldest first. Each
 * request first drops the times that have left the window (`width_bucket` finds how many by binary
 * search in the sorted array), then is accepted when fewer than `limit` remain, appending its own time.
 * So the accepted requests of any 60 s are at most `limit`, exactly, across servers: the upsert holds
 * the row's lock while it decides, and what is left in the row is exactly the window, whose size and
 * oldest entry are the answer's `remaining` and `reset_seconds`. A refused request is not recorded: the
 * wait is set by what was accepted, and hammering neither shortens nor lengthens it. `reset_seconds`
 * is the time until the oldest accepted request in the window leaves it, when the next request becomes
 * possible: on a refusal that is Retry-After.
 *
 * Times are the statement's start (statement_timestamp(), one value in the whole statement), never
 * earlier than the newest time already logged: a statement that waited for the row behind a later
 * one keeps the log in order, and records its request no earlier than it was decided.
 *
 * It also makes the commit of its statement asynchronous, so the statement must be its own
 * transaction (never part of one that writes records). The log is unlogged, and the statements that
 * count also keep a credential's last-used time at minute precision: a PostgreSQL crash may lose the
 * last fraction of a second of those and nothing else. Without it, a request whose statement touched a
 * last-used time, or pruned a page of old row versions, waited for a WAL flush (an fsync) before its
 * answer (docs/history/perf-log.md, tenth session).
 */
export function rateLimitHitCte(keyIds: string, limit = RATE_LIMIT): string {
  const window = `make_interval(secs => ${RATE_WINDOW_SECONDS})`;
  const n = 'cardinality(w.accepted)';
  // how many of the logged times are 60 s old or older (the array is sorted)
  const gone = `width_bucket(statement_timestamp() - ${window}, w.accepted)`;
  const fits = `${n} - ${gone} < ${limit}`;
  return `async_commit AS (
    SELECT set_config('synchronous_commit', 'off', true)
  ), hit AS (
    INSERT INTO rate_limit_logs AS w (key_id, accepted, allowed)
    SELECT id, ARRAY[statement_timestamp()], true FROM (${keyIds}) AS ids CROSS JOIN async_commit
    ON CONFLICT (key_id) DO UPDATE SET
      allowed = ${fits},
      accepted = w.accepted[${gone} + 1:]
        || CASE WHEN ${fits} THEN ARRAY[greatest(statement_timestamp(), w.accepted[${n}])] ELSE '{}' END
    RETURNING w.allowed, ${limit} - cardinality(w.accepted) AS remaining,
      -- at least 1: the last instant rounds up, and a client told 0 would ask again at once
      LEAST(${RATE_WINDOW_SECONDS}, GREATEST(1, ceil(extract(epoch FROM w.accepted[1] + ${window} - statement_timestamp()))))::int AS reset_seconds
  )`;
}

/** Forgets the keys whose last accepted request is over an hour old (an hourly job): idle since. */
export async function purgeIdleRateLimitLogs(db: Db): Promise<number> {
  return db.$executeRaw`DELETE FROM rate_limit_logs WHERE coalesce(accepted[cardinality(accepted)], '-infinity') < now() - interval '1 hour'`;
}

export interface RateLimitState {
  limit: number;
  /** Requests the key may still make now. */
  remaining: number;
  /** Seconds until the oldest request counted now leaves the window (on a refusal: Retry-After). */
  reset: number;
  exceeded: boolean;
}

/** The state `hit` returned (its `allowed`, `remaining` and `reset_seconds`). */
export function rateLimitState(allowed: boolean, remaining: number, resetSeconds: number, limit = RATE_LIMIT): RateLimitState {
  return { limit, remaining: Math.max(0, remaining), reset: resetSeconds, exceeded: !allowed };
}

/**
 * Per process: the credentials that have used up their window, until its oldest request leaves it. A
 * client that ignores Retry-After then gets its 429 without a database write: until then no server
 * can accept its requests either (other servers can only add to the log); only a read checks that the
 * key is still valid, so a key revoked meanwhile answers 401 at once.
 */
export class SpentCredentials<T> {
  private readonly spent = new Map<string, { until: number; value: T }>();

  remember(id: string, resetSeconds: number, value: T, now = Date.now()): void {
    if (this.spent.size > 10_000) this.prune(now);
    this.spent.set(id, { until: now + resetSeconds * 1000, value });
  }

  /** The remembered value and the seconds left, while the window lasts. */
  check(id: string, now = Date.now()): { value: T; reset: number } | undefined {
    const entry = this.spent.get(id);
    if (!entry) return undefined;
    if (entry.until <= now) {
      this.spent.delete(id);
      return undefined;
    }
    return { value: entry.value, reset: Math.max(1, Math.ceil((entry.until - now) / 1000)) };
  }

  forget(id: string): void {
    this.spent.delete(id);
  }

  private prune(now: number): void {
    for (const [id, e] of this.spent) if (e.until <= now) this.spent.delete(id);
  }
}
