// Hostile files benchmark: the hostile set sent to a running server through HTTP, one at a
// time and then four at once, with the server process's RSS while each is read next to its RSS at rest
// just before (and the bare baseline of the run), the server's CPU time, the answer each got, and the
// slowest /healthz meanwhile.
//
//   tsx bench/hostile.ts     (or: npm run bench:hostile)
//
//   a. a fresh database (DATABASE_URL's server when set, else an embedded PostgreSQL under
//      .data/bench-hostile-pg), one company, one bank account
//   b. the tlr service in a child process, with its worker (a long e-invoice is imported by a job:
//      decision 491), BENCH_HOSTILE_THREADS validation threads (unset: the server's default)
//   c. the set, generated as it is sent (nothing on disk): a CSV with one quoted field of BENCH_HOSTILE_MIB,
//      a CSV header of as many bytes without a line end, as many bytes of ";" on one line, a CSV with a
//      NUL, a camt.053 nested 30,000 deep, a camt.053 whose amounts sum beyond the largest amount, an
//      e-invoice with <cbc:Percent>abc</cbc:Percent>, an e-invoice nested 10,000 deep
//   d. each alone (RSS sampled every 20 ms from /proc), then the four large ones at once
//   e. large real documents, each alone within the server's own request deadline (20 s): e-invoices of
//      BENCH_HOSTILE_LINES lines, one with BENCH_HOSTILE_ATTACHMENTS embedded 20 kB attachments, and a
//      statement of BENCH_HOSTILE_ENTRIES entries as camt.053 and as CSV; the answer and the time each took
//      (a 202's import polled to its end: the time to it, and what it ended as)
//
// Aim: under 600 MB while any one file is read, under 1 GB with four at once; the real documents read
// well within the deadline.
// Environment (all optional): DATABASE_URL, BENCH_HOSTILE_MIB (150), BENCH_HOSTILE_LINES (100,1000,3000,10000),
// BENCH_HOSTILE_ATTACHMENTS (200), BENCH_HOSTILE_ENTRIES (100000), BENCH_HOSTILE_THREADS (the server's
// EINVOICE_VALIDATION_THREADS), BENCH_HOSTILE_SKIP_SET (1: only the real documents).
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { cleanupStack } from './cleanup.ts';
import { spawnServer } from './http.ts';
import { benchCompany, benchDatabase, machineLines, mib, procStatus } from './lib.ts';

const MiB = 2 ** 20;
const SIZE = Number(process.env.BENCH_HOSTILE_MIB ?? 150) * MiB;
const LINES = (process.env.BENCH_HOSTILE_LINES ?? '100,1000,3000,10000').split(',').filter(Boolean).map(Number);
const THREADS = process.env.BENCH_HOSTILE_THREADS;
const SKIP_SET = process.env.BENCH_HOSTILE_SKIP_SET === '1';
const ATTACHMENTS = Number(process.env.BENCH_HOSTILE_ATTACHMENTS ?? 200);
const ENTRIES = Number(process.env.BENCH_HOSTILE_ENTRIES ?? 100_000);
const EINVOICE = readFileSync(join(import.meta.dirname, '..', 'packages', 'domain', 'src', 'einvoice', 'examples', 'base-example.xml'), 'utf8');

/** `size` bytes of `unit` repeated, in 1 MiB parts. */
function* repeat(unit: string, size: number): Generator<Buffer> {
  const part = Buffer.from(unit.repeat(Math.ceil(MiB / unit.length)).slice(0, MiB));
  let sent = 0;
  for (; sent + part.length <= size; sent += part.length) yield part;
  if (size > sent) yield part.subarray(0, size - sent);
}

const camt = (inner: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt><GrpHdr><MsgId>1</MsgId></GrpHdr><Stmt><Id>S-${randomUUID()}</Id>${inner}</Stmt></BkToCstmrStmt></Document>`;
const entry = (amount: string, i: number) =>
  `<Ntry><Amt Ccy="DKK">${amount}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts><BookgDt><Dt>2026-03-01</Dt></BookgDt><AcctSvcrRef>R${i}</AcctSvcrRef></Ntry>`;
const CSV_HEAD = 'Dato;Tekst;Beløb;Saldo;Status;Afstemt\n01-03-2026;Løn;100,00;1.100,00;;\n';

/**
 * A valid e-invoice of `lines` lines (the example's first line repeated, its totals made to agree) and
 * `attachments` embedded attachments of 20 kB, numbered `number`.
 */
function largeEinvoice(number: string, lines: number, attachments = 0): string {
  const line = /<cac:InvoiceLine>[\s\S]*?<\/cac:InvoiceLine>/.exec(EINVOICE)![0];
  const body = Array.from({ length: lines }, (_, i) => line.replace(/<cbc:ID>\d+<\/cbc:ID>/, `<cbc:ID>${i + 1}</cbc:ID>`)).join('\n');
  const attached = Array.from(
    { length: attachments },
    (_, i) =>
      `<cac:AdditionalDocumentReference><cbc:ID>bilag-${i + 1}</cbc:ID><cac:Attachment><cbc:EmbeddedDocumentBinaryObject mimeCode="application/pdf" filename="bilag-${i + 1}.pdf">${Buffer.alloc(20_000, `%PDF-1.4 bilag ${i + 1} `).toString('base64')}</cbc:EmbeddedDocumentBinaryObject></cac:Attachment></cac:AdditionalDocumentReference>`,
  ).join('');
  // Whole euros times 100 and a quarter of them: exact in a double, written with øre.
  const net = 2800 * lines;
  const taxable = net + 25;
  const f = (x: number) => x.toFixed(2);
  return EINVOICE.replace('<cbc:ID>Snippet1</cbc:ID>', `<cbc:ID>${number}</cbc:ID>`)
    .replace(/<cac:InvoiceLine>[\s\S]*<\/cac:InvoiceLine>/, body)
    .replace('<cac:AccountingSupplierParty>', `${attached}<cac:AccountingSupplierParty>`)
    .replaceAll('>331.25<', `>${f(taxable / 4)}<`)
    .replace('<cbc:TaxableAmount currencyID="EUR">1325<', `<cbc:TaxableAmount currencyID="EUR">${f(taxable)}<`)
    .replace('<cbc:LineExtensionAmount currencyID="EUR">1300<', `<cbc:LineExtensionAmount currencyID="EUR">${f(net)}<`)
    .replace('<cbc:TaxExclusiveAmount currencyID="EUR">1325<', `<cbc:TaxExclusiveAmount currencyID="EUR">${f(taxable)}<`)
    .replaceAll('>1656.25<', `>${f(taxable * 1.25)}<`);
}

/** Kroner as a Danish bank's CSV writes them: 1.234,00. */
const danish = (kroner: number) => `${kroner.toLocaleString('da-DK', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;

/** A statement of `entries` entries of 1 kr (camt.053, or CSV with its running balance), in parts. */
function* largeStatement(format: 'camt' | 'csv', entries: number): Generator<string> {
  const batch = 1_000;
  if (format === 'csv') yield 'Dato;Tekst;Beløb;Saldo;Status;Afstemt\n';
  else yield camt('').replace(/<\/Stmt>[\s\S]*$/, '');
  for (let from = 0; from < entries; from += batch) {
    const part: string[] = [];
    for (let i = from; i < Math.min(entries, from + batch); i++)
      part.push(format === 'csv' ? `01-03-2026;Indbetaling ${i + 1};1,00;${danish(1_001 + i)};;\n` : entry('1.00', i));
    yield part.join('');
  }
  if (format === 'camt') yield '</Stmt></BkToCstmrStmt></Document>';
}

interface Hostile {
  what: string;
  route: 'statements' | 'einvoice';
  type: string;
  body: () => Iterable<string | Buffer>;
  large: boolean;
}

const SET: Hostile[] = [
  {
    what: `CSV, one quoted field of ${mib(SIZE)}`,
    route: 'statements',
    type: 'text/csv',
    large: true,
    body: () => [CSV_HEAD, '02-03-2026;"', ...repeat('x', SIZE), '";1,00;;;\n'],
  },
  { what: `CSV, a header of ${mib(SIZE)} without a line end`, route: 'statements', type: 'text/csv', large: true, body: () => repeat('Dato', SIZE) },
  { what: `CSV, ${mib(SIZE)} of ";" on one line`, route: 'statements', type: 'text/csv', large: true, body: () => [CSV_HEAD, ...repeat(';', SIZE)] },
  { what: 'CSV, a NUL in a text', route: 'statements', type: 'text/csv', large: false, body: () => [CSV_HEAD, '02-03-2026;Geb\u0000yr;-10,00;1.090,00;;\n'] },
  {
    what: 'camt.053 nested 30,000 deep',
    route: 'statements',
    type: 'application/xml',
    large: true,
    body: () => [camt(`<Ntry>${'<AddtlNtryInf>'.repeat(30_000)}${'</AddtlNtryInf>'.repeat(30_000)}</Ntry>`)],
  },
  {
    what: 'camt.053, amounts summing beyond 999999999999999.99',
    route: 'statements',
    type: 'application/xml',
    large: false,
    body: () => [camt(Array.from({ length: 11 }, (_, i) => entry('999999999999999.99', i)).join(''))],
  },
  {
    what: 'e-invoice, <cbc:Percent>abc</cbc:Percent>',
    route: 'einvoice',
    type: 'application/xml',
    large: false,
    body: () => [EINVOICE.replace(/<cbc:Percent>[^<]*<\/cbc:Percent>/, '<cbc:Percent>abc</cbc:Percent>')],
  },
  {
    what: 'e-invoice nested 10,000 deep',
    route: 'einvoice',
    type: 'application/xml',
    large: false,
    body: () => [EINVOICE.replace('<cbc:Note>', `${'<cbc:Note>'.repeat(10_000)}${'</cbc:Note>'.repeat(9_999)}<cbc:Note>`)],
  },
];

/** CPU time (user and system, every thread) of a process so far, in ms, from /proc. */
function procCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  // utime and stime are fields 14 and 15 of stat, in clock ticks (100 a second on Linux).
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** A POST's answer: the status and the problem's code, and a 202's Location. */
interface Sent {
  answer: string;
  location?: string;
}

/** POSTs a body made as it is sent; answers the status and the problem's code (and a 202's Location). */
function send(url: string, key: string, type: string, body: Iterable<string | Buffer>): Promise<Sent> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers: { 'X-API-Key': key, 'Idempotency-Key': randomUUID(), 'Content-Type': type }, timeout: 600_000 });
    req.on('response', (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => {
        let code = '';
        try {
          code = (JSON.parse(text) as { code?: string }).code ?? '';
        } catch {
          // not JSON: the status says enough
        }
        const location = res.headers.location;
        resolve({ answer: `${res.statusCode}${code ? ` ${code}` : ''}`, ...(location ? { location } : {}) });
      });
    });
    req.on('error', (e: NodeJS.ErrnoException) => (['EPIPE', 'ECONNRESET'].includes(e.code ?? '') ? resolve({ answer: 'connection closed' }) : reject(e)));
    const parts = body[Symbol.iterator]();
    const more = () => {
      for (;;) {
        if (req.destroyed) return;
        const next = parts.next();
        if (next.done) return void req.end();
        if (!req.write(next.value)) return void req.once('drain', more);
      }
    };
    more();
  });
}

/** Runs `work` while sampling the server's RSS and /healthz: the RSS at rest before, the peak RSS, the server's CPU time and the slowest health check. */
async function watched<T>(
  pid: number,
  base: string,
  work: () => Promise<T>,
): Promise<{ result: T; rest: number; peak: number; cpuMs: number; health: number }> {
  const rest = procStatus(pid, 'VmRSS');
  const cpu = procCpuMs(pid);
  let peak = rest;
  let health = 0;
  let done = false;
  const sampler = setInterval(() => (peak = Math.max(peak, procStatus(pid, 'VmRSS'))), 20);
  const checks = (async () => {
    while (!done) {
      const started = Date.now();
      await fetch(`${base}/healthz`).then((r) => r.arrayBuffer());
      health = Math.max(health, Date.now() - started);
      await new Promise((r) => setTimeout(r, 200));
    }
  })();
  try {
    const result = await work();
    return { result, rest, peak, cpuMs: procCpuMs(pid) - cpu, health };
  } finally {
    done = true;
    clearInterval(sampler);
    await checks;
  }
}

async function main() {
  const log = (m: string) => process.stderr.write(`[bench] ${m}\n`);
  const cleanups = cleanupStack(log);
  try {
    const { db, databaseUrl, pgVersion } = await benchDatabase({
      cleanups,
      log,
      folder: 'bench-hostile-pg',
      dbName: `tlr_bench_hostile_${process.pid}`,
      poolSize: 2,
    });
    const { keys } = await benchCompany(db, { name: 'Hostile Bench ApS', ownerEmail: 'bench-hostile@example.dk', keys: 1 });
    const key = keys[0]!;
    // With its worker: a long e-invoice is imported by the import-einvoice job (decision 491).
    const server = await spawnServer({
      kind: 'tlr',
      databaseUrl,
      poolSize: 10,
      env: { RUN_WORKER: 'true', ...(THREADS ? { EINVOICE_VALIDATION_THREADS: THREADS } : {}) },
    });
    cleanups.push(() => server.stop());
    const api = `${server.url}/api/v1`;
    const account = await fetch(`${api}/bank-accounts`, {
      method: 'POST',
      headers: { 'X-API-Key': key, 'Idempotency-Key': randomUUID(), 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Drift' }),
    }).then(async (r) => ((await r.json()) as { data: { id: string } }).data.id);
    const urlOf = (h: Hostile) => (h.route === 'statements' ? `${api}/bank-accounts/${account}/statements` : `${api}/einvoices/inbound`);
    // Warm: the e-invoice rules loaded, so that what is measured is the files.
    await send(`${api}/einvoices/inbound`, key, 'application/xml', [EINVOICE]);
    const rest = procStatus(server.pid, 'VmRSS');
    log(`server RSS at rest ${mib(rest)}`);

    const rows: string[] = [];
    const cpu = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
    for (const h of SKIP_SET ? [] : SET) {
      log(h.what);
      const seen = await watched(server.pid, server.url, () => send(urlOf(h), key, h.type, h.body()));
      log(`  ${seen.result.answer}, rest ${mib(seen.rest)}, peak ${mib(seen.peak)}, CPU ${cpu(seen.cpuMs)}`);
      rows.push(`| ${h.what} | ${seen.result.answer} | ${mib(seen.rest)} | ${mib(seen.peak)} | ${cpu(seen.cpuMs)} | ${seen.health} ms |`);
    }
    const large = SET.filter((h) => h.large).slice(0, 4);
    if (!SKIP_SET) {
      log(`${large.length} at once`);
      const together = await watched(server.pid, server.url, () => Promise.all(large.map((h) => send(urlOf(h), key, h.type, h.body()))));
      rows.push(
        `| the ${large.length} large ones at once | ${together.result.map((r) => r.answer).join(', ')} | ${mib(together.rest)} | ${mib(together.peak)} | ${cpu(together.cpuMs)} | ${together.health} ms |`,
      );
    }

    // Large real documents, one at a time, within the server's own deadline.
    const real: { what: string; url: string; type: string; body: () => Iterable<string | Buffer> }[] = [
      ...LINES.map((n) => ({
        what: `e-invoice of ${n.toLocaleString('en')} lines`,
        url: `${api}/einvoices/inbound`,
        type: 'application/xml',
        body: () => [largeEinvoice(`LINES-${n}-${randomUUID()}`, n)],
      })),
      ...(ATTACHMENTS
        ? [
            {
              what: `e-invoice with ${ATTACHMENTS} attachments of 20 kB`,
              url: `${api}/einvoices/inbound`,
              type: 'application/xml',
              body: () => [largeEinvoice(`ATTACHED-${randomUUID()}`, 2, ATTACHMENTS)],
            },
          ]
        : []),
      ...(ENTRIES ? (['camt', 'csv'] as const) : []).map((format) => ({
        what: `statement of ${ENTRIES.toLocaleString('en')} entries, ${format === 'camt' ? 'camt.053' : 'CSV'}`,
        url: `${api}/bank-accounts/${account}/statements`,
        type: format === 'camt' ? 'application/xml' : 'text/csv',
        body: () => largeStatement(format, ENTRIES),
      })),
    ];
    const documents: string[] = [];
    for (const d of real) {
      log(d.what);
      const body = [...d.body()];
      const bytes = body.reduce((n, part) => n + Buffer.byteLength(part), 0);
      const started = performance.now();
      let answered = 0;
      const seen = await watched(server.pid, server.url, async () => {
        const sent = await send(d.url, key, d.type, body);
        answered = performance.now() - started;
        if (!sent.answer.startsWith('202') || !sent.location) return sent.answer;
        // A long e-invoice's import (decision 491), polled to its end.
        for (;;) {
          const r = await fetch(`${server.url}${sent.location}`, { headers: { 'X-API-Key': key } });
          // A 429 or 503 meanwhile: asked again a little later.
          const { data } = r.ok ? ((await r.json()) as { data: { status: string; problem: { code: string } | null } }) : { data: undefined };
          if (data && data.status !== 'queued' && data.status !== 'running')
            return `${sent.answer}, then ${data.status}${data.problem ? ` ${data.problem.code}` : ''}`;
          await new Promise((resolve) => setTimeout(resolve, r.ok ? 1_000 : 2_000));
        }
      });
      const total = performance.now() - started;
      log(`  ${seen.result}, ${((performance.now() - started) / 1000).toFixed(1)} s, rest ${mib(seen.rest)}, peak ${mib(seen.peak)}, CPU ${cpu(seen.cpuMs)}`);
      documents.push(
        `| ${d.what} (${mib(bytes)}) | ${seen.result} | ${(answered / 1000).toFixed(1)} s${total - answered > 1000 ? `, done after ${(total / 1000).toFixed(1)} s` : ''} | ${mib(seen.rest)} | ${mib(seen.peak)} | ${cpu(seen.cpuMs)} | ${seen.health} ms |`,
      );
    }
    process.stdout.write(
      [
        `PostgreSQL ${pgVersion}; BENCH_HOSTILE_MIB=${SIZE / MiB}; validation threads ${THREADS ?? 'the default'}; server RSS at rest (baseline) ${mib(rest)}; aim: under 600 MiB for one file, under 1 GiB for four`,
        '',
        '| file | answer | server RSS at rest before | server peak RSS while it is read | server CPU | slowest /healthz meanwhile |',
        '|---|---|---|---|---|---|',
        ...rows,
        '',
        'Large real documents, each alone, within the request deadline (REQUEST_TIMEOUT_MS, 20 s by default); a long e-invoice answered 202 and imported by the job (decision 491):',
        '',
        '| document | answer | time to the answer (and to the end of its import) | server RSS at rest before | server peak RSS | server CPU | slowest /healthz meanwhile |',
        '|---|---|---|---|---|---|---|',
        ...documents,
        '',
        ...machineLines(),
        '',
      ].join('\n'),
    );
  } finally {
    await cleanups.run();
  }
}

await main();
