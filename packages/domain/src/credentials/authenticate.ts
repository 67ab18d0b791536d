// Turns an X-API-Key header into a credential, and counts the request against its rate limit, in one
// round trip (that of a GET by id carries its read too, read-by-id.ts). Runs on every request, so it
// is plain SQL on the pool rather than Prisma.
import type { Queryable } from '@tlr/db';
import { rateLimitHitCte, rateLimitState, type RateLimitState } from '../ratelimit/rate-limit.ts';
import type { Prefetched, ReadById } from '../read-by-id.ts';
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
  /** The answer of the read that rode along (authenticateApiKey's `along`). */
  prefetched?: Prefetched;
}

/** A read by id to run in the same statement, on the key's company: a GET by id then costs one round trip. */
export interface ReadAlong {
  read: ReadById;
  /** The id from the path, already valid by the endpoint's input schema. */
  id: string;
}

// The credential's columns come first; a read that rides along adds its row's columns after them.
const CREDENTIAL_COLUMNS = 7;

const sql = (along?: ReadById) => `
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
SELECT k.id, k.company_id, k.scopes, k.mode, k.livemode, hit.count, hit.reset_seconds${along ? ', r.*' : ''}
FROM k CROSS JOIN hit${along ? ` LEFT JOIN LATERAL (${along.select('$2', 'k.company_id')}) r ON true` : ''}`;

const statements = new Map<string, { name: string; text: string }>([['', { name: 'tlr_authenticate_api_key', text: sql() }]]);
function statement(along?: ReadById): { name: string; text: string } {
  const key = along?.name ?? '';
  let s = statements.get(key);
  if (!s) statements.set(key, (s = { name: `tlr_authenticate_api_key_${key}`, text: sql(along) }));
  return s;
}

/**
 * Null when the key is malformed, unknown, expired or revoked. With `along`, the read runs in the same
 * statement, scoped to the key's company, and its rows come back as `prefetched`.
 */
export async function authenticateApiKey(db: Queryable, key: string, along?: ReadAlong): Promise<Authenticated | null> {
  if (!KEY_PATTERN.test(key)) return null;
  // Named, so each pooled connection plans it once instead of on every request.
  const { rows, fields } = await db.query<unknown[]>({
    ...statement(along?.read),
    values: along ? [keyDigest(key), along.id] : [keyDigest(key)],
    rowMode: 'array',
  });
  const row = rows[0];
  if (!row) return null;
  const [id, companyId, scopes, mode, livemode, count, reset] = row as [string, string, string[], KeyMode, boolean, number, number];
  let prefetched: Prefetched | undefined;
  if (along) {
    const read = Object.fromEntries(fields.slice(CREDENTIAL_COLUMNS).map((f, i) => [f.name, row[CREDENTIAL_COLUMNS + i]]));
    // The lateral join leaves the columns null when the company has no such row.
    prefetched = { name: along.read.name, values: [along.id, companyId], rows: read.id === null ? [] : [read] };
  }
  return {
    credential: { type: 'api_key', id, companyId, livemode, mode, scopes: new Set<string>(scopes) },
    rateLimit: rateLimitState(count, reset),
    ...(prefetched ? { prefetched } : {}),
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
