import { describe, expect, it } from 'vitest';
import { RequestLog, type RequestLogRecord } from './request-log.ts';

const record = (i: number): RequestLogRecord => ({
  request_id: `r${i}`,
  actor_type: null,
  actor_id: null,
  company_id: null,
  method: 'GET',
  path: '/',
  status: 200,
  problem_code: null,
  duration_ms: 1,
  ip: null,
  created_at: new Date(),
});

/** A database that fails while `down` is true and records what it was given otherwise. */
function flakyDb() {
  const written: string[] = [];
  const db = {
    down: true,
    async query(_sql: string, values: [Buffer]) {
      if (db.down) throw Object.assign(new Error('Connection terminated unexpectedly'), { code: '57P01' });
      // The batch is one JSON array of records, each an array whose first value is the request id.
      written.push(...(JSON.parse(values[0].toString('utf8')) as string[][]).map((r) => r[0]!));
      return { rows: [] };
    },
  };
  return { db, written };
}

const silent = { error() {} };

describe('RequestLog', () => {
  it('keeps a batch that failed to write and writes it once the database is back, in order', async () => {
    const { db, written } = flakyDb();
    const log = new RequestLog(db as never, silent, { flushMs: 10, maxBatch: 500, maxBuffered: 50_000 });
    for (let i = 0; i < 5; i++) log.record(record(i));
    await log.flush();
    expect(written).toEqual([]);
    db.down = false;
    log.record(record(5));
    await log.close();
    expect(written).toEqual(['r0', 'r1', 'r2', 'r3', 'r4', 'r5']);
  });

  it('bounds memory while the database stays away, dropping the oldest', async () => {
    const { db, written } = flakyDb();
    const log = new RequestLog(db as never, silent, { flushMs: 10, maxBatch: 2, maxBuffered: 3 });
    for (let i = 0; i < 6; i++) log.record(record(i));
    await log.flush();
    db.down = false;
    await log.close();
    expect(written).toEqual(['r3', 'r4', 'r5']);
  });
});
