// The rate limit, in one place: 100 requests per 60 seconds per credential, counted in PostgreSQL so
// that every server shares the count. A credential's window starts with its first request after the
// previous window ended. The counting SQL is a CTE, so that authenticating a credential and counting
// its request cost one round trip.
import type { Db } from '@tlr/db';

export const RATE_LIMIT = 100;
export const RATE_WINDOW_SECONDS = 60;

/**
 * A CTE named `hit` that counts one request for the credential ids selected by `credentialIds`
 * (a SELECT of one `id` column) and returns `count` and `reset_seconds`.
 *
 * It also makes the commit of its statement asynchronous, so the statement must be its own
 * transaction (never part of one that writes records). The count is unlogged, and the statements
 * that count also keep a credential's last-used time at minute precision: a PostgreSQL crash may lose
 * the last fraction of a second of those and nothing else. Without it, a request whose statement
 * touched a last-used time, or pruned a page of old row versions, waited for a WAL flush (an fsync)
 * before its answer (docs/perf-log.md, Order 10, tenth session).
 */
export function rateLimitHitCte(credentialIds: string): string {
  const expired = `w.window_start <= now() - make_interval(secs => ${RATE_WINDOW_SECONDS})`;
  return `async_commit AS (
    SELECT set_config('synchronous_commit', 'off', true)
  ), hit AS (
    INSERT INTO rate_limit_windows AS w (credential_id, window_start, count)
    SELECT id, now(), 1 FROM (${credentialIds}) AS ids CROSS JOIN async_commit
    ON CONFLICT (credential_id) DO UPDATE SET
      window_start = CASE WHEN ${expired} THEN now() ELSE w.window_start END,
      count = CASE WHEN ${expired} THEN 1 ELSE w.count + 1 END
    RETURNING w.count,
      -- clamped: window_start is stored at millisecond precision and may round up past now()
      LEAST(${RATE_WINDOW_SECONDS}, GREATEST(1, ceil(extract(epoch FROM w.window_start + make_interval(secs => ${RATE_WINDOW_SECONDS}) - now()))))::int AS reset_seconds
  )`;
}

/** Forgets the windows that started over an hour ago (an hourly job): their credentials have been idle since. */
export async function purgeIdleRateLimitWindows(db: Db): Promise<number> {
  return db.$executeRaw`DELETE FROM rate_limit_windows WHERE window_start < now() - interval '1 hour'`;
}

export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  reset: number;
  exceeded: boolean;
}

export function rateLimitState(count: number, resetSeconds: number, limit = RATE_LIMIT): RateLimitState {
  return { limit, remaining: Math.max(0, limit - count), reset: resetSeconds, exceeded: count > limit };
}

/**
 * Per process: the credentials that have used up their window, until it resets. A client that ignores
 * Retry-After then gets its 429 without a database write (the count in PostgreSQL is already past the
 * limit, so no other server would let it through either); only a read checks that the key is still
 * valid, so a key revoked meanwhile answers 401 at once.
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
