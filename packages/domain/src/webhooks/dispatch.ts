// Webhook delivery, at least once: outbox events fan out to one delivery per matching subscription
// (exactly once per pair), and due deliveries are claimed with a lease, sent, and recorded. A worker
// that dies mid-send leaves its lease to expire and the delivery is sent again (duplicates allowed,
// loss not). Several workers share the work through SKIP LOCKED.
import { lookup as dnsLookup } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { Database } from '@tlr/db';
import { checkWebhookUrl, DELIVERY_HISTORY, DELIVERY_TIMEOUT_MS, decryptSecret, forbiddenAddress, retryWaitMs, signatureHeader } from './rules.ts';
import type { WebhookSettings } from './subscriptions.ts';

/** A claimed delivery is sent again by another worker once this has passed without a result. */
const LEASE_MS = DELIVERY_TIMEOUT_MS + 25_000;

/**
 * Turns undispatched outbox events into deliveries, in one statement: rows locked SKIP LOCKED, so two
 * workers never take the same events; (subscription, event) is unique, so a pair is made once. The body
 * is the envelope of the contract, fixed now (its `data` as stored: exact amounts). Returns the events taken.
 */
export async function fanOut(db: Database, batch = 500): Promise<number> {
  const { rows } = await db.pool.query<{ events: string }>(
    `WITH ev AS (
       SELECT id, company_id, type, livemode, api_version, created_at, data FROM outbox_events
       WHERE dispatched_at IS NULL ORDER BY sequence LIMIT $1 FOR UPDATE SKIP LOCKED
     ), made AS (
       INSERT INTO webhook_deliveries (id, company_id, subscription_id, event_id, event_type, body, status, next_attempt_at)
       SELECT gen_random_uuid(), ev.company_id, s.id, ev.id, ev.type,
              '{"id":"' || ev.id || '","type":"' || ev.type || '","api_version":"' || ev.api_version || '","livemode":' || ev.livemode::text
              || ',"created_at":"' || to_char(ev.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '","data":' || ev.data::text || '}',
              'pending', now()
       FROM ev JOIN webhook_subscriptions s ON s.company_id = ev.company_id AND s.deleted_at IS NULL AND ev.type = ANY (s.events)
       ON CONFLICT (subscription_id, event_id) DO NOTHING
       RETURNING subscription_id
     ), done AS (
       UPDATE outbox_events o SET dispatched_at = now() FROM ev WHERE o.id = ev.id RETURNING o.id
     ), trimmed AS (
       -- The history keeps the latest entries per subscription: finished ones older than the 100th newest
       -- go (one index probe per subscription, not a scan per row).
       DELETE FROM webhook_deliveries d
       USING (
         SELECT m.subscription_id, edge.created_at, edge.id
         FROM (SELECT DISTINCT subscription_id FROM made) m
         CROSS JOIN LATERAL (
           SELECT k.created_at, k.id FROM webhook_deliveries k WHERE k.subscription_id = m.subscription_id
           ORDER BY k.created_at DESC, k.id DESC OFFSET ${DELIVERY_HISTORY - 1} LIMIT 1
         ) edge
       ) e
       WHERE d.subscription_id = e.subscription_id AND (d.created_at, d.id) < (e.created_at, e.id) AND d.status IN ('succeeded', 'dead_letter')
     )
     SELECT count(*)::int AS events FROM done`,
    [batch],
  );
  return Number(rows[0]?.events ?? 0);
}

interface Claimed {
  id: string;
  event_id: string;
  body: string;
  attempts: number;
  url: string;
  secret_encrypted: string;
}

/** Due deliveries of active subscriptions, leased to this worker. */
async function claim(db: Database, limit: number): Promise<Claimed[]> {
  const { rows } = await db.pool.query<Claimed>(
    `UPDATE webhook_deliveries d SET next_attempt_at = now() + make_interval(secs => $2::double precision / 1000)
     FROM (
       SELECT d2.id, s.url, s.secret_encrypted FROM webhook_deliveries d2
       JOIN webhook_subscriptions s ON s.id = d2.subscription_id AND s.deleted_at IS NULL
       WHERE d2.status IN ('pending', 'retrying') AND d2.next_attempt_at <= now()
       ORDER BY d2.next_attempt_at LIMIT $1 FOR UPDATE OF d2 SKIP LOCKED
     ) c
     WHERE d.id = c.id
     RETURNING d.id, d.event_id, d.body, d.attempts, c.url, c.secret_encrypted`,
    [limit, LEASE_MS],
  );
  return rows;
}

export interface AttemptResult {
  status: number | null;
  durationMs: number;
  error: string;
}

/** Resolves like dns.lookup, refusing any address a delivery may not reach (checked on what is connected to). */
const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, '', 0);
    const list = addresses as unknown as { address: string; family: number }[];
    const bad = list.find((a) => forbiddenAddress(a.address));
    if (bad)
      return callback(Object.assign(new Error(`${hostname} resolves to ${forbiddenAddress(bad.address)} (${bad.address})`), { code: 'EFORBIDDEN' }), '', 0);
    if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: typeof list) => void)(null, list);
    callback(null, list[0]!.address, list[0]!.family);
  });
};

/**
 * One POST: any 2xx acknowledges; redirects are not followed (a 3xx fails the attempt). The URL rules of
 * subscribing run again first, so a row stored before a rule was added is refused, not dialled; an IP
 * literal is judged there too (it is connected to without a lookup), a name by guardedLookup.
 */
export function send(url: string, headers: Record<string, string>, body: string, allowInsecure: boolean): Promise<AttemptResult> {
  const started = performance.now();
  const done = (status: number | null, error: string): AttemptResult => ({ status, durationMs: Math.round(performance.now() - started), error });
  return new Promise((resolve) => {
    const rule = checkWebhookUrl(url, allowInsecure);
    if (rule) return resolve(done(null, `refused: url ${rule}`));
    const target = new URL(url);
    const lib = target.protocol === 'https:' ? https : http;
    const req = lib.request(
      target,
      {
        method: 'POST',
        headers: { ...headers, 'Content-Length': Buffer.byteLength(body), 'User-Agent': 'tlr-webhooks/1' },
        timeout: DELIVERY_TIMEOUT_MS,
        ...(allowInsecure ? {} : { lookup: guardedLookup }),
        agent: false,
      },
      (res) => {
        res.resume(); // the body is not read, only drained
        res.on('end', () => resolve(done(res.statusCode ?? 0, '')));
        res.on('error', (e) => resolve(done(res.statusCode ?? 0, e.message)));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${DELIVERY_TIMEOUT_MS} ms`)));
    req.on('error', (e) => resolve(done(null, e.message.slice(0, 500))));
    req.end(body);
  });
}

/** Claims up to `limit` due deliveries, sends them at once and records the outcomes. Returns how many were sent. */
export async function deliverDue(db: Database, settings: WebhookSettings, limit = 200): Promise<number> {
  const claimed = await claim(db, limit);
  if (claimed.length === 0) return 0;
  const results = await Promise.all(
    claimed.map(async (d): Promise<AttemptResult> => {
      try {
        const secret = decryptSecret(d.secret_encrypted, settings.key);
        const t = Math.floor(Date.now() / 1000);
        return await send(
          d.url,
          {
            'Content-Type': 'application/json',
            'Service-Event-Id': d.event_id,
            'Service-Delivery-Id': d.id,
            'Service-Signature': signatureHeader(secret, d.body, t),
          },
          d.body,
          settings.allowInsecure,
        );
      } catch (e) {
        return { status: null, durationMs: 0, error: (e as Error).message };
      }
    }),
  );
  await record(db, claimed, results, settings.retryUnitMs);
  return claimed.length;
}

/**
 * The outcomes of one round, in one statement. A delivery replayed or re-claimed meanwhile (its attempts
 * moved on) keeps what the newer owner records.
 */
async function record(db: Database, claimed: Claimed[], results: AttemptResult[], unitMs: number) {
  const rows = claimed.map((d, i) => {
    const r = results[i]!;
    const attempts = d.attempts + 1;
    const ok = r.status !== null && r.status >= 200 && r.status < 300;
    const wait = ok ? null : retryWaitMs(attempts, unitMs);
    return {
      id: d.id,
      was: d.attempts,
      attempts,
      status: ok ? 'succeeded' : wait === null ? 'dead_letter' : 'retrying',
      wait,
      code: r.status,
      ms: r.durationMs,
      error: r.error,
    };
  });
  const col = <K extends keyof (typeof rows)[number]>(k: K) => rows.map((r) => r[k]);
  await db.pool.query(
    `UPDATE webhook_deliveries d SET status = v.status, attempts = v.attempts,
            next_attempt_at = CASE WHEN v.wait IS NULL THEN NULL ELSE now() + make_interval(secs => v.wait / 1000) END,
            last_attempt_at = now(), last_status = v.code, last_duration_ms = v.ms, last_error = v.error
     FROM unnest($1::uuid[], $2::int[], $3::int[], $4::text[], $5::double precision[], $6::int[], $7::int[], $8::text[])
          AS v(id, was, attempts, status, wait, code, ms, error)
     WHERE d.id = v.id AND d.attempts = v.was`,
    [col('id'), col('was'), col('attempts'), col('status'), col('wait'), col('code'), col('ms'), col('error')],
  );
}
