// Inbound e-invoice benchmark: received documents imported per second through POST /einvoices/inbound
// (read, parsed, the official rules, then one transaction: the supplier, two vouchers stored, a draft
// expense, the message), for each syntax (Peppol BIS 3 UBL, OIOUBL 2.1, EN 16931 CII, a Factur-X PDF),
// each next to its bare validation in the same run (its rules alone, in this process, one document after
// the other: validateEinvoice), and the same Peppol bytes uploaded as a voucher (POST /vouchers: what
// storing alone costs, no rules and no import) on the same server.
//
//   tsx bench/einvoice-inbound.ts     (or: npm run bench:einvoice-inbound)
//
//   a. a fresh database (DATABASE_URL's server when set, else an embedded PostgreSQL under
//      .data/bench-einvoice-pg), one company with API keys in rotation (the rate limit never refuses)
//   b. the tlr service in a child process (filesystem store in a fresh temporary folder, no worker)
//   c. per syntax, BENCH_SECONDS of closed-loop imports with BENCH_CONNECTIONS connections, each document
//      with a number of its own: Peppol's example invoice (base-example.xml, an embedded attachment added),
//      the OIOUBL package's invoice, CEN's CII example 3, and that CII in a Factur-X PDF made here; then as
//      long of its rules alone here; then as long of voucher uploads of the Peppol bytes
//
// Environment (all optional): DATABASE_URL, BENCH_SECONDS (10), BENCH_CONNECTIONS (4).
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import PDFDocument from 'pdfkit';
import { validateEinvoice, type RuleSet } from '@tlr/domain';
import { cleanupStack } from './cleanup.ts';
import { spawnServer } from './http.ts';
import { agent, benchCompany, benchDatabase, closedLoop, Keys, machineLines, ms, percentile, request, statusText, type LoadResult } from './lib.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 4);
const EXAMPLE = readFileSync(join(import.meta.dirname, '..', 'packages', 'domain', 'src', 'einvoice', 'examples', 'base-example.xml'), 'utf8');
// A 20 kB PDF-like attachment, as a supplier's e-invoice usually embeds its PDF (the example has a reference only).
const ATTACHMENT = `<cac:AdditionalDocumentReference><cbc:ID>faktura.pdf</cbc:ID><cac:Attachment><cbc:EmbeddedDocumentBinaryObject mimeCode="application/pdf" filename="faktura.pdf">${Buffer.alloc(20_000, '%PDF-1.4 bench ').toString('base64')}</cbc:EmbeddedDocumentBinaryObject></cac:Attachment></cac:AdditionalDocumentReference>`;

/** Document `n`: the example with number BENCH-<n> and the attachment (placed where UBL's order puts it). */
const documentNumber = (n: string) =>
  EXAMPLE.replace('<cbc:ID>Snippet1</cbc:ID>', `<cbc:ID>BENCH-${n}</cbc:ID>`).replace(
    '<cac:AccountingSupplierParty>',
    `${ATTACHMENT}<cac:AccountingSupplierParty>`,
  );

const REFERENCE = [join(import.meta.dirname, '..', '..', 'shared', 'reference'), '/work/shared/reference'].find(existsSync) ?? '';
const OIOUBL = REFERENCE && readFileSync(join(REFERENCE, 'einvoice', 'oioubl', 'examples', 'OIOUBL_Invoice_v2p2.xml'), 'utf8');
const CII = REFERENCE && readFileSync(join(REFERENCE, 'einvoice', 'cii', 'examples', 'CII_example3.xml'), 'utf8');

/** A PDF with `xml` embedded as Factur-X does. */
async function facturX(xml: string): Promise<Buffer> {
  const doc = new PDFDocument();
  const parts: Buffer[] = [];
  doc.on('data', (b: Buffer) => parts.push(b));
  const done = new Promise<void>((resolve) => doc.on('end', () => resolve()));
  doc.text('Faktura');
  doc.file(Buffer.from(xml, 'utf8'), { name: 'factur-x.xml', type: 'text/xml' });
  doc.end();
  await done;
  return Buffer.concat(parts);
}

interface Syntax {
  name: string;
  set: RuleSet;
  type: string;
  /** Document `n`'s body, and its XML (what the rules read). */
  make(n: string): Promise<{ body: string | Buffer; xml: string }>;
}

const SYNTAXES: Syntax[] = [
  { name: 'Peppol BIS 3 (UBL)', set: 'peppol', type: 'application/xml', make: async (n) => ({ body: documentNumber(n), xml: documentNumber(n) }) },
  ...(REFERENCE
    ? ([
        {
          name: 'OIOUBL 2.1',
          set: 'oioubl-invoice',
          type: 'application/xml',
          make: async (n: string) => {
            const xml = OIOUBL.replace('<cbc:ID>A00095678</cbc:ID>', `<cbc:ID>BENCH-${n}</cbc:ID>`);
            return { body: xml, xml };
          },
        },
        {
          name: 'EN 16931 CII',
          set: 'cen-cii',
          type: 'application/xml',
          make: async (n: string) => {
            const xml = CII.replace('<ram:ID>TOSL108</ram:ID>', `<ram:ID>BENCH-${n}</ram:ID>`);
            return { body: xml, xml };
          },
        },
        {
          name: 'Factur-X PDF (CII)',
          set: 'cen-cii',
          type: 'application/pdf',
          make: async (n: string) => {
            const xml = CII.replace('<ram:ID>TOSL108</ram:ID>', `<ram:ID>BENCH-PDF-${n}</ram:ID>`);
            return { body: await facturX(xml), xml };
          },
        },
      ] satisfies Syntax[])
    : []),
];

const row = (what: string, r: LoadResult) =>
  `| ${what} | ${(r.requests / r.seconds).toFixed(1)} | ${ms(percentile(r.latencies, 50))} | ${ms(percentile(r.latencies, 99))} | ${statusText(r.statuses)} |`;

async function main() {
  const log = (m: string) => process.stderr.write(`[bench] ${m}\n`);
  const cleanups = cleanupStack(log);
  const out: string[] = [];
  try {
    const { db, databaseUrl, pgVersion, settings } = await benchDatabase({
      cleanups,
      log,
      folder: 'bench-einvoice-pg',
      dbName: `tlr_bench_einvoice_${process.pid}`,
      poolSize: 4,
    });
    const { keys } = await benchCompany(db, { name: 'E-faktura Bench ApS', ownerEmail: 'bench-einvoice@example.dk', keys: 100 });
    const rotation = new Keys(keys);
    const dir = mkdtempSync(join(tmpdir(), 'tlr-bench-einvoice-'));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    const server = await spawnServer({ kind: 'tlr', databaseUrl, poolSize: 10, env: { STORAGE_DIR: dir, EINVOICE_WARM_AT_START: 'true' } });
    cleanups.push(() => server.stop());
    const post = (path: string, body: string | Buffer, type: string) =>
      request(`${server.url}/api/v1${path}`, {
        method: 'POST',
        headers: { 'X-API-Key': rotation.next(), 'Idempotency-Key': randomUUID(), 'Content-Type': type },
        body,
        timeoutMs: 60_000,
      });
    const sample = documentNumber('warm-up');
    const rows: string[] = [];
    const firsts: string[] = [];
    // Warm from the start: the server loads the rules as it starts (EINVOICE_WARM_AT_START), and /readyz
    // says when it is done (einvoice_rules); then the first document of each syntax is timed.
    for (const t0 = Date.now(); ;) {
      const ready = JSON.parse((await request(`${server.url}/readyz`, {})).body) as { einvoice_rules?: string };
      if (ready.einvoice_rules === 'loaded') break;
      if (ready.einvoice_rules !== 'loading' || Date.now() - t0 > 600_000) throw new Error(`the rules did not load: ${JSON.stringify(ready)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    log('the service has loaded the rules');
    for (const syntax of SYNTAXES) {
      const warmUp = await syntax.make('warm-up');
      log(`${syntax.name}: ${Buffer.byteLength(warmUp.body)} bytes; warming up (the service loaded the rules as it started)`);
      const t0 = process.hrtime.bigint();
      const warm = await post('/einvoices/inbound', warmUp.body, syntax.type);
      const first = Number(process.hrtime.bigint() - t0) / 1e6;
      if (warm.status !== 201) throw new Error(`the ${syntax.name} warm-up import answered ${warm.status}: ${warm.body.slice(0, 500)}`);
      firsts.push(`${syntax.name} ${first.toFixed(0)} ms`);
      // This process's own pool loads its rules before its baseline is timed, as the server did at its start.
      await validateEinvoice(warmUp.xml, syntax.set);
      // The bodies are made before the measurement (a PDF takes pdfkit's time, which is not the import's).
      const bodies = await Promise.all(Array.from({ length: 64 }, (_, i) => syntax.make(`pre-${i}`)));
      let n = 0;
      const imports = await closedLoop(CONNECTIONS, SECONDS, async () => {
        const i = n++;
        const body = i < bodies.length ? bodies[i]!.body : (await syntax.make(String(i))).body;
        return String((await post('/einvoices/inbound', body, syntax.type)).status);
      });
      const rulesAlone = await closedLoop(1, SECONDS, async () => String((await validateEinvoice(warmUp.xml, syntax.set)).fatal.length ? 'fatal' : 'valid'));
      rows.push(row(`${syntax.name}: POST /einvoices/inbound (rules + import), ${Buffer.byteLength(warmUp.body)} bytes`, imports));
      rows.push(row(`${syntax.name}: baseline, its rules alone, in this process, 1 at a time`, rulesAlone));
    }
    const voucherBody = JSON.stringify({ filename: 'faktura.xml', mime_type: 'application/xml', content_base64: Buffer.from(sample).toString('base64') });
    const uploads = await closedLoop(CONNECTIONS, SECONDS, async () => String((await post('/vouchers', voucherBody, 'application/json')).status));

    out.push(
      `PostgreSQL ${pgVersion} (synchronous_commit=${settings.sc}, fsync=${settings.fsync}); ${CONNECTIONS} connections, ${SECONDS} s per measurement`,
      '',
      '| operation | documents/s | p50 ms | p99 ms | statuses |',
      '|---|---|---|---|---|',
      ...rows,
      row('baseline: POST /vouchers, the Peppol bytes', uploads),
      '',
      `first import of each syntax after the start: ${firsts.join(', ')}`,
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
