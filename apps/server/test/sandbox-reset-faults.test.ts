// A worker killed (SIGKILL) in the middle of a sandbox reset: the reset is one transaction, so the
// sandbox is either untouched or fully reset, never half; the next worker to start resumes the reset,
// and the API call that asked for it still gets its 200 once it is done. On a database of its own: its
// workers must be the only ones that can take its resets (and its long resets must hold no other file's).
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, newCompany, ok, ownDatabase, startServerProcess, startTestService, waitFor } from './helpers.ts';
import type { Service } from '../src/service.ts';

const ROWS = 50;
let own: Awaited<ReturnType<typeof ownDatabase>>;
let server: Service | undefined;
const workers: { proc: ChildProcess }[] = [];
beforeAll(async () => {
  own = await ownDatabase('reset_faults');
});
/** Stops a worker gracefully (SIGTERM) and waits for it to be gone. */
const stop = (w: { proc: ChildProcess }) =>
  w.proc.exitCode !== null || w.proc.signalCode !== null ? Promise.resolve() : new Promise((resolve) => (w.proc.once('exit', resolve), w.proc.kill('SIGTERM')));
afterAll(async () => {
  await Promise.all(workers.map(stop));
  await server?.stop();
  await own?.drop();
});
const testDb = () => own.db;
const worker = (env: Record<string, string> = {}) => startServerProcess({ RUN_WORKER: 'true', DATABASE_URL: own.url, ...env });
const apiServer = () => startTestService({ DATABASE_URL: own.url, SANDBOX_RESET_PICKUP_MS: '600000', REQUEST_TIMEOUT_MS: '110000' });

/** A sandbox with some customers. */
async function bigSandbox(name: string) {
  const company = await newCompany(name, undefined, own.db);
  const testKey = await company.key(undefined, 'test');
  await testDb().pool.query(`INSERT INTO customers (id, company_id, name) SELECT gen_random_uuid(), $1, 'Kunde ' || g FROM generate_series(1, $2::int) g`, [
    testKey.company_id,
    ROWS,
  ]);
  return { testKey, sandboxId: testKey.company_id };
}

/** Holds a row lock on one of the sandbox's customers, in a transaction of the test's own, until released:
 * the reset's transaction then waits inside its DELETE of the customers for as long as the test needs to
 * kill its worker there (no need for a sandbox so big that the delete happens to take long). */
async function holdCustomers(sandboxId: string) {
  const client = await testDb().pool.connect();
  await client.query('BEGIN');
  await client.query('SELECT id FROM customers WHERE company_id = $1 LIMIT 1 FOR UPDATE', [sandboxId]);
  return async () => {
    await client.query('ROLLBACK');
    client.release();
  };
}

/** The application_name of the backend deleting a sandbox's customers (the reset's transaction), once there is one. */
const resettingBackend = () =>
  waitFor(async () => {
    const { rows } = await testDb().pool.query<{ application_name: string }>(
      `SELECT application_name FROM pg_stat_activity WHERE state = 'active' AND query ILIKE 'DELETE FROM "public"."customers"%' AND pid <> pg_backend_pid()`,
    );
    return rows[0] ? { name: rows[0].application_name } : null;
  }, 90_000);

async function sandboxState(sandboxId: string) {
  const q = (sql: string) =>
    testDb()
      .pool.query<{ n: number }>(sql, [sandboxId])
      .then((r) => r.rows[0]?.n);
  return {
    customers: await q('SELECT count(*)::int AS n FROM customers WHERE company_id = $1'),
    accounts: await q('SELECT count(*)::int AS n FROM accounts WHERE company_id = $1'),
    fiscalYears: await q('SELECT count(*)::int AS n FROM fiscal_years WHERE company_id = $1'),
  };
}

describe('a worker killed mid-reset', () => {
  it('leaves the sandbox untouched or fully reset, and the next worker finishes the reset', async () => {
    // The API server never runs the job itself here: only workers do.
    server = await apiServer();
    const { testKey, sandboxId } = await bigSandbox('Afbrudt Nulstilling ApS');
    const before = await sandboxState(sandboxId);
    expect(before.customers).toBe(ROWS);

    const first = await worker();
    workers.push(first);
    const release = await holdCustomers(sandboxId);
    const answer = api(server.url, testKey.key).POST('/sandbox/reset');
    // The worker is inside the reset's transaction once it deletes the sandbox's customers.
    await resettingBackend();
    first.proc.kill('SIGKILL');
    await new Promise((r) => first.proc.once('exit', r));
    // The killed worker's backend finishes its DELETE, finds its client gone and rolls back.
    await release();

    // Never half: the transaction rolled back whole (or, had it just committed, all of it is there).
    const reset = await testDb().prisma.sandboxReset.findFirstOrThrow({ where: { company_id: sandboxId } });
    const after = await waitFor(async () => {
      // The killed backend's transaction is rolled back once PostgreSQL notices the closed connection.
      const { rows } = await testDb().pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE query ILIKE 'DELETE FROM "public"."customers"%' AND state <> 'idle'`,
      );
      return rows[0]?.n === 0 ? sandboxState(sandboxId) : null;
    });
    if (reset.status === 'done') expect(after).toEqual({ customers: 0, accounts: 305, fiscalYears: 1 });
    else expect(after).toEqual(before);
    expect(reset.status).toBe('running');

    // The next worker resumes it at start; the API call that asked gets its answer.
    const next = await worker();
    workers.push(next);
    const res = await answer;
    expect(res.response.status).toBe(200);
    expect(res.data?.data).toMatchObject({ company_id: sandboxId, reset: true, reset_id: reset.id });
    expect(await sandboxState(sandboxId)).toEqual({ customers: 0, accounts: 305, fiscalYears: 1 });
    const finished = await testDb().prisma.sandboxReset.findUniqueOrThrow({ where: { id: reset.id } });
    expect(finished).toMatchObject({ status: 'done', attempts: 1 });
    expect((await ok(api(server.url, testKey.key).GET('/customers'))).meta.total).toBe(0);
    await stop(next); // the next test's workers must be the only ones
  }, 240_000);

  it("while other workers stay up, one of them takes the dead worker's reset over by its heartbeat, long before the job would expire", async () => {
    server ??= await apiServer();
    const { testKey, sandboxId } = await bigSandbox('Hjerteslag ApS');
    // Two workers up before the reset is asked for (so neither resumes it at start), told apart by the
    // application_name their database connections carry.
    const named = (name: string) => `${own.url}${own.url.includes('?') ? '&' : '?'}application_name=${name}`;
    const pair = await Promise.all(['reset-worker-a', 'reset-worker-b'].map((n) => worker({ DATABASE_URL: named(n) })));
    workers.push(...pair);
    const release = await holdCustomers(sandboxId);
    const answer = api(server.url, testKey.key).POST('/sandbox/reset');
    const runner = await resettingBackend();
    // The database is this file's and the first test's workers are gone: one of the pair runs it.
    const victim = pair[['reset-worker-a', 'reset-worker-b'].indexOf(runner.name)];
    expect(victim, runner.name).toBeDefined();
    if (!victim) return;
    const killedAt = Date.now();
    victim.proc.kill('SIGKILL');
    await new Promise((r) => victim.proc.once('exit', r));
    await release();

    const res = await answer;
    expect(res.response.status).toBe(200);
    // The job's expiry is 120 s (plus a supervision round); its heartbeat of 10 s, checked every 10 s,
    // ends it in about 20 (with pg-boss's default 60 s rounds it took 72 s here).
    expect(Date.now() - killedAt).toBeLessThan(60_000);
    expect(await sandboxState(sandboxId)).toEqual({ customers: 0, accounts: 305, fiscalYears: 1 });
    expect((await ok(api(server.url, testKey.key).GET('/customers'))).meta.total).toBe(0);
  }, 240_000);
});
