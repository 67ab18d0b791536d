// The imports resource (POST /imports/saft, GET /imports, GET /imports/{id}) and the import-saft job:
// a staged upload is stored in the database in 1 MB pieces (any server's worker reads it), the job
// checks it against the XSD, then imports it in one transaction and records the outcome on the row.
// A long received e-invoice is an import too (einvoice/inbound-import.ts, decision 491), of type `einvoice`.
import { createReadStream } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { Database, Db } from '@tlr/db';
import type { CompanyScope } from '../../context.ts';
import { DomainError, notFound, problemExtensions } from '../../errors.ts';
import { timestamp } from '../../fields.ts';
import { count } from '../../integers.ts';
import { newId } from '../../ids.ts';
import { listPage, type ListParams, type ListSpec, type Page } from '../../lists/list.ts';
import { stagingDir, type StagedUpload } from '../../files/staged-upload.ts';
import { actAs } from '../../trail/actor.ts';
import { importSaftRecords } from './import-saft.ts';
import { readSaft, utf8Text } from './reader.ts';
import { checkSaftSchema } from './schema-check.ts';

/** Bytes per stored piece of the file. */
const CHUNK_BYTES = 1024 * 1024;
/** How long the import's one transaction may run (1,000,000 lines take minutes on a shared machine). */
export const SAFT_IMPORT_TIMEOUT_MS = 60 * 60_000;

export const IMPORT_STATUSES = ['queued', 'running', 'succeeded', 'failed'] as const;

export const importResource = z
  .object({
    id: z.guid(),
    type: z.enum(['saft', 'einvoice']).meta({
      description: 'saft: a SAF-T file (POST /imports/saft); einvoice: a long received e-invoice (POST /einvoices/inbound answered 202)',
    }),
    status: z.enum(IMPORT_STATUSES).meta({ description: 'queued, running, succeeded or failed (nothing of a failed file is kept)' }),
    file_name: z.string().meta({ description: 'The Content-Disposition filename; "" when none' }),
    einvoice_id: z
      .guid()
      .nullable()
      .meta({ description: 'An einvoice import that succeeded: the e-invoice it made (GET /einvoices/{id}, with its draft expense); null otherwise' }),
    file_sha256: z.string().meta({ description: 'SHA-256 of the file: the same file imports once per company' }),
    file_size: count().meta({ description: 'Bytes' }),
    progress: z.object({
      phase: z
        .enum(['', 'checking', 'importing', 'done'])
        .meta({ description: 'checking: against the XSD (SAF-T) or the official rules (an e-invoice); importing: into the books' }),
      bytes_read: count().meta({ description: 'Bytes of the file the phase has read' }),
      percent: z.number().meta({ description: 'bytes_read of file_size, in percent (0 to 100)' }),
    }),
    counts: z.object({
      accounts: count().meta({ description: 'Accounts of the file (mapped or created)' }),
      accounts_created: count().meta({ description: 'Accounts the import created (no existing account by StandardAccountID or AccountID)' }),
      customers: count(),
      suppliers: count(),
      transactions: count().meta({ description: 'Journal transactions imported (with the opening balances posting, when there is one)' }),
      lines: count().meta({ description: 'Journal lines imported' }),
      assets: count().meta({
        description: 'Fixed assets of MasterFiles/Assets held at the end of the period, entered in the asset register with their depreciation to date',
      }),
    }),
    problem: z
      .object({
        type: z.string(),
        title: z.string(),
        status: z.number(),
        detail: z.string(),
        code: z.string(),
        field: z.string().optional(),
        line: z.number().optional(),
        xml: problemExtensions.shape.xml,
        failures: z
          .array(z.object({ id: z.string(), text: z.string(), location: z.string() }))
          .optional()
          .meta({ description: 'einvoice_invalid: every rule of the official rules the document breaks, as POST /einvoices/inbound names them' }),
      })
      .nullable()
      .meta({
        description: 'Why the import failed (RFC 9457 problem; `line` the line of the file, `field` the element, `xml` the XML rule broken); null otherwise',
      }),
    requested_by: z.object({ type: z.string(), id: z.string() }).meta({ description: 'The credential that asked for the import' }),
    created_at: timestamp(),
    started_at: timestamp().nullable(),
    finished_at: timestamp().nullable(),
  })
  .meta({ id: 'Import' });
export type ImportView = z.input<typeof importResource>;

type ImportRow = NonNullable<Awaited<ReturnType<Db['import']['findFirst']>>>;

export function importView(r: ImportRow): ImportView {
  const size = Number(r.file_size);
  const read = Number(r.progress_bytes);
  return {
    id: r.id,
    type: r.kind === 'einvoice' ? 'einvoice' : 'saft',
    status: r.status as ImportView['status'],
    file_name: r.file_name,
    einvoice_id: r.einvoice_id,
    file_sha256: r.file_sha256,
    file_size: size,
    progress: {
      phase: r.phase as ImportView['progress']['phase'],
      bytes_read: read,
      percent: size ? Math.min(100, Math.round((read / size) * 1000) / 10) : 100,
    },
    counts: {
      accounts: r.accounts,
      accounts_created: r.accounts_created,
      customers: r.customers,
      suppliers: r.suppliers,
      transactions: r.transactions,
      lines: r.lines,
      assets: r.assets,
    },
    problem: (r.problem as ImportView['problem']) ?? null,
    requested_by: { type: r.requested_by_type, id: r.requested_by_id },
    created_at: r.created_at.toISOString(),
    started_at: r.started_at?.toISOString() ?? null,
    finished_at: r.finished_at?.toISOString() ?? null,
  };
}

export const IMPORT_LIST = {
  sort: { created_at: 'created_at' },
  defaultSort: 'created_at',
  search: ['file_name'],
  dateColumn: 'created_at',
  dateDescription: 'upload date',
} satisfies ListSpec;

export const listImports = (db: Db, scope: CompanyScope, params: ListParams): Promise<Page<ImportView>> =>
  listPage(db.import, { company_id: scope.companyId }, params, IMPORT_LIST, importView);

export async function getImport(db: Db, scope: CompanyScope, id: string): Promise<ImportView> {
  const row = await db.import.findFirst({ where: { id, company_id: scope.companyId } });
  if (!row) throw notFound('import', id);
  return importView(row);
}

export interface CreateSaftImport {
  file: StagedUpload;
  fileName: string;
  requestedBy: { type: string; id: string };
}

/**
 * Records an import of a staged file and stores the file, or answers the import of the same file
 * (its SHA-256) that is queued, running or succeeded: the same file imports once. `created` says which.
 * A company with postings is refused at once (the job checks it again under the lock).
 */
export async function createSaftImport(db: Db, scope: CompanyScope, input: CreateSaftImport): Promise<{ view: ImportView; created: boolean }> {
  const c = scope.companyId;
  if (input.file.size === 0) throw new DomainError('saft_file_invalid', 'The request has no file: send the SAF-T file as the body.', 'body');
  if (!input.file.utf8) throw new DomainError('saft_file_invalid', 'The file is not UTF-8 text: a SAF-T file is UTF-8 encoded XML.', 'body');
  await db.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`saft-import:${c}`}, 0))`;
  const same = await db.import.findFirst({ where: { company_id: c, file_sha256: input.file.sha256, status: { not: 'failed' } } });
  if (same) return { view: importView(same), created: false };
  // One import of a company at a time: the queue runs imports in turn, so a company holds at most one
  // place in it and another company's import waits behind no more than one file of each company.
  const open = await db.import.findFirst({ where: { company_id: c, status: { in: ['queued', 'running'] } }, select: { id: true, status: true } });
  if (open)
    throw new DomainError(
      'conflict',
      `The company's import ${open.id} is ${open.status}: a company imports one file at a time. Send this file when that import has ended (GET /imports/${open.id}).`,
      'body',
    );
  const posted = await db.ledgerTransaction.findFirst({ where: { company_id: c }, select: { id: true } });
  if (posted)
    throw new DomainError(
      'books_not_empty',
      "The company has postings already: a SAF-T import brings a company's books into fresh books only (a new company or a reset sandbox).",
      'body',
    );
  return queueImport(db, scope, 'saft', input);
}

/** Records a queued import of `kind` (SAF-T, a long e-invoice) and stores its staged file, in the caller's transaction. */
export async function queueImport(
  db: Db,
  scope: CompanyScope,
  kind: 'saft' | 'einvoice',
  input: { file: StagedUpload; fileName: string; requestedBy: { type: string; id: string } },
): Promise<{ view: ImportView; created: true }> {
  const id = newId();
  const row = await db.import.create({
    data: {
      id,
      company_id: scope.companyId,
      kind,
      status: 'queued',
      file_name: input.fileName.slice(0, 255),
      file_sha256: input.file.sha256,
      file_size: BigInt(input.file.size),
      requested_by_type: input.requestedBy.type,
      requested_by_id: input.requestedBy.id,
    },
  });
  await storeImportFile(db, id, input.file.path);
  return { view: importView(row), created: true };
}

/** Stores a staged file as an import's pieces, in the caller's transaction. */
export async function storeImportFile(db: Db, importId: string, path: string): Promise<void> {
  let seq = 0;
  for await (const piece of createReadStream(path, { highWaterMark: CHUNK_BYTES })) {
    await db.importFileChunk.create({ data: { import_id: importId, seq: seq++, data: piece as Buffer<ArrayBuffer> } });
  }
}

/** The stored file copied to a temporary file, piece by piece (one piece in memory). */
export async function spool(db: Db, importId: string): Promise<{ path: string; discard: () => Promise<void> }> {
  const dir = await stagingDir('tlr-saft-');
  const path = join(dir, 'saft.xml');
  const file = await open(path, 'w', 0o600);
  try {
    for (let seq = 0; ; seq++) {
      const piece = await db.importFileChunk.findUnique({ where: { import_id_seq: { import_id: importId, seq } } });
      if (!piece) break;
      await file.write(piece.data);
    }
  } finally {
    await file.close();
  }
  return { path, discard: () => rm(dir, { recursive: true, force: true }) };
}

/** An import's problem: the refusal as a problem (RFC 9457) with its field, line, XML rule or the rules' failures. */
export const problemOf = (e: DomainError) => ({
  type: `https://tlr.dk/problems/${e.code}`,
  title: e.title,
  status: e.status,
  detail: e.message,
  code: e.code,
  ...(e.field ? { field: e.field } : {}),
  ...(typeof e.extensions.line === 'number' ? { line: e.extensions.line } : {}),
  ...(e.extensions.xml ? { xml: e.extensions.xml } : {}),
  ...(Array.isArray(e.extensions.failures) ? { failures: e.extensions.failures } : {}),
});

/**
 * The import-saft job: runs a queued (or interrupted) import to its end. Two runners at once: the
 * second waits on the import's lock and then finds it finished. A refusal of the file fails the import
 * (nothing of it kept); any other error is thrown for the queue to retry.
 */
export async function runSaftImport(db: Database, importId: string, opts: { progressEveryBytes?: number } = {}): Promise<ImportView | undefined> {
  const prisma = db.prisma as Db;
  const first = await prisma.import.findUnique({ where: { id: importId } });
  if (!first || first.status === 'succeeded' || first.status === 'failed') return first ? importView(first) : undefined;
  const every = opts.progressEveryBytes ?? 4 * 1024 * 1024;
  const file = await spool(prisma, importId);
  let reported = 0;
  const report = (phase: string) => async (bytes: number) => {
    if (bytes - reported < every) return;
    reported = bytes;
    await prisma.import.update({ where: { id: importId }, data: { phase, progress_bytes: bytes } });
  };
  const text = () => utf8Text(createReadStream(file.path, { highWaterMark: 256 * 1024 }));
  try {
    // The XSD check reads the whole file before the import's transaction opens: it needs no database,
    // and a transaction idle that long would be ended by the server (idle_in_transaction_session_timeout).
    await prisma.import.update({ where: { id: importId }, data: { status: 'running', phase: 'checking', progress_bytes: 0, started_at: new Date() } });
    try {
      await checkSaftSchema(counted(text(), report('checking')));
    } catch (e) {
      if (e instanceof DomainError) throw new Refused(e);
      throw e;
    }
    reported = 0;
    await prisma.import.update({ where: { id: importId }, data: { phase: 'importing', progress_bytes: 0 } });
    return await db.prisma.$transaction(
      async (txc) => {
        const tx = txc as Db;
        await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`saft-import-run:${importId}`}, 0))`;
        const row = await tx.import.findUniqueOrThrow({ where: { id: importId } });
        if (row.status === 'succeeded' || row.status === 'failed') return importView(row);
        // The control trail: what the import registers is the credential's that sent the file.
        await actAs(tx, { type: row.requested_by_type as 'api_key' | 'oauth_token', id: row.requested_by_id });
        // Progress is written outside the import's transaction (report: on the pool), so that GET /imports/{id} sees it.
        const scope: CompanyScope = { companyId: row.company_id, livemode: true };
        try {
          const counts = await importSaftRecords(tx, scope, readSaft(counted(text(), report('importing'))));
          await tx.importFileChunk.deleteMany({ where: { import_id: importId } });
          const done = await tx.import.update({
            where: { id: importId },
            data: { status: 'succeeded', phase: 'done', progress_bytes: row.file_size, ...counts, finished_at: new Date() },
          });
          return importView(done);
        } catch (e) {
          if (!(e instanceof DomainError)) throw e;
          // The refusal is the outcome: recorded after this transaction rolls back (below).
          throw new Refused(e);
        }
      },
      { timeout: SAFT_IMPORT_TIMEOUT_MS, maxWait: 60_000 },
    );
  } catch (e) {
    if (!(e instanceof Refused)) throw e;
    await prisma.importFileChunk.deleteMany({ where: { import_id: importId } });
    const failed = await prisma.import.update({
      where: { id: importId },
      data: { status: 'failed', problem: problemOf(e.error), finished_at: new Date() },
    });
    return importView(failed);
  } finally {
    await file.discard();
  }
}

class Refused extends Error {
  readonly error: DomainError;
  constructor(error: DomainError) {
    super(error.message);
    this.error = error;
  }
}

/** Passes text through, telling `progress` the UTF-8 bytes read so far. */
async function* counted(text: AsyncIterable<string>, progress: (bytes: number) => Promise<void>): AsyncGenerator<string> {
  let bytes = 0;
  for await (const s of text) {
    bytes += Buffer.byteLength(s);
    await progress(bytes);
    yield s;
  }
}

/**
 * The job's last attempt failed for a reason other than the file (the database away, a bug): the import
 * is failed with internal_error so that it does not show `running` for ever; nothing of it was kept.
 */
export async function abandonSaftImport(db: Db, importId: string, reason: string): Promise<void> {
  await db.importFileChunk.deleteMany({ where: { import_id: importId } });
  await db.import.updateMany({
    where: { id: importId, status: { in: ['queued', 'running'] } },
    data: {
      status: 'failed',
      problem: problemOf(new DomainError('internal_error', `The import could not run: ${reason}. Nothing of it was kept; send the file again.`)),
      finished_at: new Date(),
    },
  });
}

/** Imports queued or running (a worker that died mid-import): the worker sends their jobs again at start. */
export async function openSaftImports(db: Db): Promise<string[]> {
  const rows = await db.import.findMany({ where: { kind: 'saft', status: { in: ['queued', 'running'] } }, select: { id: true } });
  return rows.map((r) => r.id);
}
