// Control trail benchmark: what the trail costs a registration, next to a bare baseline in
// the same run: the same postings with the trail's triggers disabled and no actor named.
//
//   tsx bench/control-trail.ts     (or: npm run bench:control-trail)
//
//   a. a fresh database (DATABASE_URL's server when set, else an embedded PostgreSQL under
//      .data/bench-trail-pg), one company
//   b. BENCH_POSTINGS postings of two lines, one transaction each, as a request makes them: actingAs (the
//      actor, SET LOCAL on the transaction's BEGIN), postTransaction (the triggers stamp registered_by and
//      append the trail row)
//   c. the baseline: as many postings with ledger_transactions' two trail triggers disabled and no actor
//   d. then GET /audit-trail's query: the first page of the company's trail, newest first, timed
//   Rounds alternate (trail, bare, trail, bare) so that the database's warm-up and growth fall on both.
//
// Environment (all optional): DATABASE_URL, BENCH_POSTINGS (2000 per round), BENCH_ROUNDS (2).
import { inTransaction } from '@tlr/db';
import { actingAs, Decimal, listControlTrail, postTransaction, type CompanyScope } from '@tlr/domain';
import { cleanupStack } from './cleanup.ts';
import { benchCompany, benchDatabase, cpuMeter, machineLines, ms, seconds } from './lib.ts';

const POSTINGS = Number(process.env.BENCH_POSTINGS ?? 2_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);

async function main() {
  const log = (m: string) => process.stderr.write(`[bench] ${m}\n`);
  const cleanups = cleanupStack(log);
  const out: string[] = [];
  try {
    const { db, pgVersion } = await benchDatabase({ cleanups, log, folder: 'bench-trail-pg', dbName: `tlr_bench_trail_${process.pid}`, poolSize: 2 });
    const { companyId, keys } = await benchCompany(db, { name: 'Kontrolspor Bench ApS', ownerEmail: `trail-${process.pid}@bench.example`, keys: 1 });
    const scope: CompanyScope = { companyId, livemode: true };
    const keyId = (await db.pool.query(`SELECT id FROM api_keys WHERE company_id = $1`, [companyId])).rows[0].id as string;
    const account = async (n: string) =>
      (await db.pool.query(`SELECT id FROM accounts WHERE company_id = $1 AND account_number = $2`, [companyId, n])).rows[0].id as string;
    const [rent, bank] = [await account('2030'), await account('6470')];
    const run = inTransaction(db);
    const posting = (i: number) => ({
      date: new Date().toISOString().slice(0, 10),
      description: `Husleje ${i}`,
      source: 'manual' as const,
      lines: [
        { accountId: rent, debit: new Decimal(100), credit: new Decimal(0), description: '', vatCode: '' },
        { accountId: bank, debit: new Decimal(0), credit: new Decimal(100), description: '', vatCode: '' },
      ],
    });
    const triggers = (on: boolean) =>
      db.pool.query(
        `ALTER TABLE ledger_transactions ${on ? 'ENABLE' : 'DISABLE'} TRIGGER ledger_transactions_trail, ${on ? 'ENABLE' : 'DISABLE'} TRIGGER ledger_transactions_registered`,
      );
    // CPU time beside wall time: on a shared machine the wall time carries the other tenants' load.
    const cpuMs = cpuMeter(db.pool);
    const round = async (trail: boolean) => {
      await triggers(trail);
      const cpu0 = await cpuMs();
      const start = process.hrtime.bigint();
      for (let i = 0; i < POSTINGS; i++) {
        const work = () => run((tx) => postTransaction(tx, scope, posting(i)));
        await (trail ? actingAs({ type: 'api_key', id: keyId }, `bench-${i}`, work) : work());
      }
      const wall = seconds(start);
      cpu[trail ? 'trail' : 'bare'] += (await cpuMs()) - cpu0;
      return wall;
    };
    const times = { trail: [] as number[], bare: [] as number[] };
    const cpu = { trail: 0, bare: 0 };
    for (let r = 0; r < ROUNDS; r++) {
      times.trail.push(await round(true));
      times.bare.push(await round(false));
      log(`round ${r + 1}: trail ${times.trail.at(-1)!.toFixed(2)} s, bare ${times.bare.at(-1)!.toFixed(2)} s`);
    }
    await triggers(true);
    const sum = (a: number[]) => a.reduce((x, y) => x + y, 0);
    const per = (a: number[]) => (sum(a) * 1000) / (a.length * POSTINGS);
    const reads: number[] = [];
    for (let i = 0; i < 20; i++) {
      const start = process.hrtime.bigint();
      await listControlTrail(db.prisma, scope, { page: 1, per_page: 50, order: 'desc' });
      reads.push(seconds(start) * 1000);
    }
    reads.sort((a, b) => a - b);
    const entries = (await db.pool.query(`SELECT count(*)::int AS n FROM control_trail WHERE company_id = $1`, [companyId])).rows[0].n as number;
    // Each posting with the trail names its key and request: the actor did ride on each BEGIN.
    const named = (
      await db.pool.query(
        `SELECT count(*)::int AS n FROM control_trail WHERE company_id = $1 AND resource_type = 'transaction' AND actor->>'id' = $2 AND request_id LIKE 'bench-%'`,
        [companyId, keyId],
      )
    ).rows[0].n as number;
    if (named !== POSTINGS * ROUNDS) throw new Error(`${named} postings name the key in the trail, not ${POSTINGS * ROUNDS}`);
    out.push(
      `PostgreSQL ${pgVersion}; ${ROUNDS} rounds of ${POSTINGS} postings each way, one transaction each, sequential (${keys.length} key)`,
      `posting with the trail (actor + triggers): ${ms(per(times.trail))} ms each (${(POSTINGS / (sum(times.trail) / ROUNDS)).toFixed(0)}/s)`,
      `bare baseline (triggers off, no actor):    ${ms(per(times.bare))} ms each (${(POSTINGS / (sum(times.bare) / ROUNDS)).toFixed(0)}/s)`,
      `the trail's cost: ${ms(per(times.trail) - per(times.bare))} ms per posting (${(((per(times.trail) - per(times.bare)) / per(times.bare)) * 100).toFixed(0)} %)`,
      `CPU per posting (this process + its database server processes): with the trail ${ms(cpu.trail / (ROUNDS * POSTINGS))} ms, ` +
        `bare ${ms(cpu.bare / (ROUNDS * POSTINGS))} ms (${(((cpu.trail - cpu.bare) / cpu.bare) * 100).toFixed(0)} %)`,
      `GET /audit-trail's first page of 50 (${entries} entries in the company): median ${ms(reads[10]!)} ms, max ${ms(reads.at(-1)!)} ms`,
      ...machineLines(),
    );
  } finally {
    await cleanups.run();
  }
  console.log(out.join('\n'));
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
