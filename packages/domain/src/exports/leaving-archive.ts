// The leaving archive (GET /exports/archive): one zip of the company's whole book, the SAF-T file, every
// voucher under its original name and a manifest with each entry's size and SHA-256, streamed entry by entry.
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { stagingDir } from '../files/staged-upload.ts';
import { PassThrough, Transform, type Readable, type TransformCallback, type Writable } from 'node:stream';
import { finished, pipeline } from 'node:stream/promises';
import { ZipFile } from 'yazl';
import type { Connectable, Queryable } from '@tlr/db';
import { notFound } from '../errors.ts';
import { today } from '../calendar.ts';
import { fiscalYearContaining } from '../ledger/fiscal-years.ts';
import type { VoucherStore } from '../vouchers/vouchers.ts';
import { exportSaft, SinkClosedError } from '../saft/export-saft.ts';
import { compactId, exportFilename, type SaftPeriod } from '../saft/rules.ts';

/** What the manifest calls this layout; a reader checks it before trusting the fields below. */
export const ARCHIVE_FORMAT = 'tlr-archive/1';

export interface ArchiveStart {
  company: { id: string; name: string; cvr: string | null };
  period: SaftPeriod;
  filename: string;
}

export interface ArchiveResult extends ArchiveStart {
  vouchers: number;
  /** Vouchers whose object was not in the store: listed in the manifest with an error, no bytes. */
  missing: string[];
  /** Vouchers whose stored bytes no longer match the SHA-256 recorded at upload: archived as they are, flagged. */
  altered: string[];
  /** Bytes of the entries' content (before compression). */
  bytes: number;
}

export interface ArchiveOptions {
  /** Called once, after every check that can refuse the archive and before the first byte is written. */
  onStart?: (start: ArchiveStart) => void;
  /** Aborts the work (the client disconnected); the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /** How long the output may take nothing before the archive gives up (default 60 s, as the SAF-T export). */
  stallTimeoutMs?: number;
  /** Vouchers per query (default 500). */
  voucherBatch?: number;
}

const COMPANY_SQL = `
SELECT c.id, c.name, c.cvr, c.fiscal_year_start_month,
       (SELECT to_char(min(start_date), 'YYYY-MM-DD') FROM fiscal_years WHERE company_id = c.id) AS first_year,
       (SELECT to_char(min(date), 'YYYY-MM-DD') FROM ledger_transactions WHERE company_id = c.id) AS first_posting,
       (SELECT to_char(max(date), 'YYYY-MM-DD') FROM ledger_transactions WHERE company_id = c.id) AS last_posting
FROM companies c WHERE c.id = $1`;

// Keyset over (uploaded_at, id): the order they were uploaded in, a page at a time (never all in memory).
const VOUCHERS_SQL = `
SELECT id, filename, mime_type, file_size, sha256, storage_key, transaction_id, expense_id, uploaded_at
FROM vouchers
WHERE company_id = $1 AND (uploaded_at, id) > ($2::timestamptz, $3::uuid)
ORDER BY uploaded_at, id
LIMIT $4`;

interface VoucherRow {
  id: string;
  filename: string;
  mime_type: string;
  file_size: number;
  sha256: string;
  storage_key: string;
  transaction_id: string | null;
  expense_id: string | null;
  uploaded_at: Date;
}

/**
 * The whole book (decision 360): from the first day of the company's first fiscal year (or of the
 * fiscal year of its first posting, if earlier) to the last day of the fiscal year containing today (or
 * its last posting, if later).
 */
export function wholeBookPeriod(
  c: { fiscal_year_start_month: number; first_year: string | null; first_posting: string | null; last_posting: string | null },
  day: string,
): SaftPeriod {
  const earliest = [c.first_posting, day].filter((d): d is string => d !== null).sort()[0]!;
  const fromPosting = fiscalYearContaining(earliest, c.fiscal_year_start_month).start;
  const from = c.first_year !== null && c.first_year < fromPosting ? c.first_year : fromPosting;
  const latest = c.last_posting !== null && c.last_posting > day ? c.last_posting : day;
  return { from, to: fiscalYearContaining(latest, c.fiscal_year_start_month).end };
}

/** What no name in the archive may hold: control, invisible and separator characters, and what Windows refuses. */
const UNSAFE_IN_ZIP = /[\p{Cc}\p{Cf}\u2028\u2029/\\:*?"<>|]/gu;

/**
 * A voucher's name inside its folder (decision 361): the original name, with each character that could
 * leave the folder or that an unzip tool refuses made "_", trailing dots and spaces dropped (Windows
 * drops them), and "_" for a name left empty, "." or "..".
 */
export function archiveEntryName(filename: string): string {
  const name = fitBytes(filename.replace(UNSAFE_IN_ZIP, '_').replace(/[. ]+$/, ''));
  return name === '' ? '_' : name;
}

/** The most UTF-8 bytes a file name may have on ext4 and most file systems (the original name stays in the manifest). */
export const MAX_ENTRY_NAME_BYTES = 255;

/** A name cut to MAX_ENTRY_NAME_BYTES at a character's end, its extension kept (255 CJK characters are 765 bytes). */
function fitBytes(name: string): string {
  if (Buffer.byteLength(name) <= MAX_ENTRY_NAME_BYTES) return name;
  const ext = /\.[^.\s]{1,16}$/.exec(name)?.[0] ?? '';
  const budget = MAX_ENTRY_NAME_BYTES - Buffer.byteLength(ext);
  let base = '';
  let used = 0;
  for (const ch of name.slice(0, name.length - ext.length)) {
    used += Buffer.byteLength(ch);
    if (used > budget) break;
    base += ch;
  }
  return base.replace(/[. ]+$/, '') + ext;
}

/** The path of a voucher in the archive: a folder per voucher, named as SAF-T's SourceDocumentID names it. */
export const voucherEntryPath = (voucherId: string, filename: string) => `vouchers/${compactId(voucherId)}/${archiveEntryName(filename)}`;

/** Passes bytes through, counting them and hashing them, and noting when they last moved. */
class Digest extends Transform {
  size = 0;
  private hash = createHash('sha256');
  private readonly onProgress: () => void;
  constructor(onProgress: () => void) {
    super();
    this.onProgress = onProgress;
  }
  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback) {
    this.size += chunk.length;
    this.hash.update(chunk);
    this.onProgress();
    done(null, chunk);
  }
  get sha256() {
    return this.hash.digest('hex');
  }
}

/** The manifest, written to temporary files as entries complete, so it costs no memory per voucher. */
class Manifest {
  private readonly dir: string;
  private readonly json: WriteStream;
  private readonly sums: WriteStream;
  private first = true;
  private constructor(dir: string, json: WriteStream, sums: WriteStream) {
    this.dir = dir;
    this.json = json;
    this.sums = sums;
  }

  static async open(start: ArchiveStart, createdAt: string): Promise<Manifest> {
    const dir = await stagingDir('tlr-archive-');
    const m = new Manifest(dir, createWriteStream(join(dir, 'manifest.json')), createWriteStream(join(dir, 'SHA256SUMS')));
    const head = { format: ARCHIVE_FORMAT, created_at: createdAt, company: start.company, period: start.period };
    await m.write(m.json, `${JSON.stringify(head).slice(0, -1)},"entries":[\n`);
    return m;
  }

  private async write(to: WriteStream, text: string) {
    if (!to.write(text)) await new Promise<void>((resolve) => to.once('drain', () => resolve()));
  }

  async add(entry: Record<string, unknown> & { path: string | null; sha256?: string }) {
    await this.write(this.json, `${this.first ? '' : ',\n'}${JSON.stringify(entry)}`);
    this.first = false;
    if (entry.path !== null && entry.sha256) await this.write(this.sums, `${entry.sha256}  ${entry.path}\n`);
  }

  /** Closes both files; returns their paths. */
  async close(totals: Record<string, number>): Promise<{ json: string; sums: string }> {
    this.json.end(`\n],${JSON.stringify(totals).slice(1)}\n`);
    this.sums.end();
    await Promise.all([finished(this.json), finished(this.sums)]);
    return { json: join(this.dir, 'manifest.json'), sums: join(this.dir, 'SHA256SUMS') };
  }

  async discard() {
    // A write still under way when the archive is given up (the client left) fails after the destroy:
    // that error is expected here, and unheard it would be an uncaught exception that ends the process.
    for (const stream of [this.json, this.sums]) {
      stream.on('error', () => {});
      stream.destroy();
    }
    await rm(this.dir, { recursive: true, force: true });
  }
}

/**
 * Writes the archive of a company to `out` (not ended: the caller ends it). Throws DomainError before
 * anything is written; any error after `onStart` leaves the output incomplete, and the caller must abort it.
 */
export async function exportArchive(
  pool: Connectable & Queryable,
  store: VoucherStore,
  companyId: string,
  out: Writable,
  options: ArchiveOptions = {},
): Promise<ArchiveResult> {
  const { rows } = await pool.query(COMPANY_SQL, [companyId]);
  const company = rows[0] as
    | {
        id: string;
        name: string;
        cvr: string | null;
        fiscal_year_start_month: number;
        first_year: string | null;
        first_posting: string | null;
        last_posting: string | null;
      }
    | undefined;
  if (!company) throw notFound('company', companyId);
  const period = wholeBookPeriod(company, today());
  const start: ArchiveStart = {
    company: { id: company.id, name: company.name, cvr: company.cvr },
    period,
    filename: exportFilename('archive', company, period, 'zip'),
  };

  // Every wait below ends when the caller aborts or when the output takes nothing for stallTimeoutMs.
  const abort = new AbortController();
  const onAbort = () => abort.abort(options.signal?.reason ?? new SinkClosedError());
  options.signal?.addEventListener('abort', onAbort, { once: true });
  const stallMs = options.stallTimeoutMs ?? 60_000;
  let moved = Date.now();
  const progress = () => (moved = Date.now());
  const watchdog = setInterval(
    () => {
      if (Date.now() - moved > stallMs) abort.abort(new SinkClosedError(`the output took nothing for ${stallMs} ms`));
    },
    Math.min(1000, stallMs),
  );
  watchdog.unref();

  const zip = new ZipFile();
  let manifest: Manifest | undefined;
  let current: Readable | undefined;
  /** The object opened ahead, destroyed if the archive stops before its turn. */
  let pending: Promise<Readable> | undefined;
  // What ends every wait early: the zip failing, or the abort (which also stops the entry being read).
  const stop = new Promise<never>((_, reject) => {
    zip.on('error', reject);
    abort.signal.addEventListener(
      'abort',
      () => {
        current?.destroy(abort.signal.reason as Error);
        reject(abort.signal.reason as Error);
      },
      { once: true },
    );
  });
  stop.catch(() => {});
  const unlessStopped = <T>(p: Promise<T>) => Promise.race([p, stop]);
  /** Adds one entry from `source` and resolves once the zip has taken all of it. */
  const addEntry = async (source: Readable, path: string, o: { compress: boolean; mtime?: Date }) => {
    abort.signal.throwIfAborted();
    const digest = new Digest(progress);
    current = source;
    zip.addReadStream(digest, path, { compress: o.compress, mtime: o.mtime ?? new Date() });
    await unlessStopped(pipeline(source, digest));
    await unlessStopped(finished(digest));
    current = undefined;
    return { size: digest.size, sha256: digest.sha256 };
  };

  try {
    const createdAt = new Date();
    // The SAF-T file first: its export makes the last checks (and may refuse), then the zip starts flowing.
    const saftSink = new PassThrough();
    const saftPath = `saft/${exportFilename('saft', company, period, 'xml')}`;
    const saftEntry = addEntry(saftSink, saftPath, { compress: true, mtime: createdAt });
    saftEntry.catch(() => {});
    let started = false;
    await exportSaft(pool, { companyId, ...period }, saftSink, {
      onStart: () => {
        started = true;
        options.onStart?.(start);
        zip.outputStream.pipe(out, { end: false });
        zip.outputStream.on('data', progress);
      },
    }).catch((err: unknown) => {
      saftSink.destroy();
      throw err;
    });
    if (!started) throw new Error('the SAF-T export ended without starting');
    saftSink.end();
    const saft = await saftEntry;
    manifest = await Manifest.open(start, createdAt.toISOString());
    await manifest.add({ path: saftPath, kind: 'saft', size: saft.size, sha256: saft.sha256 });

    const result: ArchiveResult = { ...start, vouchers: 0, missing: [], altered: [], bytes: saft.size };
    const batch = options.voucherBatch ?? 500;
    const opening = (key: string) => {
      const p = store.get(key);
      p.catch(() => {}); // awaited in its turn; until then (or if the archive stops first) not unhandled
      pending = p;
      return p;
    };
    let after: [Date, string] = [new Date(0), '00000000-0000-0000-0000-000000000000'];
    for (;;) {
      const page = (await pool.query(VOUCHERS_SQL, [companyId, ...after, batch])).rows as VoucherRow[];
      // The next object is opened while this one streams (one open ahead: the store's latency, an S3
      // round trip, overlaps the copy instead of adding to it).
      let ahead = page[0] && opening(page[0].storage_key);
      for (const [i, v] of page.entries()) {
        const opened = ahead!;
        ahead = page[i + 1] && opening(page[i + 1]!.storage_key);
        const about = {
          kind: 'voucher',
          voucher_id: v.id,
          filename: v.filename,
          mime_type: v.mime_type,
          uploaded_at: v.uploaded_at.toISOString(),
          transaction_id: v.transaction_id ?? '',
          expense_id: v.expense_id ?? '',
        };
        let source: Readable;
        try {
          abort.signal.throwIfAborted();
          source = await opened;
        } catch (err) {
          if ((err as Error).name !== 'ObjectNotFoundError') throw err;
          result.missing.push(v.id);
          await manifest.add({ path: null, ...about, recorded_sha256: v.sha256, error: 'the stored document was not found' });
          continue;
        }
        const path = voucherEntryPath(v.id, v.filename);
        const got = await addEntry(source, path, { compress: false, mtime: v.uploaded_at });
        const intact = got.sha256 === v.sha256 && got.size === v.file_size;
        if (!intact) result.altered.push(v.id);
        await manifest.add({
          path,
          ...about,
          size: got.size,
          sha256: got.sha256,
          ...(intact ? {} : { recorded_sha256: v.sha256, recorded_size: v.file_size, error: 'the stored bytes differ from those uploaded' }),
        });
        result.vouchers += 1;
        result.bytes += got.size;
      }
      if (page.length < batch) break;
      const last = page.at(-1)!;
      after = [last.uploaded_at, last.id];
    }

    const files = await manifest.close({ vouchers: result.vouchers, missing: result.missing.length, altered: result.altered.length });
    await addEntry(createReadStream(files.json), 'manifest.json', { compress: true, mtime: createdAt });
    await addEntry(createReadStream(files.sums), 'SHA256SUMS', { compress: true, mtime: createdAt });
    const ended = finished(zip.outputStream);
    zip.end();
    await unlessStopped(ended);
    return result;
  } catch (err) {
    throw abort.signal.aborted ? abort.signal.reason : err;
  } finally {
    clearInterval(watchdog);
    options.signal?.removeEventListener('abort', onAbort);
    zip.outputStream.unpipe(out);
    current?.destroy();
    pending?.then(
      (r) => r.destroy(),
      () => {},
    );
    await manifest?.discard();
  }
}
