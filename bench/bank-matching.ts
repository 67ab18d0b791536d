// Bank matching benchmark: automatic matching of bank lines against many open invoices (Order 15: aim
// 5,000 lines/s against 100,000 open invoices), next to a bare baseline in the same run: the same number
// of payments registered directly (registerPayment, one transaction each: what posting alone costs).
//
//   tsx bench/bank-matching.ts     (or: npm run bench:bank-matching)
//
//   a. a fresh database (DATABASE_URL's server when set, else an embedded PostgreSQL under
//      .data/bench-bank-match-pg), one company with a bank account on 6470
//   b. BENCH_INVOICES approved invoices of 100.00 DKK, each with its FI payment id, written in SQL
//   c. BENCH_LINES bank lines of 100.00 carrying the payment ids of the first of them, written in SQL
//      as an import stores them, then matched by autoMatch in this process (100 lines per transaction,
//      a savepoint each: lock, the rules, the invoice payment, the line); peak RSS of this process
//   d. the baseline: as many other invoices paid by registerPayment, one transaction each
//
// Environment (all optional): DATABASE_URL, BENCH_INVOICES (100000), BENCH_LINES (5000).
import { randomUUID } from 'node:crypto';
import { inTransaction } from '@tlr/db';
import { autoMatch, createBankAccount, Decimal, fiPaymentId, registerPayment, type CompanyScope } from '@tlr/domain';
import { cleanupStack } from './cleanup.ts';
import { benchCompany, benchDatabase, machineLines, mib, procStatus, seconds } from './lib.ts';

const INVOICES = Number(process.env.BENCH_INVOICES ?? 100_000);
const LINES = Number(process.env.BENCH_LINES ?? 5_000);

async function main() {
  const log = (m: string) => process.stderr.write(`[bench] ${m}\n`);
  const cleanups = cleanupStack(log);
  const out: string[] = [];
  try {
    const { db, pgVersion } = await benchDatabase({ cleanups, log, folder: 'bench-bank-match-pg', dbName: `tlr_bench_bank_match_${process.pid}`, poolSize: 4 });
    const { companyId } = await benchCompany(db, { name: 'Bank Bench ApS', ownerEmail: 'bench-bank@example.dk', keys: 0 });
    const scope: CompanyScope = { companyId, livemode: true };
    const run = inTransaction(db);
    const bank = await run((tx) => createBankAccount(tx, scope, { name: 'Driftskonto' }));

    log(`writing ${INVOICES} open invoices`);
    for (let from = 1; from <= INVOICES; from += 10_000) {
      const n = Array.from({ length: Math.min(10_000, INVOICES - from + 1) }, (_, i) => from + i);
      await db.pool.query(
        `INSERT INTO invoices (id, company_id, invoice_number, document_number, payment_id, status, issue_date, due_date, currency, exchange_rate,
                               subtotal, vat_amount, total, total_dkk, approved_at)
         SELECT gen_random_uuid(), $1, n::text, n, p, 'approved', '2026-11-02', '2026-11-16', 'DKK', 1, 80, 20, 100, 100, now()
           FROM unnest($2::bigint[], $3::text[]) AS u(n, p)`,
        [companyId, n, n.map((i) => fiPaymentId(String(1_000_000 + i)))],
      );
    }
    // The payment ids above were made of 1,000,000 + n; the invoice numbers are n, so rule 2 never fires by chance.
    await db.pool.query(`UPDATE invoices SET invoice_number = (1000000 + document_number)::text WHERE company_id = $1`, [companyId]);
    await db.pool.query('ANALYZE');

    log(`writing ${LINES} bank lines`);
    const statement = randomUUID();
    await db.pool.query(`INSERT INTO bank_statements (id, company_id, bank_account_id, format, file_sha256) VALUES ($1, $2, $3, 'csv', 'bench')`, [
      statement,
      companyId,
      bank.id,
    ]);
    await db.pool.query(
      `INSERT INTO bank_lines (id, company_id, bank_account_id, statement_id, identity, booking_date, amount, currency, text, reference)
       SELECT gen_random_uuid(), $1, $2, $3, 'bench:' || n, '2026-11-20', 100, 'DKK', 'Indbetaling', p
         FROM unnest($4::int[], $5::text[]) AS u(n, p)`,
      [
        companyId,
        bank.id,
        statement,
        Array.from({ length: LINES }, (_, i) => i + 1),
        Array.from({ length: LINES }, (_, i) => fiPaymentId(String(1_000_001 + i))),
      ],
    );

    log('matching');
    const rssBefore = procStatus(process.pid, 'VmRSS');
    const t0 = process.hrtime.bigint();
    const round = await autoMatch(run, db.prisma, { bankAccountId: bank.id, limit: LINES });
    const matchS = seconds(t0);

    log('baseline: registerPayment');
    const others = await db.pool.query<{ id: string }>(
      `SELECT id FROM invoices WHERE company_id = $1 AND status = 'approved' ORDER BY document_number DESC LIMIT $2`,
      [companyId, LINES],
    );
    const t1 = process.hrtime.bigint();
    for (const { id } of others.rows) {
      await run((tx) => registerPayment(tx, scope, id, { amount: new Decimal(100), date: '2026-11-20', account_number: '6470' }));
    }
    const bareS = seconds(t1);

    out.push(
      `bank matching: ${INVOICES} open invoices, ${LINES} bank lines (each an FI payment id), PostgreSQL ${pgVersion}`,
      '',
      '| what | lines | seconds | lines/s |',
      '|---|---:|---:|---:|',
      `| autoMatch (rules + payment + line; 100 lines per transaction) | ${round.checked} (${round.matched} matched) | ${matchS.toFixed(1)} | ${(round.checked / matchS).toFixed(0)} |`,
      `| baseline: registerPayment alone, a transaction each | ${others.rows.length} | ${bareS.toFixed(1)} | ${(others.rows.length / bareS).toFixed(0)} |`,
      '',
      `RSS of this process: ${mib(rssBefore)} before matching, peak ${mib(procStatus(process.pid, 'VmHWM'))}`,
      ...machineLines(),
    );
  } finally {
    await cleanups.run();
  }
  process.stdout.write(`${out.join('\n')}\n`);
}

await main();
