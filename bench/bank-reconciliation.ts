// Bank reconciliation benchmark (aim: p99 under 100 ms at that size):
// GET /bank-accounts/{id}/reconciliation on a bank account of 100,000 statement lines whose ledger account
// holds 100,000 journal lines, next to GET /bank-accounts/{id} in the same run (what any GET by id costs).
//
//   tsx bench/bank-reconciliation.ts     (or: npm run bench:bank-reconciliation)
//
//   a. a fresh database (DATABASE_URL's server when set, else an embedded PostgreSQL under
//      .data/bench-bank-recon-pg), one company, a DKK bank account on 6470 with its opening date at the start
//      of the fiscal year
//   b. BENCH_LINES transactions over the fiscal year through the journal writer's batch (postBatch), each
//      6470 against 1010 (money in) or 6520 (money out); then in SQL, BENCH_LINES bank lines, nine in ten
//      matched one to one to a transaction's 6470 line and the tenth an unmatched fee, so each side has a
//      tenth unmatched
//   c. the tlr service in a child process; BENCH_REQUESTS requests one after the other of the
//      baseline, then of the reconciliation (as_of the end of the fiscal year), then of the reconciliation
//      at as_of spread over the fiscal year's days, after a warm-up
//   d. EXPLAIN (ANALYZE, BUFFERS) of the reconciliation's statement, and its time in this process
//
// Environment (all optional): DATABASE_URL, BENCH_LINES (100000), BENCH_REQUESTS (200).
import { addDays, bankReconciliation, Decimal, reconciliationSql, type Posting, type PostingLine } from '@tlr/domain';
import { cleanupStack } from './cleanup.ts';
import { spawnServer } from './http.ts';
import { agent, benchCompany, benchDatabase, Keys, machineLines, ms, percentile, request, seconds, seedPostings } from './lib.ts';

const LINES = Number(process.env.BENCH_LINES ?? 100_000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 200);

/** Sequential requests: their latencies, sorted, and every status seen. */
async function timed(n: number, op: () => Promise<number>) {
  const latencies: number[] = [];
  const statuses = new Set<number>();
  for (let i = 0; i < n; i++) {
    const t = process.hrtime.bigint();
    statuses.add(await op());
    latencies.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return { latencies: latencies.sort((a, b) => a - b), statuses: [...statuses].join(' ') };
}

async function main() {
  const log = (m: string) => process.stderr.write(`[bench] ${m}\n`);
  const cleanups = cleanupStack(log);
  const out: string[] = [];
  try {
    const { db, databaseUrl, pgVersion, settings, uuidFn } = await benchDatabase({
      cleanups,
      log,
      folder: 'bench-bank-recon-pg',
      dbName: `tlr_bench_bank_recon_${process.pid}`,
      poolSize: 4,
      timeouts: { statementMs: 600_000, transactionMs: 600_000 },
    });
    // A key per 90 requests: each stays under its rate limit of 100 a minute.
    const { companyId, keys } = await benchCompany(db, {
      name: 'Bankafstemning Bench ApS',
      ownerEmail: 'bench-bank@example.dk',
      keys: Math.ceil((REQUESTS * 3 + 40) / 90),
    });
    const rotation = new Keys(keys);
    const pool = db.pool;
    const fy = (
      await pool.query<{ start: string; end: string }>(
        `SELECT to_char(start_date, 'YYYY-MM-DD') AS start, to_char(end_date, 'YYYY-MM-DD') AS end
         FROM fiscal_years WHERE company_id = $1 AND start_date <= current_date AND end_date >= current_date`,
        [companyId],
      )
    ).rows[0]!;
    const account = async (n: string) =>
      (
        await pool.query<{ id: string; account_number: string; name: string }>(
          `SELECT id, account_number, name FROM accounts WHERE company_id = $1 AND account_number = $2`,
          [companyId, n],
        )
      ).rows[0]!;
    const [bankAccount, salesAccount, equityAccount] = [await account('6470'), await account('1010'), await account('6520')];
    const bank = bankAccount.id;

    log(`loading ${LINES} transactions and ${LINES} bank lines`);
    const t0 = process.hrtime.bigint();
    // Through the journal writer: transaction n of 1..N on the fiscal year's days spread evenly. Odd: money in
    // (6470 debit, 1010 credit); even: money out (6520 debit, 6470 credit). Line 1 is the bank's.
    const days = (Date.parse(fy.end) - Date.parse(fy.start)) / 86_400_000 + 1;
    const zero = new Decimal(0);
    const side = (a: { id: string; account_number: string; name: string }, debit: Decimal, credit: Decimal): PostingLine => ({
      accountId: a.id,
      account: a,
      debit,
      credit,
      description: '',
      vatCode: '',
    });
    function* postings(): Generator<Posting> {
      for (let n = 1; n <= LINES; n++) {
        const a = new Decimal(((n * 7919) % 1_000_000) + 100).div(100);
        const moneyIn = n % 2 === 1;
        yield {
          date: addDays(fy.start, Math.floor(((n - 1) * days) / LINES)),
          description: `Bilag ${n}`,
          source: 'manual',
          lines: moneyIn ? [side(bankAccount, a, zero), side(salesAccount, zero, a)] : [side(bankAccount, zero, a), side(equityAccount, a, zero)],
        };
      }
    }
    await seedPostings(db, companyId, postings());
    const client = await pool.connect();
    let bankAccountId: string;
    try {
      await client.query('BEGIN');
      await client.query(`SET LOCAL work_mem = '256MB'`);
      bankAccountId = (
        await client.query<{ id: string }>(
          `INSERT INTO bank_accounts (id, company_id, name, account_number, opening_balance_date) VALUES (${uuidFn}, $1, 'Driftskonto', '6470', $2) RETURNING id`,
          [companyId, fy.start],
        )
      ).rows[0]!.id;
      const statement = (
        await client.query<{ id: string }>(
          `INSERT INTO bank_statements (id, company_id, bank_account_id, format, file_sha256, line_count, new_count)
           VALUES (${uuidFn}, $1, $2, 'csv', 'bench', $3, $3) RETURNING id`,
          [companyId, bankAccountId, LINES],
        )
      ).rows[0]!.id;
      // Transaction n's bank line, a day after its posting: matched to its 6470 line, except every tenth,
      // which is a fee the books do not have (so that posting stays unmatched in the books too).
      await client.query(
        `INSERT INTO bank_lines (id, company_id, bank_account_id, statement_id, identity, booking_date, amount, currency, text,
                                 status, match_type, transaction_id, journal_line_id, matched_by, matched_at)
         SELECT ${uuidFn}, $1, $2, $3, 'bench-' || t.system_id, LEAST(t.date + 1, $4::date),
                CASE WHEN fee THEN -((t.system_id % 97) + 1) ELSE l.debit - l.credit END, 'DKK',
                CASE WHEN fee THEN 'Gebyr' ELSE 'Bilag ' || t.system_id END,
                CASE WHEN fee THEN 'unmatched' ELSE 'matched' END,
                CASE WHEN fee THEN NULL ELSE 'posting' END,
                CASE WHEN fee THEN NULL ELSE t.id END,
                CASE WHEN fee THEN NULL ELSE l.id END,
                CASE WHEN fee THEN NULL ELSE 'auto' END,
                CASE WHEN fee THEN NULL ELSE now() END
         FROM ledger_transactions t JOIN transaction_lines l ON l.transaction_id = t.id AND l.line_number = 1
         CROSS JOIN LATERAL (SELECT t.system_id % 10 = 0 AS fee) f
         WHERE t.company_id = $1`,
        [companyId, bankAccountId, statement, fy.end],
      );
      await client.query('COMMIT');
    } catch (e) {
      await client.query('ROLLBACK').catch(() => {});
      throw e;
    } finally {
      client.release();
    }
    const loadSeconds = seconds(t0);
    await pool.query(
      'ANALYZE ledger_transactions, transaction_lines, account_daily_balances, bank_accounts, bank_lines, bank_statements, bank_reconciliation_days',
    );
    log(`loaded in ${loadSeconds.toFixed(1)} s`);

    const server = await spawnServer({ kind: 'tlr', databaseUrl, poolSize: 10 });
    cleanups.push(() => server.stop());
    const get = async (path: string) => {
      const r = await request(`${server.url}/api/v1${path}`, { headers: { 'X-API-Key': rotation.next() } });
      if (r.status !== 200) throw new Error(`GET ${path} answered ${r.status}: ${r.body.slice(0, 300)}`);
      return r;
    };
    const reconciliation = `/bank-accounts/${bankAccountId}/reconciliation?as_of=${fy.end}`;
    for (let i = 0; i < 20; i++) await Promise.all([get(`/bank-accounts/${bankAccountId}`), get(reconciliation)]);
    const answer = JSON.parse((await get(reconciliation)).body).data;
    const baseline = await timed(REQUESTS, async () => (await get(`/bank-accounts/${bankAccountId}`)).status);
    const reconciled = await timed(REQUESTS, async () => (await get(reconciliation)).status);
    // Every as_of: request i at day i of the fiscal year, spread evenly (the window's sums and the first
    // unmatched items from a different day each time).
    let request_ = 0;
    const everyDay = await timed(REQUESTS, async () => {
      const asOf = addDays(fy.start, Math.floor((request_++ * days) / REQUESTS));
      return (await get(`/bank-accounts/${bankAccountId}/reconciliation?as_of=${asOf}`)).status;
    });

    // The statement itself, in this process (Prisma.Sql's text is PostgreSQL's, $1, $2, ...): its plan and its
    // time without HTTP, authentication or JSON.
    const sql = reconciliationSql(
      companyId,
      { id: bankAccountId, currency: 'DKK', opening_balance_date: new Date(fy.start), ledger_account_id: bank },
      fy.start,
      fy.end,
    );
    // As the service runs it: without JIT (bankReconciliation sets jit off for its transaction).
    const bareClient = await pool.connect();
    let plan: string[];
    let bare: Awaited<ReturnType<typeof timed>>;
    try {
      await bareClient.query('SET jit = off');
      plan = (await bareClient.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${sql.text}`, sql.values)).rows.map((r) => r['QUERY PLAN']);
      bare = await timed(50, async () => ((await bareClient.query(sql.text, sql.values)).rowCount ?? 0) * 200);
    } finally {
      bareClient.release();
    }

    // The domain function through Prisma in a transaction, as the procedure calls it, without HTTP and authentication.
    const scope = { companyId, livemode: true };
    const domain = await timed(50, async () => {
      await db.prisma.$transaction((tx) => bankReconciliation(tx, scope, bankAccountId, { as_of: fy.end }));
      return 200;
    });

    const line = (what: string, r: { latencies: number[]; statuses: string }) =>
      `| ${what} | ${REQUESTS} | ${ms(percentile(r.latencies, 50))} | ${ms(percentile(r.latencies, 99))} | ${ms(r.latencies.at(-1)!)} | ${r.statuses} |`;
    out.push(
      `PostgreSQL ${pgVersion} (synchronous_commit=${settings.sc}, fsync=${settings.fsync}, shared_buffers=${settings.sb}); ${LINES} journal lines on 6470 and ${LINES} bank lines loaded in ${loadSeconds.toFixed(1)} s`,
      `answer: bank_balance ${answer.bank_balance}, ledger_balance ${answer.ledger_balance}, difference ${answer.difference}, unmatched bank ${answer.unmatched_bank_lines.count} (${answer.unmatched_bank_lines.sum}), unmatched ledger ${answer.unmatched_ledger_entries.count} (${answer.unmatched_ledger_entries.sum}), last matched ${answer.last_matched_date}`,
      '',
      '| request (one at a time) | n | p50 ms | p99 ms | max ms | statuses |',
      '|---|---|---|---|---|---|',
      line(`GET ${reconciliation.replace(bankAccountId, '{id}')}`, reconciled),
      line('the same, as_of each day of the fiscal year in turn', everyDay),
      line('baseline: GET /bank-accounts/{id}', baseline),
      `| the domain function (Prisma, one transaction), in this process | 50 | ${ms(percentile(domain.latencies, 50))} | ${ms(percentile(domain.latencies, 99))} | ${ms(domain.latencies.at(-1)!)} | |`,
      `| the statement alone, in this process | 50 | ${ms(percentile(bare.latencies, 50))} | ${ms(percentile(bare.latencies, 99))} | ${ms(bare.latencies.at(-1)!)} | |`,
      '',
      '```',
      ...plan,
      '```',
    );
    if (rotation.overused) out.push('', `WARNING: ${rotation.overused} requests went over a key's rate limit budget`);
    out.push('', ...machineLines());
    process.stdout.write(`${out.join('\n')}\n`);
  } finally {
    agent.destroy();
    await cleanups.run();
  }
}

await main();
