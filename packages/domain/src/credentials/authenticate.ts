// Turns an X-API-Key header into a credential, and counts the request against its rate limit, in one
// round trip (that of a GET by id carries its read too, read-by-id.ts). Runs on every request, so it
// is plain SQL on the pool rather than Prisma.
import type { Queryable } from '@tlr/db';
import { rateLimitHitCte, rateLimitState, type RateLimitState } from '../ratelimit/rate-limit.ts';
import { carrier, type Prefetched, type ReadAlong } from '../read-by-id.ts';
import { scopeSet } from './scopes.ts';
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
  /** The answer of the GET by id's read that rode along (`along` of authenticateApiKey and authenticateBearer). */
  prefetched?: Prefetched;
}

const API_KEY = carrier({
  name: 'tlr_authenticate_api_key',
  head: `
WITH k AS (
  SELECT k.id, k.company_id, array_to_string(k.scopes, ' ') AS scopes, k.mode, k.last_used_at, c.sandbox_of_id IS NULL AS livemode
  FROM api_keys k JOIN companies c ON c.id = k.company_id
  WHERE k.key_hash = $1 AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now())
), ${rateLimitHitCte('SELECT id FROM k')},
touch AS (
  -- last-used time at minute precision: one write a minute per key, not one per request
  UPDATE api_keys SET last_used_at = now()
  WHERE id = (SELECT id FROM k) AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')
)`,
  columns: 'k.id, k.company_id, k.scopes, k.mode, k.livemode, hit.allowed, hit.remaining, hit.reset_seconds',
  columnCount: 8,
  companyColumn: 1,
  from: 'k CROSS JOIN hit',
  company: 'k.company_id',
});

/**
 * Null when the key is malformed, unknown, expired or revoked. With `along`, the read runs in the same
 * statement, scoped to the key's company, and its rows come back as `prefetched`.
 */
export async function authenticateApiKey(db: Queryable, key: string, along?: ReadAlong): Promise<Authenticated | null> {
  if (!KEY_PATTERN.test(key)) return null;
  const found = await API_KEY.run(db, keyDigest(key), along);
  if (!found) return null;
  const [id, companyId, scopes, mode, livemode, allowed, remaining, reset] = found.columns as [
    string,
    string,
    string,
    KeyMode,
    boolean,
    boolean,
    number,
    number,
  ];
  return {
    credential: { type: 'api_key', id, companyId, livemode, mode, scopes: scopeSet(scopes) },
    rateLimit: rateLimitState(allowed, remaining, reset),
    ...(found.prefetched ? { prefetched: found.prefetched } : {}),
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
