// Month-end benchmark: an accounting firm's month end for one company, end to end and in sequence,
// each step's time next to a bare baseline of the same step in the same run (issue 44, item 7):
//
//   1. BENCH_INVOICES invoices created and approved (POST /invoices with auto_approve, 4 connections) for
//      customers with a Peppol id, so the approval queues each one's e-invoice (the real UBL renderer, the
//      PDF embedded); then every queued message delivered through the directory transport by the
//      delivery worker's own functions (claimEinvoice + attemptEinvoice, 4 at once, in this process)
//      baseline: the same number of invoices as bare SQL (bench/bare-writes.ts bareInvoice, in a second
//      company), each with a file of the same bytes written to a folder
//   2. a camt.053 statement of BENCH_LINES entries imported (POST /bank-accounts/{id}/statements, which
//      matches its first 1,000 lines before it answers) and the rest matched (autoMatch, set-based, as
//      the match-bank-lines sweep does); the first BENCH_INVOICES entries pay the invoices by FI payment id
//      baseline: the parser alone on the same file, and the bare SQL join of the lines to the invoices
//      they pay (the matching's read)
//   3. the reconciliation (GET /bank-accounts/{id}/reconciliation), BENCH_REQUESTS times, p50 and max
//      baseline: GET /bank-accounts/{id}
//   4. the VAT return of the quarter the invoices fall in, settled (POST /vat-returns/{period}/settle)
//      baseline: GET /bank-accounts/{id}
//   5. the SAF-T export of the year (GET /exports/saft)
//      baseline: the year's journal lines read by bare SQL with their transactions
//
// Each step reports wall time and CPU time (this process, the server's process and the database
// server's processes of this database, from /proc): the machine is shared, and the wall time carries
// the other tenants' load, the CPU time only the work's own.
//
//   tsx bench/month-end.ts     (or: npm run bench:month-end)
//
// Environment (all optional): DATABASE_URL, BENCH_INVOICES (2000), BENCH_LINES (5000), BENCH_REQUESTS (20),
// BENCH_CPU_PROF (a folder: the server's CPU profile is written there when it stops, --cpu-prof).
import { randomUUID } from 'node:crypto';
import { createReadStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inTransaction, type Db } from '@tlr/db';
import { asSystem, attemptEinvoice, autoMatch, claimEinvoice, DEFAULT_ACCOUNTS, directoryTransport, type EinvoiceSettings } from '@tlr/domain';
import { parseCamt053 } from '@tlr/domain/bank/statements/camt053';
import { accountIds, bareInvoice, OUTPUT_VAT_ACCOUNT, type Invoicing } from './bare-writes.ts';
import { cleanupStack } from './cleanup.ts';
import { spawnServer } from './http.ts';
import { benchCompany, benchDatabase, cpuMeter, Keys, machineLines, percentile, procTicks, request, seconds } from './lib.ts';

const INVOICES = Number(process.env.BENCH_INVOICES ?? 2_000);
const LINES = Math.max(Number(process.env.BENCH_LINES ?? 5_000), INVOICES);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 20);
const CONNECTIONS = 4;
/** The quarter the invoices fall in: ended, so that it can be settled. */
const ISSUE = '2026-09-15';
const DUE = '2026-09-29';
const PERIOD = '2026-Q3';
const BOOKED = '2026-10-05';

/** `count` tasks run by `workers` workers, each taking the next index when its last task ends. */
async function pool(count: number, workers: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(workers, count) }, async () => {
      while (next < count) await task(next++);
    }),
  );
}

/** One measured step: wall seconds and CPU ms (this process, the server, the database's processes). */
async function measure<T>(cpu: () => Promise<number>, work: () => Promise<T>): Promise<{ result: T; s: number; cpuMs: number }> {
  const c0 = await cpu();
  const t0 = process.hrtime.bigint();
  const result = await work();
  const s = seconds(t0);
  return { result, s, cpuMs: (await cpu()) - c0 };
}

function camtEntry(i: number, pay: { amount: string; paymentId: string } | undefined): string {
  const amount = pay ? pay.amount : (((i % 9_973) + 1) * 3 + (i % 100) / 100).toFixed(2);
  const credit = Boolean(pay) || i % 2 === 0;
  const party = credit ? `<Dbtr><Nm>Kunde ${i % 500} ApS</Nm></Dbtr>` : `<Cdtr><Nm>Leverandør ${i % 300}</Nm></Cdtr>`;
  const ref = pay ? `<Strd><CdtrRefInf><Ref>+71&lt;${pay.paymentId}</Ref></CdtrRefInf></Strd>` : '';
  return `<Ntry><Amt Ccy="DKK">${amount}</Amt><CdtDbtInd>${credit ? 'CRDT' : 'DBIT'}</CdtDbtInd><Sts>BOOK</Sts><BookgDt><Dt>${BOOKED}</Dt></BookgDt><ValDt><Dt>${BOOKED}</Dt></ValDt><AcctSvcrRef>ME-${i}</AcctSvcrRef><NtryDtls><TxDtls><RltdPties>${party}</RltdPties><RmtInf><Ustrd>${pay ? 'Indbetaling' : `Overførsel ${i}`}</Ustrd>${ref}</RmtInf></TxDtls></NtryDtls></Ntry>\n`;
}

async function main() {
  const log = (m: string) => process.stderr.write(`[bench] ${m}\n`);
  const cleanups = cleanupStack(log);
  const out: string[] = [];
  try {
    const { db, databaseUrl, pgVersion, monthly } = await benchDatabase({
      cleanups,
      log,
      folder: 'bench-month-end-pg',
      dbName: `tlr_bench_month_end_${process.pid}`,
      poolSize: 4,
      timeouts: { statementMs: 600_000, transactionMs: 900_000 },
    });
    // 2 requests per invoice at most within the rate limit's minute: keys enough for every request of the run.
    const { companyId, keys: keyList } = await benchCompany(db, {
      name: 'Månedsafslutning ApS',
      ownerEmail: 'bench-month-end@example.dk',
      keys: Math.ceil((INVOICES + 3 * REQUESTS + 20) / 90) + 1,
    });
    const keys = new Keys(keyList);
    const bare = await benchCompany(db, { name: 'Bar SQL ApS', ownerEmail: 'bench-month-end-bare@example.dk', keys: 0 });
    const folder = mkdtempSync(join(tmpdir(), 'tlr-bench-month-end-'));
    cleanups.push(async () => rmSync(folder, { recursive: true, force: true }));

    const server = await spawnServer(
      { kind: 'tlr', databaseUrl, poolSize: 10, env: { EINVOICE_WARM_AT_START: 'false' } },
      { cpuProfDir: process.env.BENCH_CPU_PROF || undefined },
    );
    cleanups.push(() => server.stop());
    const api = `${server.url}/api/v1`;
    const call = async (method: string, path: string, body?: unknown, expect = [200, 201]) => {
      const r = await request(`${api}${path}`, {
        method,
        headers: { 'X-API-Key': keys.next(), 'Idempotency-Key': randomUUID(), ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        timeoutMs: 600_000,
      });
      if (!expect.includes(r.status)) throw new Error(`${method} ${path} answered ${r.status}: ${r.body.slice(0, 400)}`);
      return r;
    };
    const json = async <T>(method: string, path: string, body?: unknown) => (JSON.parse((await call(method, path, body)).body) as { data: T }).data;

    // The seller addressable on Peppol (its CVR), sending on approval, with an FI creditor number (payment ids on its invoices).
    await call('PUT', '/settings/company', {
      cvr: '29190925',
      address_line1: 'Vestergade 12',
      postal_code: '8000',
      city: 'Aarhus C',
      email: 'faktura@saelger.dk',
      iban: 'DK5000400440116243',
      fi_creditor_number: '81234567',
      einvoice_auto_send: true,
    });
    const customers: string[] = [];
    for (let i = 0; i < 5; i++) {
      const c = await json<{ id: string }>('POST', '/customers', {
        name: `Kunde ${i} A/S`,
        cvr: '29190925',
        peppol_id: '0088:5790000436101',
        address_line1: 'Nørregade 7',
        postal_code: '1165',
        city: 'København K',
      });
      customers.push(c.id);
    }
    const bank = await json<{ id: string }>('POST', '/bank-accounts', { name: 'Driftskonto', iban: 'DK5000400440116243' });

    // The CPU of this process, the server's and the database's processes of this database.
    const dbCpu = cpuMeter(db.pool);
    const cpu = async () => (await dbCpu()) + (procTicks(server.pid) ?? 0) * 10;
    const rows: string[] = [];
    const row = (step: string, what: string, m: { s: number; cpuMs: number }, per: string, baseline: string) =>
      rows.push(`| ${step} | ${what} | ${m.s.toFixed(2)} | ${(m.cpuMs / 1000).toFixed(2)} | ${per} | ${baseline} |`);

    // 1. Invoices approved and sent.
    log(`1. ${INVOICES} invoices created, approved and queued`);
    const body = (i: number) => ({
      customer_id: customers[i % customers.length],
      issue_date: ISSUE,
      due_date: DUE,
      lines: [
        { description: 'Konsulentbistand', quantity: 2 + (i % 7), unit_price: 850 },
        { description: 'Kørsel', quantity: 12.5, unit_price: 3.52, vat_rate: 25 },
      ],
      auto_approve: true,
    });
    const create = await measure(cpu, () => pool(INVOICES, CONNECTIONS, async (i) => void (await call('POST', '/invoices', body(i)))));
    const queued = await db.pool.query<{ id: string }>(`SELECT id FROM einvoice_messages WHERE company_id = $1 AND status = 'queued' ORDER BY created_at`, [
      companyId,
    ]);
    if (queued.rows.length !== INVOICES) throw new Error(`${queued.rows.length} e-invoices queued for ${INVOICES} invoices`);
    log(`1. delivering ${queued.rows.length} e-invoices through the directory transport`);
    const settings: EinvoiceSettings = {
      transport: directoryTransport(join(folder, 'outbox'), join(folder, 'inbox')),
      retryUnitMs: 60_000,
      inboxPollMs: 10_000,
      handOverTimeoutMs: 20_000,
    };
    const run = asSystem(inTransaction(db), 'deliver-einvoice', 'tlr: e-invoice delivery');
    const deliver = await measure(cpu, () =>
      pool(queued.rows.length, CONNECTIONS, async (i) => {
        const claimed = await claimEinvoice(db.prisma as Db, queued.rows[i]!.id, settings.handOverTimeoutMs);
        if (!claimed) throw new Error(`e-invoice ${queued.rows[i]!.id} could not be claimed`);
        if (await attemptEinvoice(run, settings, claimed)) throw new Error(`e-invoice ${claimed.id} was not accepted`);
      }),
    );
    const sent = (await db.pool.query(`SELECT count(*)::int AS n FROM invoices WHERE company_id = $1 AND status = 'sent'`, [companyId])).rows[0].n as number;
    const docBytes = (await db.pool.query(`SELECT avg(length(document_xml))::int AS n FROM einvoice_messages WHERE company_id = $1`, [companyId])).rows[0]
      .n as number;
    log('1. baseline: bare SQL invoices and files of the same bytes');
    const bareCustomer = (
      await db.pool.query<{ id: string }>(`INSERT INTO customers (id, company_id, name) VALUES (gen_random_uuid(), $1, 'Kunde A/S') RETURNING id`, [
        bare.companyId,
      ])
    ).rows[0]!.id;
    const accounts = await accountIds(db.pool, bare.companyId, [DEFAULT_ACCOUNTS.receivable, DEFAULT_ACCOUNTS.sales, OUTPUT_VAT_ACCOUNT]);
    const inv: Invoicing = {
      companyId: bare.companyId,
      customerId: bareCustomer,
      customerName: 'Kunde A/S',
      issue: ISSUE,
      due: DUE,
      receivable: accounts[DEFAULT_ACCOUNTS.receivable]!,
      sales: accounts[DEFAULT_ACCOUNTS.sales]!,
      outputVat: accounts[OUTPUT_VAT_ACCOUNT]!,
    };
    const document = 'x'.repeat(docBytes);
    const bareFolder = mkdtempSync(join(folder, 'bare-'));
    const bareInvoices = await measure(cpu, () =>
      pool(INVOICES, CONNECTIONS, async (i) => {
        await bareInvoice(db.pool, inv, monthly);
        await writeFile(join(bareFolder, `${i}.xml`), document);
      }),
    );
    row(
      '1',
      `${INVOICES} invoices created and approved over HTTP (e-invoice rendered and queued on approval)`,
      create,
      `${(INVOICES / create.s).toFixed(0)} / s`,
      '',
    );
    row(
      '1',
      `${queued.rows.length} e-invoices delivered (directory transport; ${sent} invoices sent; ${(docBytes / 1024).toFixed(0)} kB each)`,
      deliver,
      `${(queued.rows.length / deliver.s).toFixed(0)} / s`,
      '',
    );
    row(
      '1',
      'both',
      { s: create.s + deliver.s, cpuMs: create.cpuMs + deliver.cpuMs },
      `${(INVOICES / (create.s + deliver.s)).toFixed(0)} / s`,
      `bare SQL invoice + a file of its bytes: ${bareInvoices.s.toFixed(2)} s, ${(bareInvoices.cpuMs / 1000).toFixed(2)} s CPU (${(INVOICES / bareInvoices.s).toFixed(0)} / s)`,
    );

    // 2. The statement imported and matched.
    const invoices = (
      await db.pool.query<{ payment_id: string; total: string }>(
        `SELECT payment_id, total::text AS total FROM invoices WHERE company_id = $1 ORDER BY document_number`,
        [companyId],
      )
    ).rows;
    if (invoices.some((i) => !i.payment_id)) throw new Error('an invoice has no FI payment id');
    const statementPath = join(folder, 'statement.xml');
    const entries = Array.from({ length: LINES }, (_, i) => camtEntry(i, invoices[i] && { amount: invoices[i].total, paymentId: invoices[i].payment_id }));
    await writeFile(
      statementPath,
      '<?xml version="1.0" encoding="UTF-8"?>\n<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt><GrpHdr><MsgId>MONTH-END</MsgId><CreDtTm>2026-10-31T06:00:00</CreDtTm></GrpHdr><Stmt><Id>ME-2026-10</Id><Acct><Id><IBAN>DK5000400440116243</IBAN></Id><Ccy>DKK</Ccy></Acct>\n' +
        entries.join('') +
        '</Stmt></BkToCstmrStmt></Document>\n',
    );
    log(`2. statement of ${LINES} lines imported and matched`);
    const matching = asSystem(inTransaction(db), 'match-bank-lines', 'tlr: automatic matching');
    const imported = await measure(cpu, async () => {
      const r = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = http.request(`${api}/bank-accounts/${bank.id}/statements`, {
          method: 'POST',
          headers: {
            'X-API-Key': keys.next(),
            'Idempotency-Key': randomUUID(),
            'Content-Type': 'application/xml',
            'Content-Length': String(statSync(statementPath).size),
          },
          timeout: 600_000,
        });
        req.on('response', (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
        });
        req.on('error', reject);
        createReadStream(statementPath).pipe(req);
      });
      if (r.status !== 201) throw new Error(`the statement's import answered ${r.status}: ${r.body.slice(0, 400)}`);
      // What the import did not match before it answered, the sweep's work: matched here as the job does.
      return autoMatch(matching, db.prisma as Db, { bankAccountId: bank.id, limit: LINES });
    });
    const lineStates = (
      await db.pool.query<{ status: string; n: number }>(`SELECT status, count(*)::int AS n FROM bank_lines WHERE company_id = $1 GROUP BY status`, [companyId])
    ).rows;
    const paid = (await db.pool.query(`SELECT count(*)::int AS n FROM invoices WHERE company_id = $1 AND status = 'paid'`, [companyId])).rows[0].n as number;
    const parsed = await measure(cpu, async () => {
      let n = 0;
      for await (const batch of parseCamt053(createReadStream(statementPath, { highWaterMark: 64 * 1024 }), {
        currency: 'DKK',
        account: { iban: '', bban: '' },
      }))
        n += batch.length;
      return n;
    });
    const joined = await measure(cpu, async () =>
      db.pool.query(
        `SELECT b.id, i.id FROM bank_lines b JOIN invoices i ON i.company_id = b.company_id AND i.payment_id = right(b.reference, 15) AND i.total = b.amount
          WHERE b.company_id = $1`,
        [companyId],
      ),
    );
    row(
      '2',
      `statement of ${LINES} lines (camt.053, ${(statSync(statementPath).size / 2 ** 20).toFixed(1)} MiB) imported and matched: ${lineStates.map((s) => `${s.n} ${s.status}`).join(', ')}; ${paid} invoices paid`,
      imported,
      `${(LINES / imported.s).toFixed(0)} lines / s`,
      `the parser alone ${parsed.s.toFixed(2)} s (${parsed.result} lines, ${(parsed.result / parsed.s).toFixed(0)} / s) + the bare join of lines to invoices ${(joined.s * 1000).toFixed(0)} ms (${joined.result.rowCount} pairs)`,
    );

    // 3. The reconciliation; 4. the VAT return; their baseline a GET by id.
    const timed = async (n: number, path: string) => {
      const each: number[] = [];
      const m = await measure(cpu, async () => {
        for (let i = 0; i < n; i++) {
          const t = process.hrtime.bigint();
          await call('GET', path);
          each.push(seconds(t) * 1000);
        }
      });
      each.sort((a, b) => a - b);
      return { ...m, p50: percentile(each, 50), max: each.at(-1)! };
    };
    log('3. the reconciliation');
    const getById = await timed(REQUESTS, `/bank-accounts/${bank.id}`);
    const recon = await timed(REQUESTS, `/bank-accounts/${bank.id}/reconciliation`);
    const byId = `GET /bank-accounts/{id} p50 ${getById.p50.toFixed(1)} ms, max ${getById.max.toFixed(1)} ms`;
    row('3', `reconciliation, ${REQUESTS} requests`, recon, `p50 ${recon.p50.toFixed(1)} ms, max ${recon.max.toFixed(1)} ms`, byId);

    log(`4. the VAT return of ${PERIOD}, settled`);
    const settle = await measure(cpu, () => call('POST', `/vat-returns/${PERIOD}/settle`, {}, [201]));
    row('4', `VAT return ${PERIOD} settled (POST /vat-returns/${PERIOD}/settle)`, settle, `${(settle.s * 1000).toFixed(0)} ms`, byId);

    // 5. The SAF-T export of the year.
    log('5. the SAF-T export');
    const journal = (await db.pool.query(`SELECT count(*)::int AS n FROM transaction_lines WHERE company_id = $1`, [companyId])).rows[0].n as number;
    const saft = await measure(cpu, () => call('GET', '/exports/saft?from=2026-01-01&to=2026-12-31'));
    const bareJournal = await measure(cpu, () =>
      db.pool.query(
        `SELECT t.system_id, t.document_number, t.date, t.description, l.line_number, l.account_id, l.debit, l.credit, l.description, l.vat_code
           FROM transaction_lines l JOIN ledger_transactions t ON t.id = l.transaction_id
          WHERE l.company_id = $1 AND t.date BETWEEN '2026-01-01' AND '2026-12-31' ORDER BY t.system_id, l.line_number`,
        [companyId],
      ),
    );
    row(
      '5',
      `SAF-T export of 2026 (${journal} journal lines, ${(saft.result.body.length / 2 ** 20).toFixed(1)} MiB)`,
      saft,
      `${(journal / saft.s).toFixed(0)} lines / s`,
      `the year's journal lines by bare SQL ${(bareJournal.s * 1000).toFixed(0)} ms (${bareJournal.result.rowCount} rows)`,
    );

    const total = [create, deliver, imported, recon, settle, saft].reduce((a, m) => ({ s: a.s + m.s, cpuMs: a.cpuMs + m.cpuMs }), { s: 0, cpuMs: 0 });
    out.push(
      `month end: ${INVOICES} invoices, a statement of ${LINES} lines, PostgreSQL ${pgVersion}; CPU = this process + the server + the database's processes`,
      '',
      '| step | what | seconds | CPU s | rate | bare baseline in the same run |',
      '|---|---|---:|---:|---|---|',
      ...rows,
      `| all | the month end | ${total.s.toFixed(2)} | ${(total.cpuMs / 1000).toFixed(2)} | | |`,
      '',
      ...machineLines(),
    );
  } finally {
    await cleanups.run();
  }
  process.stdout.write(`${out.join('\n')}\n`);
}

await main();
