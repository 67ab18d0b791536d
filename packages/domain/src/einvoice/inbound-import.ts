// A long received e-invoice (decision 491): POST /einvoices/inbound answers 202 with an import
// (GET /imports/{id}, type `einvoice`) instead of reading the document within the request, and the
// import-einvoice job checks it against the official rules and imports it as the request would have
// (importEinvoice: one transaction, everything or nothing). What is long: more than
// `einvoiceImportBounds.asyncLines` lines (500; EINVOICE_ASYNC_LINES), more than 50 embedded
// attachments, or more than 10 MB (MAX_EINVOICE_BYTES) up to 32 MB (MAX_LARGE_EINVOICE_BYTES).
import type { Database, Db } from '@tlr/db';
import type { CompanyScope } from '../context.ts';
import { DomainError } from '../errors.ts';
import type { StagedUpload } from '../files/staged-upload.ts';
import { importView, problemOf, queueImport, type ImportView } from '../saft/import/imports.ts';
import { actAs } from '../trail/actor.ts';
import type { VoucherStore } from '../vouchers/vouchers.ts';
import { importEinvoice, prepareInbound } from './inbound.ts';
import { MAX_EINVOICE_BYTES } from './parse.ts';
import { validationOwner } from './validate.ts';

export const einvoiceImportBounds = {
  /** More lines than this: imported by the job (EINVOICE_ASYNC_LINES). */
  asyncLines: 500,
  /** More embedded attachments than this: imported by the job (each is a voucher written). */
  asyncAttachments: 50,
  /** A run not finished after this long died with its worker: the next job takes the import again. */
  leaseMs: 30 * 60_000,
  /** Runs begun: a document that stopped the worker this many times fails. */
  attempts: 3,
};

/** EINVOICE_ASYNC_LINES (the configuration, checked at start); unset: 500. */
export function setEinvoiceAsyncLines(lines: number | undefined): void {
  einvoiceImportBounds.asyncLines = lines ?? 500;
}

const LINE_TAG = /<(?:[\w.-]+:)?(?:InvoiceLine|CreditNoteLine|IncludedSupplyChainTradeLineItem)[\s>/]/g;
const ATTACHMENT_TAG = /<(?:[\w.-]+:)?(?:EmbeddedDocumentBinaryObject|AttachmentBinaryObject)[\s>/]/g;

/** How many matches of `tag` the text holds, up to `above + 1` (enough to tell). */
function countUpTo(text: string, tag: RegExp, above: number): number {
  tag.lastIndex = 0;
  let n = 0;
  while (n <= above && tag.exec(text)) n++;
  return n;
}

/**
 * Whether a received document is long: imported by the job, answered 202. Counted on the text, before it
 * is read as XML (the job reads it): the lines' and attachments' start tags of UBL and CII.
 */
export function isLongEinvoice(xml: string, bytes: number): boolean {
  const b = einvoiceImportBounds;
  return (
    bytes > MAX_EINVOICE_BYTES ||
    countUpTo(xml, LINE_TAG, b.asyncLines) > b.asyncLines ||
    countUpTo(xml, ATTACHMENT_TAG, b.asyncAttachments) > b.asyncAttachments
  );
}

export interface CreateEinvoiceImport {
  file: StagedUpload;
  fileName: string;
  requestedBy: { type: string; id: string };
}

/**
 * Records the import of a long received document and stores it for the job, or answers the import of
 * the same document (its SHA-256) that is queued, running or succeeded: the same document sent again is
 * that import (`created` false). A company may have several documents waiting; the job takes the
 * companies in turn.
 */
export async function createEinvoiceImport(db: Db, scope: CompanyScope, input: CreateEinvoiceImport): Promise<{ view: ImportView; created: boolean }> {
  const c = scope.companyId;
  await db.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`einvoice-import:${c}`}, 0))`;
  const same = await db.import.findFirst({ where: { company_id: c, kind: 'einvoice', file_sha256: input.file.sha256, status: { not: 'failed' } } });
  if (same) return { view: importView(same), created: false };
  return queueImport(db, scope, 'einvoice', input);
}

/** What a run of the job did: the import it ran (if any), and, when others' runs still hold imports, when to look again. */
export interface EinvoiceImportRun {
  view?: ImportView;
  /** An import held by a run that may have died: look again after this many ms (its lease's end). */
  retryAfterMs?: number;
}

/**
 * The import-einvoice job: takes the next waiting import, of the company whose e-invoice import began
 * longest ago (or never), so that one company's long documents do not keep another's waiting, and runs
 * it: the rules in the validation pool's lane for long documents (one thread, so that the requests'
 * documents keep the others), then the import in one transaction. A refusal (the rules, a duplicate)
 * fails the import naming the rule, nothing written; any other error is thrown for the queue to retry.
 */
export async function runNextEinvoiceImport(db: Database, store: VoucherStore): Promise<EinvoiceImportRun> {
  const prisma = db.prisma as Db;
  const lease = einvoiceImportBounds.leaseMs;
  // Claimed in a transaction of its own: the claim (running, the attempt counted) is seen by every other runner.
  const claimed = await db.prisma.$transaction(async (txc) => {
    const tx = txc as Db;
    const [next] = await tx.$queryRaw<{ id: string; company_id: string; attempts: number }[]>`
      SELECT i.id, i.company_id, i.attempts FROM imports i
      WHERE i.kind = 'einvoice'
        AND (i.status = 'queued' OR (i.status = 'running' AND i.started_at < now() - ${lease} * interval '1 millisecond'))
      ORDER BY (SELECT max(j.started_at) FROM imports j WHERE j.kind = 'einvoice' AND j.company_id = i.company_id) ASC NULLS FIRST, i.created_at, i.id
      LIMIT 1
      FOR UPDATE OF i SKIP LOCKED`;
    if (!next) return undefined;
    if (next.attempts >= einvoiceImportBounds.attempts) {
      await tx.importFileChunk.deleteMany({ where: { import_id: next.id } });
      const failed = await tx.import.update({
        where: { id: next.id },
        data: {
          status: 'failed',
          finished_at: new Date(),
          problem: problemOf(
            new DomainError(
              'payload_too_large',
              `The document stopped the worker that read it ${next.attempts} times: it cannot be read here. Nothing of it was kept.`,
              'body',
            ),
          ),
        },
      });
      return { done: importView(failed) };
    }
    const attempt = next.attempts + 1;
    await tx.import.update({
      where: { id: next.id },
      data: { status: 'running', phase: 'checking', progress_bytes: 0, started_at: new Date(), attempts: attempt },
    });
    return { id: next.id, companyId: next.company_id, attempt };
  });
  if (!claimed) {
    const held = await prisma.import.findFirst({
      where: { kind: 'einvoice', status: 'running' },
      orderBy: { started_at: 'asc' },
      select: { started_at: true },
    });
    return held?.started_at ? { retryAfterMs: Math.max(1_000, held.started_at.getTime() + lease - Date.now()) } : {};
  }
  if ('done' in claimed) return { view: claimed.done };
  const { id, companyId, attempt } = claimed;
  const fail = async (e: DomainError) => {
    // Only this run's claim: a later run that took the import over after the lease owns it.
    const n = await prisma.import.updateMany({
      where: { id, status: 'running', attempts: attempt },
      data: { status: 'failed', problem: problemOf(e), finished_at: new Date() },
    });
    if (n.count) await prisma.importFileChunk.deleteMany({ where: { import_id: id } });
    return { view: importView(await prisma.import.findUniqueOrThrow({ where: { id } })) };
  };
  const pieces = await prisma.importFileChunk.findMany({ where: { import_id: id }, orderBy: { seq: 'asc' }, select: { data: true } });
  const xml = Buffer.concat(pieces.map((p) => p.data)).toString('utf8');
  let prepared;
  try {
    prepared = await validationOwner.run(companyId, () => prepareInbound(xml, undefined, { long: true }));
  } catch (e) {
    if (e instanceof DomainError) return fail(e);
    throw e;
  }
  await prisma.import.updateMany({
    where: { id, status: 'running', attempts: attempt },
    data: { phase: 'importing', progress_bytes: BigInt(Buffer.byteLength(xml)) },
  });
  try {
    const view = await db.prisma.$transaction(
      async (txc) => {
        const tx = txc as Db;
        const [row] = await tx.$queryRaw<{ status: string; attempts: number; requested_by_type: string; requested_by_id: string }[]>`
          SELECT status, attempts, requested_by_type, requested_by_id FROM imports WHERE id = ${id}::uuid FOR UPDATE`;
        // Taken over by a later run (this one outlived its lease), or finished: nothing more to do here.
        if (!row || row.status !== 'running' || row.attempts !== attempt) return importView(await tx.import.findUniqueOrThrow({ where: { id } }));
        // The control trail: what the import registers is the credential's that sent the document.
        await actAs(tx, { type: row.requested_by_type as 'api_key' | 'oauth_token', id: row.requested_by_id });
        const message = await importEinvoice(tx, prisma, store, { companyId, livemode: true }, prepared);
        await tx.importFileChunk.deleteMany({ where: { import_id: id } });
        return importView(
          await tx.import.update({ where: { id }, data: { status: 'succeeded', phase: 'done', einvoice_id: message.id, finished_at: new Date() } }),
        );
      },
      { timeout: 10 * 60_000, maxWait: 60_000 },
    );
    return { view };
  } catch (e) {
    if (e instanceof DomainError) return fail(e);
    throw e;
  }
}

/** E-invoice imports waiting or running (a worker that died mid-import): the worker sends a job for each at start. */
export async function openEinvoiceImports(db: Db): Promise<number> {
  return db.import.count({ where: { kind: 'einvoice', status: { in: ['queued', 'running'] } } });
}
