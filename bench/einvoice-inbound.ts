// Inbound e-invoice benchmark: received documents imported per second through POST /einvoices/inbound
// (read, parsed, the official rules, then one transaction: the supplier, two vouchers stored, a draft
// expense, the message), next to two baselines in the same run: the same bytes uploaded as a voucher
// (POST /vouchers: what storing alone costs, no rules and no import) on the same server, and the rules
// alone in this process, one document after the other (validateEinvoice).
//
//   tsx bench/einvoice-inbound.ts     (or: npm run bench:einvoice-inbound)
//
//   a. a fresh database (DATABASE_URL's server when set, else an embedded PostgreSQL under
//      .data/bench-einvoice-pg), one company with API keys in rotation (the rate limit never refuses)
//   b. the tlr service in a child process (filesystem store in a fresh temporary folder, no worker)
//   c. BENCH_SECONDS of closed-loop imports with BENCH_CONNECTIONS connections: Peppol's example
//      invoice (base-example.xml, 2 lines and an embedded attachment added), each with a number of its own;
//      then as long of voucher uploads of the same bytes; then the rules alone here
//
// Environment (all optional): DATABASE_URL, BENCH_SECONDS (10), BENCH_CONNECTIONS (4).
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { validateEinvoice } from '@tlr/domain';
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
    const server = await spawnServer({ kind: 'tlr', databaseUrl, poolSize: 10, env: { STORAGE_DIR: dir } });
    cleanups.push(() => server.stop());
    const post = (path: string, body: string, type: string) =>
      request(`${server.url}/api/v1${path}`, {
        method: 'POST',
        headers: { 'X-API-Key': rotation.next(), 'Idempotency-Key': randomUUID(), 'Content-Type': type },
        body,
        timeoutMs: 60_000,
      });
    const sample = documentNumber('warm-up');
    log(`document: ${Buffer.byteLength(sample)} bytes; warming up (the first validation loads and may compile the rules)`);
    const warm = await post('/einvoices/inbound', sample, 'application/xml');
    if (warm.status !== 201) throw new Error(`the warm-up import answered ${warm.status}: ${warm.body.slice(0, 500)}`);

    let n = 0;
    const imports = await closedLoop(CONNECTIONS, SECONDS, async () =>
      String((await post('/einvoices/inbound', documentNumber(String(n++)), 'application/xml')).status),
    );
    const voucherBody = JSON.stringify({ filename: 'faktura.xml', mime_type: 'application/xml', content_base64: Buffer.from(sample).toString('base64') });
    const uploads = await closedLoop(CONNECTIONS, SECONDS, async () => String((await post('/vouchers', voucherBody, 'application/json')).status));
    const rulesAlone = await closedLoop(1, SECONDS, async () => String((await validateEinvoice(sample)).fatal.length ? 'fatal' : 'valid'));

    out.push(
      `PostgreSQL ${pgVersion} (synchronous_commit=${settings.sc}, fsync=${settings.fsync}); ${CONNECTIONS} connections, ${SECONDS} s per measurement; document ${Buffer.byteLength(sample)} bytes`,
      '',
      '| operation | documents/s | p50 ms | p99 ms | statuses |',
      '|---|---|---|---|---|',
      row('POST /einvoices/inbound (rules + import)', imports),
      row('baseline: POST /vouchers, the same bytes', uploads),
      row('baseline: the rules alone, in this process, 1 at a time', rulesAlone),
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
