// The clean-up jobs' domain functions against the real tables: rows past the bound go, newer ones and
// rows the bound does not cover stay. (The jobs themselves only call these; worker.ts.)
import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { purgeDispatchedEvents, purgeIdleRateLimitLogs, purgeWebSessions } from '@tlr/domain';
import { testDb } from './helpers.ts';

const db = () => testDb().pool;
const ago = (interval: string) => `now() - interval '${interval}'`;

describe('purgeDispatchedEvents', () => {
  it('deletes events fanned out more than 30 days ago; newer ones and pending ones stay', async () => {
    const company = randomUUID();
    const insert = async (dispatched: string | null) => {
      const id = randomUUID();
      await db().query(
        `INSERT INTO outbox_events (id, company_id, type, livemode, api_version, data, created_at, dispatched_at)
         VALUES ($1, $2, 'customer.created', true, '2026-04-10', '{}', ${ago('40 days')}, ${dispatched ?? 'NULL'})`,
        [id, company],
      );
      return id;
    };
    const old = await insert(ago('31 days'));
    const recent = await insert(ago('29 days'));
    const pending = await insert(null);
    expect(await purgeDispatchedEvents(testDb().prisma)).toBeGreaterThanOrEqual(1);
    const left = (await db().query<{ id: string }>(`SELECT id FROM outbox_events WHERE company_id = $1`, [company])).rows.map((r) => r.id);
    expect(left.sort()).toEqual([recent, pending].sort());
    expect(left).not.toContain(old);
  });
});

describe('purgeIdleRateLimitLogs', () => {
  it('deletes the logs whose last accepted request is over an hour old; newer ones stay', async () => {
    const [idle, recent] = [randomUUID(), randomUUID()];
    await db().query(
      `INSERT INTO rate_limit_logs (key_id, accepted, allowed)
       VALUES ($1, ARRAY[${ago('90 minutes')}, ${ago('61 minutes')}], true), ($2, ARRAY[${ago('90 minutes')}, ${ago('59 minutes')}], true)`,
      [idle, recent],
    );
    expect(await purgeIdleRateLimitLogs(testDb().prisma)).toBeGreaterThanOrEqual(1);
    const left = (await db().query<{ key_id: string }>(`SELECT key_id FROM rate_limit_logs WHERE key_id = ANY($1::uuid[])`, [[idle, recent]])).rows;
    expect(left.map((r) => r.key_id)).toEqual([recent]);
  });
});

describe('purgeWebSessions (sign-in throttle keys and device cookies)', () => {
  it('deletes keys an hour past their last failure and expired device cookies; the others stay', async () => {
    const key = () => randomBytes(32);
    const [forgotten, recent, held] = [key(), key(), key()];
    await db().query(
      `INSERT INTO sign_in_throttles (key_hash, failures, last_failure_at, held_until)
       VALUES ($1, 4, ${ago('61 minutes')}, NULL), ($2, 4, ${ago('59 minutes')}, NULL), ($3, 9, ${ago('1 minute')}, now() + interval '14 minutes')`,
      [forgotten, recent, held],
    );
    const [expired, valid] = [key(), key()];
    await db().query(
      `INSERT INTO sign_in_devices (id_hash, realm, user_id, expires_at) VALUES ($1, 'owner', $3, ${ago('1 minute')}), ($2, 'staff', $3, now() + interval '179 days')`,
      [expired, valid, randomUUID()],
    );
    expect(await purgeWebSessions(testDb().prisma)).toBeGreaterThanOrEqual(2);
    const throttles = await db().query<{ key_hash: Buffer }>(`SELECT key_hash FROM sign_in_throttles WHERE key_hash = ANY($1::bytea[])`, [
      [forgotten, recent, held],
    ]);
    expect(throttles.rows.map((r) => r.key_hash.toString('hex')).sort()).toEqual([recent, held].map((k) => k.toString('hex')).sort());
    const devices = await db().query<{ id_hash: Buffer }>(`SELECT id_hash FROM sign_in_devices WHERE id_hash = ANY($1::bytea[])`, [[expired, valid]]);
    expect(devices.rows.map((r) => r.id_hash.toString('hex'))).toEqual([valid.toString('hex')]);
  });
});
