// A worker killed (SIGKILL) in the middle of a sandbox reset: the reset is one transaction, so the
// sandbox is either untouched or fully reset, never half; the next worker to start resumes the reset,
// and the API call that asked for it still gets its 200 once it is done.
import type { ChildProcess } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { client, newCompany, startServerProcess, startTestService, testDb, waitFor } from './helpers.ts';
import type { Service } from '../src/service.ts';

const ROWS = 300_000;
let api: Service | undefined;
const workers: { proc: ChildProcess }[] = [];
afterAll(async () => {
  for (const w of workers) if (w.proc.exitCode === null && w.proc.signalCode === null) w.proc.kill('SIGTERM');
  await api?.stop();
});

async function sandboxState(sandboxId: string) {
  const q = (sql: string) =>
    testDb()
      .pool.query(sql, [sandboxId])
      .then((r) => r.rows[0].n as number);
  return {
    customers: await q('SELECT count(*)::int AS n FROM customers WHERE company_id = $1'),
    accounts: await q('SELECT count(*)::int AS n FROM accounts WHERE company_id = $1'),
    fiscalYears: await q('SELECT count(*)::int AS n FROM fiscal_years WHERE company_id = $1'),
  };
}

describe('a worker killed mid-reset', () => {
  it('leaves the sandbox untouched or fully reset, and the next worker finishes the reset', async () => {
    // The API server never runs the job itself here: only workers do.
    api = await startTestService({ SANDBOX_RESET_PICKUP_MS: '600000', REQUEST_TIMEOUT_MS: '110000' });
    const company = await newCompany('Afbrudt Nulstilling ApS');
    const testKey = await company.key(undefined, 'test');
    const sandboxId = testKey.company_id;
    // Enough rows that the reset's deletes take a while; in slices, each well inside the statement
    // timeout on a machine busy with the rest of the suite.
    for (let from = 1; from <= ROWS; from += ROWS / 6) {
      await testDb().pool.query(
        `INSERT INTO customers (id, company_id, name) SELECT gen_random_uuid(), $1, 'Kunde ' || g FROM generate_series($2::int, $3::int) g`,
        [sandboxId, from, from + ROWS / 6 - 1],
      );
    }
    const before = await sandboxState(sandboxId);
    expect(before.customers).toBe(ROWS);

    const first = await startServerProcess({ RUN_WORKER: 'true' });
    workers.push(first);
    const answer = client(api.url, testKey.key).call('POST', '/sandbox/reset');
    // The worker is inside the reset's transaction once it deletes the sandbox's customers.
    await waitFor(async () => {
      const { rows } = await testDb().pool.query(
        `SELECT 1 FROM pg_stat_activity WHERE state = 'active' AND query ILIKE 'DELETE FROM "public"."customers"%' AND pid <> pg_backend_pid()`,
      );
      return rows.length > 0;
    }, 90_000);
    first.proc.kill('SIGKILL');
    await new Promise((r) => first.proc.once('exit', r));

    // Never half: the transaction rolled back whole (or, had it just committed, all of it is there).
    const reset = await testDb().prisma.sandboxReset.findFirstOrThrow({ where: { company_id: sandboxId } });
    const after = await waitFor(async () => {
      // The killed backend's transaction is rolled back once PostgreSQL notices the closed connection.
      const { rows } = await testDb().pool.query(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE query ILIKE 'DELETE FROM "public"."customers"%' AND state <> 'idle'`,
      );
      return rows[0].n === 0 ? sandboxState(sandboxId) : null;
    });
    if (reset.status === 'done') expect(after).toEqual({ customers: 0, accounts: 305, fiscalYears: 1 });
    else expect(after).toEqual(before);
    expect(reset.status).toBe('running');

    // The next worker resumes it at start; the API call that asked gets its answer.
    workers.push(await startServerProcess({ RUN_WORKER: 'true' }));
    const res = await answer;
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ company_id: sandboxId, reset: true, reset_id: reset.id });
    expect(await sandboxState(sandboxId)).toEqual({ customers: 0, accounts: 305, fiscalYears: 1 });
    const finished = await testDb().prisma.sandboxReset.findUniqueOrThrow({ where: { id: reset.id } });
    expect(finished).toMatchObject({ status: 'done', attempts: 1 });
    expect((await client(api.url, testKey.key).get('/customers')).body.meta.total).toBe(0);
  }, 240_000);
});
