// SAF-T import benchmark: a generated SAF-T Financial file of BENCH_LINES journal lines (200,000 by
// default; `tsx bench/saft-import.ts 1000000` for a million) run through the import-saft job in this
// process (stored as POST /imports/saft stores it, then runSaftImport: the XSD check, then the import
// in one transaction), lines per second and the process's peak RSS, next to the bare baseline in the
// same run: the same file parsed by the same SAX reader, without the check or the database.
//
//   tsx bench/saft-import.ts [lines]     (or: npm run bench:saft-import -- [lines])
//
// Environment (all optional): DATABASE_URL (else an embedded PostgreSQL under .data/bench-saft-pg), BENCH_CPU_PROF
// (a folder: the job's CPU profile, lib.ts cpuProfiled).
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { checkSaftSchema, createApiKey, createSaftImport, readSaft, runSaftImport, stageUpload, utf8Text } from '@tlr/domain';
import type { Db } from '@tlr/db';
import { cleanupStack } from './cleanup.ts';
import { benchCompany, benchDatabase, cpuMeter, cpuProfiled, machineLines, mib, procStatus, seconds } from './lib.ts';

const LINES = Number(process.argv[2] ?? process.env.BENCH_LINES ?? 200_000);
const PER_TRANSACTION = 4;
const YEAR = new Date().getUTCFullYear();

const ACCOUNTS = [
  ['1010', 'Salg af varer og ydelser', 'Sale', '1010'],
  ['2030', 'Husleje', 'Expense', '2030'],
  ['6470', 'Bankkonto', 'Asset', ''],
  ['7680', 'Salgsmoms', 'Liability', '7680'],
] as const;

const head = (transactions: number, total: string) =>
  '<?xml version="1.0" encoding="UTF-8"?>\n<AuditFile xmlns="urn:StandardAuditFile-Taxation-Financial:DK">' +
  '<Header><AuditFileVersion>1.0</AuditFileVersion><AuditFileCountry>DK</AuditFileCountry><AuditFileDateCreated>2026-01-01</AuditFileDateCreated>' +
  '<SoftwareCompanyName>bench</SoftwareCompanyName><SoftwareID>bench</SoftwareID><SoftwareVersion>1</SoftwareVersion><Company><CVR>12345704</CVR><Name>Bench ApS</Name>' +
  '<Address><StreetName></StreetName><City></City><PostalCode></PostalCode><Country>DK</Country></Address><BankAccount><IBANNumber></IBANNumber></BankAccount></Company>' +
  `<DefaultCurrencyCode>DKK</DefaultCurrencyCode><SelectionCriteria><SelectionStartDate>${YEAR}-01-01</SelectionStartDate><SelectionEndDate>${YEAR}-12-31</SelectionEndDate></SelectionCriteria>` +
  '<TaxAccountingBasis>Invoice Accounting</TaxAccountingBasis><TaxEntity>Bench ApS</TaxEntity></Header>\n<MasterFiles><GeneralLedgerAccounts><NameOfStandardAccount>Standardkontoplanen</NameOfStandardAccount><VersionOfStandardAccount>20230131</VersionOfStandardAccount>' +
  ACCOUNTS.map(
    ([id, name, type, std]) =>
      `<Account><AccountID>${id}</AccountID><AccountDescription>${name}</AccountDescription>${std ? `<StandardAccountID>${std}</StandardAccountID>` : ''}<AccountType>${type}</AccountType>` +
      `<AccountCreationDate>2020-01-01</AccountCreationDate><OpeningDebitBalance>0.00</OpeningDebitBalance><ClosingDebitBalance>0.00</ClosingDebitBalance></Account>`,
  ).join('') +
  '</GeneralLedgerAccounts><TaxTable><TaxTableEntry><TaxType>VAT</TaxType><Description>VAT</Description><TaxCodeDetails><TaxCode>S25</TaxCode><EffectiveDate>2020-01-01</EffectiveDate>' +
  '<Description>Salgsmoms</Description><TaxPercentage>25</TaxPercentage><Country>DK</Country></TaxCodeDetails></TaxTableEntry></TaxTable></MasterFiles>\n' +
  `<GeneralLedgerEntries><NumberOfEntries>${transactions}</NumberOfEntries><TotalDebit>${total}</TotalDebit><TotalCredit>${total}</TotalCredit>` +
  '<Journal><JournalID>GL</JournalID><Description>Finansposteringer</Description><Type>GL</Type>\n';

const amount = (a: string) => `<Amount>${a}</Amount><CurrencyCode>DKK</CurrencyCode><CurrencyAmount>${a}</CurrencyAmount><ExchangeRate>1</ExchangeRate>`;
const line = (n: number, account: string, side: 'DebitAmount' | 'CreditAmount', a: string, text: string) =>
  `<Line><RecordID>${n}</RecordID><AccountID>${account}</AccountID><Description>${text}</Description><${side}>${amount(a)}</${side}></Line>`;

/** Transaction i: a sale of 1,000 + i % 1,000 kroner with 25 % VAT paid into the bank, less a 0.01 fee. */
function transaction(i: number, transactions: number): string {
  const date = new Date(Date.UTC(YEAR, 0, 1) + Math.floor((i * 360) / transactions) * 86_400_000).toISOString().slice(0, 10);
  const net = 1000 + (i % 1000);
  const vat = net / 4;
  return (
    `<Transaction><TransactionID>${i + 1}</TransactionID><Period>${Number(date.slice(5, 7))}</Period><PeriodYear>${YEAR}</PeriodYear><TransactionDate>${date}</TransactionDate>` +
    `<TransactionType>manual</TransactionType><Description>Salg ${i + 1}</Description><SystemEntryDate>${date}</SystemEntryDate><GLPostingDate>${date}</GLPostingDate><SystemID>${i + 1}</SystemID>` +
    line(1, '6470', 'DebitAmount', (net + vat - 0.01).toFixed(2), 'Indbetaling') +
    line(2, '1010', 'CreditAmount', net.toFixed(2), 'Salg') +
    line(3, '7680', 'CreditAmount', vat.toFixed(2), 'Salgsmoms') +
    line(4, '2030', 'DebitAmount', '0.01', 'Gebyr') +
    '</Transaction>\n'
  );
}

async function writeFile(path: string, transactions: number) {
  async function* chunks() {
    let total = 0;
    for (let i = 0; i < transactions; i++) total += 1000 + (i % 1000) + (1000 + (i % 1000)) / 4;
    yield head(transactions, total.toFixed(2));
    let buf = '';
    for (let i = 0; i < transactions; i++) {
      buf += transaction(i, transactions);
      if (buf.length > 256 * 1024) {
        yield buf;
        buf = '';
      }
    }
    yield buf + '</Journal></GeneralLedgerEntries></AuditFile>\n';
  }
  await pipeline(chunks(), createWriteStream(path));
}

/** The bare baseline: the same file through the same SAX reader, records counted, nothing checked or stored. */
async function bare(path: string): Promise<number> {
  let lines = 0;
  for await (const batch of readSaft(utf8Text(createReadStream(path, { highWaterMark: 256 * 1024 }))))
    for (const r of batch) if (r.kind === 'transaction') lines += r.lines.length;
  return lines;
}

async function main() {
  const log = (m: string) => process.stderr.write(`[bench] ${m}\n`);
  const cleanups = cleanupStack(log);
  const out: string[] = [];
  try {
    const { db, pgVersion, settings } = await benchDatabase({
      cleanups,
      log,
      folder: 'bench-saft-pg',
      dbName: `tlr_bench_saft_${process.pid}`,
      poolSize: 4,
      timeouts: { transactionMs: 3_600_000, statementMs: 600_000 },
    });
    const { companyId } = await benchCompany(db, { name: 'SAF-T Bench ApS', ownerEmail: 'bench-saft@example.dk', keys: 0 });
    // The credential that sends the file, as POST /imports/saft records it (the control trail names it).
    const sender = await createApiKey(db.prisma, { companyId, name: 'bench import', scopes: ['accounts:write', 'transactions:write'], mode: 'live' });
    const dir = mkdtempSync(join(tmpdir(), 'tlr-bench-saft-'));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    const path = join(dir, 'saft.xml');
    const transactions = Math.ceil(LINES / PER_TRANSACTION);
    log(`writing ${transactions * PER_TRANSACTION} journal lines`);
    await writeFile(path, transactions);
    const size = statSync(path).size;
    const lines = transactions * PER_TRANSACTION;

    const rssStart = procStatus(process.pid, 'VmRSS');
    let t0 = process.hrtime.bigint();
    const counted = await bare(path);
    const bareS = seconds(t0);
    if (counted !== lines) throw new Error(`baseline read ${counted} lines, not ${lines}`);
    const bareHwm = procStatus(process.pid, 'VmHWM');

    t0 = process.hrtime.bigint();
    await checkSaftSchema(utf8Text(createReadStream(path, { highWaterMark: 256 * 1024 })));
    const checkS = seconds(t0);

    log('storing the file as POST /imports/saft does');
    const staged = await stageUpload(createReadStream(path), { limit: 2 ** 31, prefix: 'tlr-saft-' });
    t0 = process.hrtime.bigint();
    const { view } = await db.prisma.$transaction(
      (tx) =>
        createSaftImport(tx as Db, { companyId, livemode: true }, { file: staged, fileName: 'saft.xml', requestedBy: { type: 'api_key', id: sender.id } }),
      {
        timeout: 600_000,
      },
    );
    const storeS = seconds(t0);
    await staged.discard();

    log('running the import-saft job (check + import)');
    const cpuMs = cpuMeter(db.pool);
    const cpu0 = await cpuMs();
    t0 = process.hrtime.bigint();
    const done = await cpuProfiled('saft-import', () => runSaftImport(db, view.id));
    const jobS = seconds(t0);
    const jobCpuS = ((await cpuMs()) - cpu0) / 1000;
    if (done?.status !== 'succeeded') throw new Error(`import ${done?.status}: ${JSON.stringify(done?.problem)}`);
    const peak = procStatus(process.pid, 'VmHWM');
    const rate = (s: number) => `${Math.round(lines / s).toLocaleString('en')} lines/s`;
    out.push(
      `## SAF-T import (${lines.toLocaleString('en')} journal lines, ${transactions.toLocaleString('en')} transactions, ${mib(size)} file)`,
      '',
      `- bare baseline (saxes reader only): ${bareS.toFixed(1)} s, ${rate(bareS)}; peak RSS after it ${mib(bareHwm)} (start ${mib(rssStart)})`,
      `- XSD check alone (streamed, libxml2 in batches): ${checkS.toFixed(1)} s, ${rate(checkS)}`,
      `- storing the file (1 MB pieces in import_file_chunks): ${storeS.toFixed(1)} s`,
      `- the import-saft job (spool, XSD check, import in one transaction): ${jobS.toFixed(1)} s, ${rate(jobS)}; import alone about ${rate(Math.max(0.001, jobS - checkS))}`,
      `- the job's CPU (this process and its database server processes; the wall time carries the machine's other load): ${jobCpuS.toFixed(1)} s, ${rate(jobCpuS)} of CPU`,
      `- peak RSS of the process (VmHWM) at the end: ${mib(peak)}`,
      `- PostgreSQL ${pgVersion} (synchronous_commit ${settings.sc}, fsync ${settings.fsync}, shared_buffers ${settings.sb})`,
      ...machineLines(),
    );
    process.stdout.write(out.join('\n') + '\n');
  } finally {
    await cleanups.run();
  }
}

await main();
