// Bank statement import benchmark: a generated 100,000-line camt.053 file and a 100,000-line CSV file
// imported through POST /bank-accounts/{id}/statements into a running server, lines per second and the
// server process's peak RSS, next to the bare baseline in the same run: the same bytes streamed through
// the same parser in this process, without HTTP or the database.
//
//   tsx bench/bank-import.ts     (or: npm run bench:bank-import)
//
//   a. a fresh database (DATABASE_URL's server when set, else an embedded PostgreSQL under
//      .data/bench-bank-pg), one company, one bank account (DKK, 6470)
//   b. the tlr service in a child process (no worker)
//   c. the files written to a temporary folder: camt.053.001.02 with BENCH_LINES entries (each with its
//      AcctSvcrRef, a debtor or creditor, remittance text, an FI payment id on every other one) and a
//      Danske Bank CSV of as many lines (no bank reference: every identity is a hash)
//   d. per file: the baseline (parse only), then the import (one request, the body streamed from disk),
//      then the same file again (every line a duplicate); the server's RSS sampled every 50 ms during
//      each import (its peak there), and where the server's memory is before and after (V8's heap, the
//      buffers outside it, the rest: code, the e-invoice rules' threads unless EINVOICE_WARM_AT_START=false)
//
// Environment (all optional): DATABASE_URL, BENCH_LINES (100000).
import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { bankImportQuery, type BankFileParser } from '@tlr/domain';
import { parseCamt053 } from '@tlr/domain/bank/statements/camt053';
import { parseCsv } from '@tlr/domain/bank/statements/csv';
import { cleanupStack } from './cleanup.ts';
import { spawnServer } from './http.ts';
import { benchCompany, benchDatabase, machineLines, mib, procStatus, seconds } from './lib.ts';

const LINES = Number(process.env.BENCH_LINES ?? 100_000);

/** Writes `count` lines made by `line(i)` between `head` and `tail`, in chunks (the file is never in memory). */
async function writeFile(path: string, head: string, line: (i: number) => string, tail: string, count: number) {
  const out = createWriteStream(path);
  async function* chunks() {
    yield head;
    let buf = '';
    for (let i = 0; i < count; i++) {
      buf += line(i);
      if (buf.length > 256 * 1024) {
        yield buf;
        buf = '';
      }
    }
    yield buf + tail;
  }
  await pipeline(chunks(), out);
}

const amountOf = (i: number) => ((i % 9_973) + 1) * 3 + (i % 100) / 100;
const dayOf = (i: number) => {
  const d = new Date(Date.UTC(2025, 0, 1) + Math.floor((i * 365) / LINES) * 86_400_000);
  return d.toISOString().slice(0, 10);
};

function camtEntry(i: number): string {
  const credit = i % 2 === 0;
  const amount = amountOf(i).toFixed(2);
  const party = credit
    ? `<Dbtr><Nm>Kunde ${i % 5000} ApS</Nm></Dbtr><DbtrAcct><Id><IBAN>DK9520000123456789</IBAN></Id></DbtrAcct>`
    : `<Cdtr><Nm>Leverandør ${i % 3000}</Nm></Cdtr>`;
  const ref = credit ? `<Strd><CdtrRefInf><Ref>+71${String(i).padStart(14, '0')}7</Ref></CdtrRefInf></Strd>` : '';
  return `<Ntry><Amt Ccy="DKK">${amount}</Amt><CdtDbtInd>${credit ? 'CRDT' : 'DBIT'}</CdtDbtInd><Sts>BOOK</Sts><BookgDt><Dt>${dayOf(i)}</Dt></BookgDt><ValDt><Dt>${dayOf(i)}</Dt></ValDt><AcctSvcrRef>BENCH-${i}</AcctSvcrRef><NtryDtls><TxDtls><Refs><EndToEndId>E2E-${i}</EndToEndId></Refs><RltdPties>${party}</RltdPties><RmtInf><Ustrd>Faktura ${100_000 + i}</Ustrd>${ref}</RmtInf></TxDtls></NtryDtls><AddtlNtryInf>${credit ? 'Indbetaling' : 'Overførsel'}</AddtlNtryInf></Ntry>\n`;
}

function csvLine(i: number): string {
  const credit = i % 2 === 0;
  const [y, m, d] = dayOf(i).split('-');
  const amount = amountOf(i).toFixed(2).replace('.', ',');
  return `"${d}.${m}.${y}";"${credit ? `Indbetaling Kunde ${i % 5000}` : `Dankort Butik ${i % 3000}`} ${i}";"${credit ? '' : '-'}${amount}";"";"Udført";"Nej"\n`;
}

/** The parser alone, on the file from disk: lines per second. */
async function bare(path: string, parser: (source: AsyncIterable<Uint8Array>) => BankFileParser) {
  const started = process.hrtime.bigint();
  const gen = parser(createReadStream(path, { highWaterMark: 64 * 1024 }));
  let n = 0;
  let step = await gen.next();
  while (!step.done) {
    n += step.value.length;
    step = await gen.next();
  }
  return { lines: n, s: seconds(started) };
}

/** The highest RSS of process `pid` while `work` runs, sampled every 50 ms. */
async function peakDuring<T>(pid: number, work: () => Promise<T>): Promise<{ result: T; peak: number }> {
  let peak = procStatus(pid, 'VmRSS');
  const timer = setInterval(() => (peak = Math.max(peak, procStatus(pid, 'VmRSS'))), 50);
  try {
    const result = await work();
    return { result, peak: Math.max(peak, procStatus(pid, 'VmRSS')) };
  } finally {
    clearInterval(timer);
  }
}

const memoryText = (m: NodeJS.MemoryUsage) =>
  `RSS ${mib(m.rss)}: V8 heap ${mib(m.heapUsed)} used of ${mib(m.heapTotal)}, external ${mib(m.external)} (array buffers ${mib(m.arrayBuffers)}), the rest ${mib(m.rss - m.heapTotal - m.external)}`;

/** One import over HTTP with the body streamed from disk; answers the statement and the seconds. */
function upload(url: string, key: string, path: string, type: string) {
  const started = process.hrtime.bigint();
  return new Promise<{ status: number; body: string; s: number }>((resolve, reject) => {
    const req = http.request(url, {
      method: 'POST',
      headers: { 'X-API-Key': key, 'Idempotency-Key': randomUUID(), 'Content-Type': type, 'Content-Length': String(statSync(path).size) },
      timeout: 600_000,
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString(), s: seconds(started) }));
    });
    req.on('error', reject);
    createReadStream(path).pipe(req);
  });
}

async function main() {
  const log = (m: string) => process.stderr.write(`[bench] ${m}\n`);
  const cleanups = cleanupStack(log);
  const out: string[] = [];
  try {
    const { db, databaseUrl, pgVersion, settings } = await benchDatabase({
      cleanups,
      log,
      folder: 'bench-bank-pg',
      dbName: `tlr_bench_bank_${process.pid}`,
      poolSize: 2,
    });
    const { keys } = await benchCompany(db, { name: 'Bank Bench ApS', ownerEmail: 'bench-bank@example.dk', keys: 1 });
    const key = keys[0]!;
    const dir = mkdtempSync(join(tmpdir(), 'tlr-bench-bank-'));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    const camtPath = join(dir, 'statement.xml');
    const csvPath = join(dir, 'statement.csv');
    log(`writing ${LINES} lines of camt.053 and CSV`);
    await writeFile(
      camtPath,
      '<?xml version="1.0" encoding="UTF-8"?>\n<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt><GrpHdr><MsgId>BENCH</MsgId><CreDtTm>2026-01-01T06:00:00</CreDtTm></GrpHdr><Stmt><Id>BENCH-2025</Id><Acct><Id><IBAN>DK5000400440116243</IBAN></Id><Ccy>DKK</Ccy></Acct>\n',
      camtEntry,
      '</Stmt></BkToCstmrStmt></Document>\n',
      LINES,
    );
    await writeFile(csvPath, '"Dato";"Tekst";"Beløb";"Saldo";"Status";"Afstemt"\n', csvLine, '', LINES);

    const server = await spawnServer({ kind: 'tlr', databaseUrl, poolSize: 10 });
    cleanups.push(() => server.stop());
    const api = `${server.url}/api/v1`;
    const account = await new Promise<string>((resolve, reject) => {
      const req = http.request(
        `${api}/bank-accounts`,
        { method: 'POST', headers: { 'X-API-Key': key, 'Idempotency-Key': randomUUID(), 'Content-Type': 'application/json' } },
        (res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c.toString()));
          res.on('end', () => (res.statusCode === 201 ? resolve((JSON.parse(body) as { data: { id: string } }).data.id) : reject(new Error(body))));
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify({ name: 'Driftskonto', iban: 'DK5000400440116243' }));
    });
    const idle = procStatus(server.pid, 'VmRSS');
    const idleMemory = await server.memory();
    log(`server idle RSS ${mib(idle)}; ${memoryText(idleMemory)}`);
    const memories: string[] = [`idle: ${memoryText(idleMemory)}`];

    const rows: string[] = [];
    const files = [
      {
        what: 'camt.053.001.02',
        path: camtPath,
        type: 'application/xml',
        parse: (s: AsyncIterable<Uint8Array>) => parseCamt053(s, { currency: 'DKK', account: { iban: '', bban: '' } }),
      },
      {
        what: 'CSV (danske_bank)',
        path: csvPath,
        type: 'text/csv',
        parse: (s: AsyncIterable<Uint8Array>) => parseCsv(s, bankImportQuery.parse({}), { utf8: true, currency: 'DKK' }),
      },
    ];
    for (const f of files) {
      const size = statSync(f.path).size;
      const base = await bare(f.path, f.parse);
      log(`${f.what}: baseline ${Math.round(base.lines / base.s)} lines/s; importing`);
      const { result: first, peak: during } = await peakDuring(server.pid, () => upload(`${api}/bank-accounts/${account}/statements`, key, f.path, f.type));
      if (first.status !== 201) throw new Error(`${f.what} import answered ${first.status}: ${first.body.slice(0, 500)}`);
      const peakAfterFirst = procStatus(server.pid, 'VmHWM');
      memories.push(`after the ${f.what} import: ${memoryText(await server.memory())}`);
      const again = await upload(`${api}/bank-accounts/${account}/statements`, key, f.path, f.type);
      if (again.status !== 201) throw new Error(`${f.what} re-import answered ${again.status}: ${again.body.slice(0, 500)}`);
      const a = (JSON.parse(first.body) as { data: { lines: { total: number; new: number } } }).data.lines;
      const b = (JSON.parse(again.body) as { data: { lines: { duplicates: number } } }).data.lines;
      rows.push(
        `| ${f.what}, ${mib(size)} | ${Math.round(base.lines / base.s)} | ${Math.round(a.total / first.s)} (${first.s.toFixed(1)} s, ${a.new} new) | ${Math.round(a.total / again.s)} (${again.s.toFixed(1)} s, ${b.duplicates} duplicates) | ${mib(during)} | ${mib(peakAfterFirst)} |`,
      );
    }
    const peak = procStatus(server.pid, 'VmHWM');
    out.push(
      `PostgreSQL ${pgVersion} (synchronous_commit=${settings.sc}, fsync=${settings.fsync}); ${LINES} lines per file; one import at a time; server idle RSS ${mib(idle)}, peak RSS over the run ${mib(peak)}`,
      '',
      '| file | baseline: parse only, lines/s | import, lines/s | the same file again (all duplicates), lines/s | server peak RSS during the import (sampled) | server peak RSS so far (VmHWM) |',
      '|---|---|---|---|---|---|',
      ...rows,
      '',
      ...memories.map((m) => `- ${m}`),
      '',
      ...machineLines(),
    );
    process.stdout.write(`${out.join('\n')}\n`);
  } finally {
    await cleanups.run();
  }
}

await main();
