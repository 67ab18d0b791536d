// Bank matching benchmark: automatic matching of bank lines against many open invoices (aim
// 5,000 lines/s against 100,000 open invoices), next to a bare baseline in the same run: the same number
// of payments registered directly (registerPayment, one transaction each: what posting alone costs).
//
//   tsx bench/bank-matching.ts     (or: npm run bench:bank-matching)
//
//   a. a fresh database (DATABASE_URL's server when set, else an embedded PostgreSQL under
//      .data/bench-bank-match-pg), one company with a bank account on 6470
//   b. BENCH_INVOICES approved invoices of 100.00 DKK, each with its FI payment id: their postings through the
//      journal writer's batch (postBatch), the invoice rows in SQL
//   c. BENCH_LINES bank lines of 100.00 carrying the payment ids of the first of them, written in SQL
//      as an import stores them, then matched by autoMatch in this process (500 lines per transaction,
//      set-based: the lines locked, the rules read for all of them, the invoices locked, their payments,
//      postings, invoice states, events and the lines' state one statement each); peak RSS of this process
//   d. the baseline: as many other invoices paid by registerPayment, one transaction each
//
// Environment (all optional): DATABASE_URL, BENCH_INVOICES (100000), BENCH_LINES (5000), BENCH_BASELINE (as
// many payments as lines), BENCH_CPU_PROF (a folder: the matching's CPU profile, lib.ts cpuProfiled).
import { randomUUID } from 'node:crypto';
import { inTransaction } from '@tlr/db';
import {
  autoMatch,
  createBankAccount,
  Decimal,
  fiPaymentId,
  newId,
  registerPayment,
  today,
  type CompanyScope,
  type Posting,
  type PostingLine,
} from '@tlr/domain';
import { cleanupStack } from './cleanup.ts';
import { benchCompany, benchDatabase, cpuMeter, cpuProfiled, machineLines, mib, procStatus, seconds, seedPostings } from './lib.ts';

const INVOICES = Number(process.env.BENCH_INVOICES ?? 100_000);
const LINES = Number(process.env.BENCH_LINES ?? 5_000);
const BASELINE = Number(process.env.BENCH_BASELINE ?? LINES);

async function main() {
  const log = (m: string) => process.stderr.write(`[bench] ${m}\n`);
  const cleanups = cleanupStack(log);
  const out: string[] = [];
  try {
    const { db, pgVersion } = await benchDatabase({
      cleanups,
      log,
      folder: 'bench-bank-match-pg',
      dbName: `tlr_bench_bank_match_${process.pid}`,
      poolSize: 4,
      // Seeding 100,000 invoices and their postings in one transaction outlasts the service's bounds.
      timeouts: { statementMs: 600_000, transactionMs: 900_000 },
    });
    const { companyId } = await benchCompany(db, { name: 'Bank Bench ApS', ownerEmail: 'bench-bank@example.dk', keys: 0 });
    const scope: CompanyScope = { companyId, livemode: true };
    const run = inTransaction(db);
    const bank = await run((tx) => createBankAccount(tx, scope, { name: 'Driftskonto' }));

    // Invoice n (document number n) is approved: its posting through the journal writer (receivables 100.00
    // against sales 80.00 and output VAT 20.00, as an approval posts it), then the invoice row, with FI
    // payment id and invoice number 1,000,000 + n, so rule 2 (the invoice number in the text) never fires by chance.
    log(`posting and writing ${INVOICES} open invoices`);
    const accounts = new Map(
      (await db.prisma.account.findMany({ where: { company_id: companyId, account_number: { in: ['6190', '1010', '7680'] } } })).map((a) => [
        a.account_number,
        a,
      ]),
    );
    const line = (number: string, debit: string, credit: string, vatCode: string): PostingLine => {
      const a = accounts.get(number)!;
      return { accountId: a.id, account: a, debit: new Decimal(debit), credit: new Decimal(credit), description: '', vatCode };
    };
    const day = today();
    const invoiceIds = Array.from({ length: INVOICES }, () => newId());
    const posted = await seedPostings(
      db,
      companyId,
      invoiceIds.map((id, i): Posting => ({
        date: day,
        description: `Faktura ${1_000_001 + i}`,
        source: 'invoice',
        sourceId: id,
        lines: [line('6190', '100', '0', ''), line('1010', '0', '80', 'S25'), line('7680', '0', '20', 'S25')],
      })),
    );
    for (let from = 0; from < INVOICES; from += 5_000) {
      const chunk = posted.slice(from, from + 5_000);
      await db.pool.query(
        `INSERT INTO invoices (id, company_id, invoice_number, document_number, payment_id, status, issue_date, due_date, currency, exchange_rate,
                               subtotal, vat_amount, total, total_dkk, approved_at, posted_transaction_id, posted_system_id)
         SELECT u.id, $1, (1000000 + u.n)::text, u.n, u.p, 'approved', $2::date, $2::date + 14, 'DKK', 1, 80, 20, 100, 100, now(), u.tx, u.sys
           FROM unnest($3::uuid[], $4::bigint[], $5::text[], $6::uuid[], $7::bigint[]) AS u(id, n, p, tx, sys)`,
        [
          companyId,
          day,
          invoiceIds.slice(from, from + 5_000),
          chunk.map((r) => r.documentNumber.toString()),
          chunk.map((r) => fiPaymentId(String(1_000_000 + Number(r.documentNumber)))),
          chunk.map((r) => r.id),
          chunk.map((r) => r.systemId.toString()),
        ],
      );
    }
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
       SELECT gen_random_uuid(), $1, $2, $3, 'bench:' || n, $4::date, 100, 'DKK', 'Indbetaling', p
         FROM unnest($5::int[], $6::text[]) AS u(n, p)`,
      [
        companyId,
        bank.id,
        statement,
        day,
        Array.from({ length: LINES }, (_, i) => i + 1),
        Array.from({ length: LINES }, (_, i) => fiPaymentId(String(1_000_001 + i))),
      ],
    );

    log('matching');
    const rssBefore = procStatus(process.pid, 'VmRSS');
    const cpu = cpuMeter(db.pool);
    const node0 = process.cpuUsage();
    const cpu0 = await cpu();
    const t0 = process.hrtime.bigint();
    const round = await cpuProfiled('bank-matching', () => autoMatch(run, db.prisma, { bankAccountId: bank.id, limit: LINES }));
    const matchS = seconds(t0);
    const matchCpu = (await cpu()) - cpu0;
    const nodeCpu = process.cpuUsage(node0);
    const matchNodeMs = (nodeCpu.user + nodeCpu.system) / 1000;

    log('baseline: registerPayment');
    const others = await db.pool.query<{ id: string }>(
      `SELECT id FROM invoices WHERE company_id = $1 AND status = 'approved' ORDER BY document_number DESC LIMIT $2`,
      [companyId, BASELINE],
    );
    const t1 = process.hrtime.bigint();
    for (const { id } of others.rows) {
      await run((tx) => registerPayment(tx, scope, id, { amount: new Decimal(100), date: day, account_number: '6470' }));
    }
    const bareS = seconds(t1);

    out.push(
      `bank matching: ${INVOICES} open invoices, ${LINES} bank lines (each an FI payment id), PostgreSQL ${pgVersion}`,
      '',
      '| what | lines | seconds | lines/s |',
      '|---|---:|---:|---:|',
      `| autoMatch (rules + payments + lines, set-based; 500 lines per transaction) | ${round.checked} (${round.matched} matched) | ${matchS.toFixed(1)} | ${(round.checked / matchS).toFixed(0)} |`,
      `| baseline: registerPayment alone, a transaction each | ${others.rows.length} | ${bareS.toFixed(1)} | ${(others.rows.length / bareS).toFixed(0)} |`,
      '',
      `CPU of the matching: ${(matchCpu / 1000).toFixed(1)} s (${((matchCpu * 1000) / Math.max(1, round.checked)).toFixed(0)} µs a line), of which this process ${(matchNodeMs / 1000).toFixed(1)} s and the database's processes ${((matchCpu - matchNodeMs) / 1000).toFixed(1)} s`,
      `RSS of this process: ${mib(rssBefore)} before matching, peak ${mib(procStatus(process.pid, 'VmHWM'))}`,
      ...machineLines(),
    );
  } finally {
    await cleanups.run();
  }
  process.stdout.write(`${out.join('\n')}\n`);
}

await main();
