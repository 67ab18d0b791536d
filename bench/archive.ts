// Archive export benchmark: the leaving archive (GET /exports/archive's exportArchive) of a company with
// BENCH_VOUCHERS vouchers, MB/s and this process's peak RSS, next to the bare baseline in the same run:
// the same objects read from the same store one at a time, in the same order, without zipping or hashing.
//
//   tsx bench/archive.ts     (or: npm run bench:archive)
//
//   a. a fresh database (DATABASE_URL's server when set, else an embedded PostgreSQL under
//      .data/bench-archive-pg), one company
//   b. a filesystem voucher store in a temporary folder with BENCH_VOUCHERS objects of BENCH_VOUCHER_KB
//      random bytes (incompressible, as PDFs and photos are) and their voucher rows
//   c. baseline (read every object to a sink that discards), archive (to a sink that counts and
//      discards), baseline again: the first read warms the page cache, so both measured runs read from it
//
// Environment (all optional): DATABASE_URL, BENCH_VOUCHERS (2000), BENCH_VOUCHER_KB (64).
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { exportArchive, storageKey } from '@tlr/domain';
import { FilesystemStore } from '@tlr/storage';
import { cleanupStack } from './cleanup.ts';
import { benchCompany, benchDatabase, machineLines, mib, seconds } from './lib.ts';

const VOUCHERS = Number(process.env.BENCH_VOUCHERS ?? 2000);
const KB = Number(process.env.BENCH_VOUCHER_KB ?? 64);

/** A sink that takes everything at once and counts it. */
const discard = () => {
  const sink = Object.assign(
    new Writable({
      write(chunk: Buffer, _enc, done) {
        sink.bytes += chunk.length;
        done();
      },
    }),
    { bytes: 0 },
  );
  return sink;
};

/** Samples this process's RSS while `run` runs; answers its result and the peak. */
async function withPeakRss<T>(run: () => Promise<T>): Promise<{ result: T; peak: number }> {
  let peak = process.memoryUsage.rss();
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 20);
  try {
    return { result: await run(), peak };
  } finally {
    clearInterval(timer);
  }
}

async function main() {
  const log = (m: string) => process.stderr.write(`[bench] ${m}\n`);
  const cleanups = cleanupStack(log);
  try {
    const { db, pgVersion } = await benchDatabase({
      cleanups,
      log,
      folder: 'bench-archive-pg',
      dbName: `tlr_bench_archive_${process.pid}`,
      poolSize: 4,
    });
    const { companyId } = await benchCompany(db, { name: 'Arkiv Bench ApS', ownerEmail: 'bench-archive@example.dk', keys: 0 });
    const dir = mkdtempSync(join(tmpdir(), 'tlr-bench-archive-'));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    const store = new FilesystemStore(join(dir, 'store'));

    log(`writing ${VOUCHERS} vouchers of ${KB} KiB`);
    const source = join(dir, 'source');
    const keys: string[] = [];
    const rows: unknown[][] = [];
    for (let i = 0; i < VOUCHERS; i++) {
      const bytes = randomBytes(KB * 1024);
      writeFileSync(source, bytes);
      const id = randomUUID();
      const filename = `bilag-${i}.pdf`;
      const key = storageKey(companyId, id, filename);
      const sha256 = createHash('sha256').update(bytes).digest('hex');
      await store.putFile(key, source, { size: bytes.length, contentType: 'application/pdf', sha256 });
      keys.push(key);
      rows.push([id, filename, bytes.length, sha256, key, new Date(Date.UTC(2026, 0, 1) + i * 1000)]);
    }
    for (let i = 0; i < rows.length; i += 500) {
      const batch = rows.slice(i, i + 500);
      await db.pool.query(
        `INSERT INTO vouchers (id, company_id, filename, mime_type, file_size, sha256, storage_key, status, uploaded_at)
         SELECT v.id, $1, v.filename, 'application/pdf', v.file_size, v.sha256, v.storage_key, 'completed', v.uploaded_at
         FROM jsonb_to_recordset($2::jsonb) AS v(id uuid, filename text, file_size int, sha256 text, storage_key text, uploaded_at timestamptz)`,
        [
          companyId,
          JSON.stringify(
            batch.map(([id, filename, file_size, sha256, storage_key, uploaded_at]) => ({ id, filename, file_size, sha256, storage_key, uploaded_at })),
          ),
        ],
      );
    }
    const total = VOUCHERS * KB * 1024;

    const baseline = async () => {
      const started = process.hrtime.bigint();
      let bytes = 0;
      for (const key of keys) {
        const sink = discard();
        await pipeline(await store.get(key), sink);
        bytes += sink.bytes;
      }
      return { s: seconds(started), bytes };
    };
    const archive = async () => {
      const started = process.hrtime.bigint();
      const sink = discard();
      const result = await exportArchive(db.pool, store, companyId, sink);
      if (result.vouchers !== VOUCHERS || result.missing.length || result.altered.length) throw new Error(`archive incomplete: ${JSON.stringify(result)}`);
      return { s: seconds(started), bytes: sink.bytes };
    };

    log('baseline (warm-up)');
    await baseline();
    log('baseline');
    const base = await withPeakRss(baseline);
    log('archive');
    const arch = await withPeakRss(archive);
    log('baseline again');
    const base2 = await withPeakRss(baseline);
    const rate = (r: { s: number }) => (total / 2 ** 20 / r.s).toFixed(0);
    process.stdout.write(
      [
        `PostgreSQL ${pgVersion}; filesystem store; ${VOUCHERS} vouchers of ${KB} KiB random bytes (${mib(total)}); in process, to a sink that discards`,
        '',
        '| run | seconds | voucher MiB/s | bytes out | peak RSS |',
        '|---|---|---|---|---|',
        `| baseline: read each object, discard | ${base.result.s.toFixed(2)} | ${rate(base.result)} | ${mib(base.result.bytes)} | ${mib(base.peak)} |`,
        `| archive: SAF-T + vouchers + manifests, zipped and hashed | ${arch.result.s.toFixed(2)} | ${rate(arch.result)} | ${mib(arch.result.bytes)} | ${mib(arch.peak)} |`,
        `| baseline again | ${base2.result.s.toFixed(2)} | ${rate(base2.result)} | ${mib(base2.result.bytes)} | ${mib(base2.peak)} |`,
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
