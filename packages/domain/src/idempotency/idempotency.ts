// Idempotency keys of create POSTs, in one place. A key is claimed inside the same transaction that
// creates the resource and stores the response, so the resource and its stored response commit
// together or not at all. Two identical requests at the same moment (on any servers) race for the
// same primary-key row: the second waits for the first to commit and then replays its response.
import { Prisma, type Db } from '@tlr/db';
import { flushEvents } from '../events/outbox.ts';
import { parseJsonExact } from '../money.ts';

const IDEMPOTENCY_TTL_HOURS = 24;
export const IDEMPOTENCY_KEY_MAX = 255;

export type Claim = { claimed: true } | { claimed: false; endpoint: string; status: number; body: unknown };

/** Claims (company, key) for `endpoint`, or returns what an earlier request stored under it. */
export async function claimIdempotencyKey(tx: Db, companyId: string, key: string, endpoint: string): Promise<Claim> {
  // An expired key (older than 24 hours, not yet purged) is taken over as if it were new.
  const claimed = await tx.$queryRaw<unknown[]>`
    INSERT INTO idempotency_keys (company_id, key, endpoint, created_at)
    VALUES (${companyId}::uuid, ${key}, ${endpoint}, now())
    ON CONFLICT (company_id, key) DO UPDATE
      SET endpoint = EXCLUDED.endpoint, created_at = now(), status_code = NULL, response_body = NULL
      WHERE idempotency_keys.created_at < now() - make_interval(hours => ${IDEMPOTENCY_TTL_HOURS})
    RETURNING 1`;
  if (claimed.length) return { claimed: true };
  const rows = await tx.$queryRaw<{ endpoint: string; status_code: number; body: string }[]>`
    SELECT endpoint, status_code, response_body::text AS body FROM idempotency_keys WHERE company_id = ${companyId}::uuid AND key = ${key}`;
  const row = rows[0]!;
  // The stored text, with amounts beyond double precision kept exact: the replay is the original body.
  return { claimed: false, endpoint: row.endpoint, status: row.status_code, body: parseJsonExact(row.body) };
}

/**
 * Stores the response under the claimed key, in the same round trip as the transaction's held events
 * (flushEvents): the last statement of an idempotent create before its commit.
 */
export async function storeIdempotentResponse(tx: Db, companyId: string, key: string, status: number, body: unknown): Promise<void> {
  // JSON.stringify here, not Prisma's Json mapping: it writes raw JSON amounts (money.ts) as their digits.
  await flushEvents(
    tx,
    Prisma.sql`UPDATE idempotency_keys SET status_code = ${status}, response_body = ${JSON.stringify(body)}::json
      WHERE company_id = ${companyId}::uuid AND key = ${key} RETURNING 1`,
  );
}

/** Forgets keys older than 24 hours (run by a periodic job). */
export async function purgeExpiredIdempotencyKeys(db: Db): Promise<number> {
  return db.$executeRaw`DELETE FROM idempotency_keys WHERE created_at < now() - make_interval(hours => ${IDEMPOTENCY_TTL_HOURS})`;
}
