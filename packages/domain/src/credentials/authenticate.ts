// Turns an X-API-Key header into a credential, and counts the request against its rate limit, in one
// round trip. Runs on every request, so it is plain SQL on the pool rather than Prisma.
import type { Queryable } from '@tlr/db';
import { rateLimitHitCte, rateLimitState, type RateLimitState } from '../ratelimit/rate-limit.ts';
import { KEY_PATTERN, keyDigest, type KeyMode } from './secrets.ts';

export interface Credential {
  type: 'api_key' | 'oauth_token' | 'internal';
  id: string;
  /** The company whose books the credential works on (the sandbox for a test key). */
  companyId: string;
  livemode: boolean;
  mode: KeyMode;
  scopes: ReadonlySet<string>;
}

export interface Authenticated {
  credential: Credential;
  rateLimit: RateLimitState;
}

const SQL = `
WITH k AS (
  SELECT k.id, k.company_id, k.scopes, k.mode, k.last_used_at, c.sandbox_of_id IS NULL AS livemode
  FROM api_keys k JOIN companies c ON c.id = k.company_id
  WHERE k.key_hash = $1 AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now())
), ${rateLimitHitCte('SELECT id FROM k')},
touch AS (
  -- last-used time at minute precision: one write a minute per key, not one per request
  UPDATE api_keys SET last_used_at = now()
  WHERE id = (SELECT id FROM k) AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')
)
SELECT k.id, k.company_id, k.scopes, k.mode, k.livemode, hit.count, hit.reset_seconds FROM k CROSS JOIN hit`;

/** Null when the key is malformed, unknown, expired or revoked. */
export async function authenticateApiKey(db: Queryable, key: string): Promise<Authenticated | null> {
  if (!KEY_PATTERN.test(key)) return null;
  // Named, so each pooled connection plans it once instead of on every request.
  const { rows } = await db.query({ name: 'tlr_authenticate_api_key', text: SQL, values: [keyDigest(key)] });
  const row = rows[0];
  if (!row) return null;
  return {
    credential: {
      type: 'api_key',
      id: row.id,
      companyId: row.company_id,
      livemode: row.livemode,
      mode: row.mode,
      scopes: new Set<string>(row.scopes),
    },
    rateLimit: rateLimitState(row.count, row.reset_seconds),
  };
}

/**
 * Is a key still valid (not revoked, not expired)? A read without the rate-limit write: for a key that
 * already spent its window, so that revoking it answers 401 at once rather than 429 until the window ends.
 */
export async function apiKeyStillValid(db: Queryable, key: string): Promise<boolean> {
  const { rowCount } = await db.query({
    name: 'tlr_api_key_valid',
    text: 'SELECT 1 FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())',
    values: [keyDigest(key)],
  });
  return rowCount === 1;
}
