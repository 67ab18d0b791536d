// The accountant's reports benchmark (aim: p99 under 100 ms for a year at 1,000,000 journal lines):
// GET /reports/trial-balance (the fiscal year, with the year before) and GET /reports/general-ledger (a page
// of 50 of an account's year, newest first and in posting order) next to GET /accounts/{id} (what any GET
// by id costs) in the same run, and each report's bare SQL in this process.
//
//   tsx bench/accountant-reports.ts     (or: npm run bench:accountant-reports)
//
//   a. a fresh database (DATABASE_URL's server when set, else an embedded PostgreSQL under
//      .data/bench-accountant-pg), one company
//   b. BENCH_JOURNAL_LINES journal lines (two-line postings) over the current fiscal year through the journal
//      writer's batch (postBatch): each posting 6470 Bankkonto against one of 1010, 2030, 2850, 6520, 7680 in
//      turn, so 6470's ledger holds half of the lines and 2030's a tenth
//   c. the tlr service in a child process; BENCH_REQUESTS requests one after the other of each, after a warm-up
//   d. the statements alone (the trial balance's per-period sums, a general-ledger page) in this process
//
// Environment (all optional): DATABASE_URL, BENCH_JOURNAL_LINES (1000000), BENCH_REQUESTS (200).
import { addDays, Decimal, generalLedgerSql, type Posting, type PostingLine } from '@tlr/domain';
import { cleanupStack } from './cleanup.ts';
import { spawnServer } from './http.ts';
import { agent, benchCompany, benchDatabase, Keys, machineLines, ms, percentile, request, seconds, seedPostings } from './lib.ts';

const LINES = Number(process.env.BENCH_JOURNAL_LINES ?? 1_000_000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 200);
const POSTINGS = Math.max(1, Math.floor(LINES / 2));

async function timed(n: number, op: () => Promise<unknown>) {
  const latencies: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = process.hrtime.bigint();
    await op();
    latencies.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return latencies.sort((a, b) => a - b);
}

async function main() {
  const log = (m: string) => process.stderr.write(`[bench] ${m}\n`);
  const cleanups = cleanupStack(log);
  const out: string[] = [];
  try {
    const { db, databaseUrl, pgVersion, settings } = await benchDatabase({
      cleanups,
      log,
      folder: 'bench-accountant-pg',
      dbName: `tlr_bench_accountant_${process.pid}`,
      poolSize: 4,
      timeouts: { statementMs: 1_800_000, transactionMs: 1_800_000 },
    });
    // Six kinds of request, REQUESTS of each and a warm-up: keys enough to stay under 100 a minute each.
    const { companyId, keys } = await benchCompany(db, {
      name: 'Saldobalance Bench ApS',
      ownerEmail: 'bench-tb@example.dk',
      keys: Math.ceil((REQUESTS * 4 + 80) / 90),
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
    const accounts = (
      await pool.query<{ id: string; account_number: string; name: string }>(
        `SELECT id, account_number, name FROM accounts WHERE company_id = $1 AND account_number = ANY($2::text[]) ORDER BY account_number`,
        [companyId, ['1010', '2030', '2850', '6470', '6520', '7680']],
      )
    ).rows;
    const byNumber = new Map(accounts.map((a) => [a.account_number, a]));
    const bank = byNumber.get('6470')!;
    const others = ['1010', '2030', '2850', '6520', '7680'].map((n) => byNumber.get(n)!);

    log(`loading ${POSTINGS * 2} journal lines`);
    const t0 = process.hrtime.bigint();
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
      for (let n = 1; n <= POSTINGS; n++) {
        const a = new Decimal(((n * 7919) % 1_000_000) + 100).div(100);
        const other = others[n % others.length]!;
        // Revenue and liabilities against money in; costs and equity against money out.
        const moneyIn = other.account_number === '1010' || other.account_number === '7680';
        yield {
          date: addDays(fy.start, Math.floor(((n - 1) * days) / POSTINGS)),
          description: `Bilag ${n}`,
          source: 'manual',
          lines: moneyIn ? [side(bank, a, zero), side(other, zero, a)] : [side(bank, zero, a), side(other, a, zero)],
        };
      }
    }
    await seedPostings(db, companyId, postings());
    const loadSeconds = seconds(t0);
    await pool.query('ANALYZE ledger_transactions, transaction_lines, account_daily_balances, account_monthly_balances, accounts');
    log(`loaded in ${loadSeconds.toFixed(1)} s`);

    const server = await spawnServer({ kind: 'tlr', databaseUrl, poolSize: 10 });
    cleanups.push(() => server.stop());
    const get = async (path: string) => {
      const r = await request(`${server.url}/api/v1${path}`, { headers: { 'X-API-Key': rotation.next() } });
      if (r.status !== 200) log(`GET ${path} answered ${r.status}: ${r.body.slice(0, 200)}`);
      return r;
    };
    const year = `from=${fy.start}&to=${fy.end}`;
    const paths = {
      trial: `/reports/trial-balance?${year}&order=asc`,
      ledgerBank: `/reports/general-ledger?account=6470&${year}`,
      ledgerBankAsc: `/reports/general-ledger?account=6470&${year}&order=asc&page=2`,
      ledgerRent: `/reports/general-ledger?account=2030&${year}`,
      baseline: `/accounts/${bank.id}`,
    };
    for (let i = 0; i < 3; i++) for (const path of Object.values(paths)) await get(path);
    const tb = JSON.parse((await get(paths.trial)).body);
    const gl = JSON.parse((await get(paths.ledgerRent)).body);
    const results: [string, number[], string][] = [];
    for (const path of Object.values(paths)) {
      const statuses = new Map<number, number>();
      const latencies = await timed(REQUESTS, async () => {
        const { status } = await get(path);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      });
      results.push([`GET ${path.replace(bank.id, '{id}')}`, latencies, [...statuses].map(([k, n]) => `${k}×${n}`).join(' ')]);
    }

    // Bare SQL, in this process: what a hand-written report would at least run. The trial balance: the
    // year's sums per account from the monthly balances; the ledger: a page of 50 lines of 6470, newest
    // first, without a running balance or counterparts. Then the service's own general-ledger statement.
    const bareTb = await timed(50, () =>
      pool.query(
        `SELECT account_id, SUM(debit), SUM(credit) FROM account_monthly_balances
         WHERE company_id = $1 AND month >= $2::date AND month <= $3::date GROUP BY account_id`,
        [companyId, fy.start, fy.end],
      ),
    );
    const bareGl = await timed(50, () =>
      pool.query(
        `SELECT l.date, t.document_number, l.debit, l.credit, l.description
         FROM transaction_lines l JOIN ledger_transactions t ON t.id = l.transaction_id
         WHERE l.company_id = $1 AND l.account_id = $2 AND l.date BETWEEN $3::date AND $4::date
         ORDER BY l.date DESC, l.system_id DESC, l.line_number DESC LIMIT 50`,
        [companyId, bank.id, fy.start, fy.end],
      ),
    );
    // The period's net only shifts the balances of a descending page: any figure costs the same.
    const page = generalLedgerSql(companyId, bank.id, fy.start, fy.end, { order: 'desc', offset: 0, limit: 50, periodNet: '0' });
    const ourGl = await timed(5, () => pool.query(page.text, page.values));
    const plan = (await pool.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${page.text}`, page.values)).rows.map((r) => r['QUERY PLAN']);

    const row = (what: string, n: number, l: number[], statuses = '') =>
      `| ${what} | ${n} | ${ms(percentile(l, 50))} | ${ms(percentile(l, 99))} | ${ms(l.at(-1)!)} | ${statuses} |`;
    out.push(
      `PostgreSQL ${pgVersion} (synchronous_commit=${settings.sc}, fsync=${settings.fsync}, shared_buffers=${settings.sb}); ${POSTINGS * 2} journal lines over ${fy.start}..${fy.end} loaded in ${loadSeconds.toFixed(1)} s`,
      `answer: trial balance ${tb.meta?.total} accounts, debit ${tb.meta?.totals?.debit} = credit ${tb.meta?.totals?.credit}; 2030's ledger ${gl.meta?.total} lines, closing balance ${gl.meta?.closing_balance}`,
      '',
      '| request (one at a time) | n | p50 ms | p99 ms | max ms | statuses |',
      '|---|---|---|---|---|---|',
      ...results.map(([what, l, statuses]) => row(what, REQUESTS, l, statuses)),
      row("bare SQL: the year's sums per account from the monthly balances", 50, bareTb),
      row('bare SQL: 50 lines of 6470, newest first, no running balance', 50, bareGl),
      row("the service's general-ledger statement alone (6470, running balance over the year)", 5, ourGl),
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
