// Vouchers (bilag): upload into the object store, list, read, download and delete, attachment to an
// expense or a posting with the retention date that follows, and the sweeper for stored objects whose
// voucher never committed. The row and its object move together: an object is written only after an
// intent is recorded (committed on its own), and deleted only after the row's deletion committed.
import { createHash } from 'node:crypto';
import { open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { stagingDir } from '../files/staged-upload.ts';
import type { Readable } from 'node:stream';
import type { Db, InTransaction, Prisma } from '@tlr/db';
import { fromDate, toDate } from '../calendar.ts';
import type { CompanyScope } from '../context.ts';
import { invalidRequest, notFound } from '../errors.ts';
import { recordEvent, recordEvents } from '../events/outbox.ts';
import { newId } from '../ids.ts';
import { listPage, type ListParams, type ListSpec, type Page } from '../lists/list.ts';
import { checkFilename, checkMimeType, DEFAULT_MIME_TYPE, retentionUntil, storageKey, UploadRefusal, Base64StreamDecoder } from './rules.ts';
import { UploadBodyReader } from './upload-body.ts';
import { registrationView } from '../trail/actor.ts';

/** What the domain needs of the object store (@tlr/storage's ObjectStore has it). */
export interface VoucherStore {
  putFile(key: string, filePath: string, meta: { size: number; contentType: string; sha256: string }): Promise<void>;
  get(key: string): Promise<Readable>;
  delete(key: string): Promise<void>;
  deletePrefix(prefix: string): Promise<number>;
}

export const VOUCHER_STATUSES = ['pending', 'completed'] as const;

export const VOUCHER_LIST = {
  sort: { upload_date: 'uploaded_at', original_filename: 'filename', file_size: 'file_size' },
  defaultSort: 'upload_date',
  search: ['filename', 'display_name', 'vendor'],
  dateColumn: 'uploaded_at',
  dateDescription: 'upload date',
  statuses: VOUCHER_STATUSES,
} satisfies ListSpec;

type VoucherRow = Prisma.VoucherGetPayload<object>;

/** The list and get shape: unset references and dates are "", never null (contract). */
function voucherView(v: VoucherRow) {
  return {
    id: v.id,
    filename: v.filename,
    mime_type: v.mime_type,
    file_size: v.file_size,
    status: v.status as (typeof VOUCHER_STATUSES)[number],
    expense_id: v.expense_id ?? '',
    transaction_id: v.transaction_id ?? '',
    uploaded_at: v.uploaded_at.toISOString(),
    retention_until: v.retention_until ? fromDate(v.retention_until) : '',
    ...registrationView(v),
  };
}
export type VoucherView = ReturnType<typeof voucherView>;

/** The 201 answer of an upload: exactly these five fields (contract). */
export const uploadSummary = (v: VoucherView) => ({ id: v.id, filename: v.filename, mime_type: v.mime_type, file_size: v.file_size, status: v.status });

// ---------------------------------------------------------------------------------------------------
// Staging: the decoded document in a temporary file, with its size and SHA-256, before it is stored.

export interface StagedContent {
  path: string;
  size: number;
  sha256: string;
  /** Removes the temporary file (always call it, in a finally). */
  discard(): Promise<void>;
}

async function staging<T>(fill: (write: (bytes: Uint8Array) => void, flush: () => Promise<void>) => Promise<T>): Promise<{ result: T; staged: StagedContent }> {
  const dir = await stagingDir('tlr-voucher-');
  const discard = () => rm(dir, { recursive: true, force: true });
  const path = join(dir, 'content');
  const file = await open(path, 'w', 0o600);
  const hash = createHash('sha256');
  let size = 0;
  let queue: Uint8Array[] = [];
  const write = (bytes: Uint8Array) => {
    queue.push(bytes);
    hash.update(bytes);
    size += bytes.length;
  };
  // Written chunk by chunk before more is read: memory holds one request chunk's worth at a time.
  const flush = async () => {
    const pending = queue;
    queue = [];
    for (const b of pending) await file.write(b);
  };
  try {
    const result = await fill(write, flush);
    await flush();
    await file.close();
    return { result, staged: { path, size, sha256: hash.digest('hex'), discard } };
  } catch (e) {
    await file.close().catch(() => {});
    await discard();
    throw e;
  }
}

const refusal = (e: unknown) => (e instanceof UploadRefusal ? invalidRequest(`${e.field}: ${e.message}`, e.field) : e);

/** The upload body as it streams in (REST): fields read, content decoded and staged. */
export async function stageUploadBody(body: AsyncIterable<Uint8Array>) {
  try {
    const { result, staged } = await staging(async (write, flush) => {
      const reader = new UploadBodyReader(write);
      for await (const chunk of body) {
        reader.write(chunk);
        await flush();
      }
      return reader.end();
    });
    return { fields: result, staged };
  } catch (e) {
    throw refusal(e);
  }
}

/** The content of an in-process upload (a base64 string), staged by the same decoder. */
export async function stageBase64(text: string): Promise<StagedContent> {
  try {
    const { staged } = await staging(async (write, flush) => {
      const decoder = new Base64StreamDecoder(write);
      for (let i = 0; i < text.length; i += 65_536) {
        decoder.push(text.slice(i, i + 65_536));
        await flush();
      }
      decoder.end();
    });
    return staged;
  } catch (e) {
    throw refusal(e);
  }
}

/** Bytes already in memory (a received e-invoice and its embedded attachments), staged like an upload. */
export async function stageBytes(bytes: Uint8Array): Promise<StagedContent> {
  const { staged } = await staging(async (write) => write(bytes));
  return staged;
}

// ---------------------------------------------------------------------------------------------------
// Upload

export interface UploadInput {
  filename: string;
  mime_type?: string | undefined;
  content: StagedContent;
}

/**
 * Stores the staged document and records the voucher. `db` is the request's transaction; `outside`
 * commits on its own (the intent that lets the sweeper find an object whose voucher never commits).
 */
export async function uploadVoucher(db: Db, outside: Db, store: VoucherStore, scope: CompanyScope, input: UploadInput) {
  return (await uploadVouchers(db, outside, store, scope, [input]))[0]!;
}

/**
 * Stores staged documents and records their vouchers, in order, as uploadVoucher does one: their
 * intents in one statement on `outside`, each object put, then the rows, the intents' removal and the
 * events in one statement each (decision 497: a received e-invoice's 200 attachments were 800 statements,
 * 200 of them each a transaction of its own).
 */
export async function uploadVouchers(db: Db, outside: Db, store: VoucherStore, scope: CompanyScope, inputs: readonly UploadInput[]) {
  const files = inputs.map((input) => {
    const badName = checkFilename(input.filename);
    if (badName) throw invalidRequest(`filename: ${badName}`, 'filename');
    const mimeType = input.mime_type?.trim() || DEFAULT_MIME_TYPE;
    const badType = checkMimeType(mimeType);
    if (badType) throw invalidRequest(`mime_type: ${badType}`, 'mime_type');
    const id = newId();
    return { id, key: storageKey(scope.companyId, id, input.filename), filename: input.filename, mimeType, content: input.content };
  });
  if (!files.length) return [];
  const keys = files.map((f) => f.key);
  await outside.storedObjectIntent.createMany({ data: keys.map((key) => ({ storage_key: key, company_id: scope.companyId })) });
  const put: string[] = [];
  try {
    for (const f of files) {
      await store.putFile(f.key, f.content.path, { size: f.content.size, contentType: f.mimeType, sha256: f.content.sha256 });
      put.push(f.key);
    }
  } catch (e) {
    // Puts are atomic: what was put is taken back, and the intents of what is gone have nothing to guard
    // (an object that could not be deleted keeps its intent, for the sweeper).
    const gone = keys.filter((key) => !put.includes(key));
    for (const key of put)
      if (
        await store.delete(key).then(
          () => true,
          () => false,
        )
      )
        gone.push(key);
    await outside.storedObjectIntent.deleteMany({ where: { storage_key: { in: gone } } }).catch(() => {});
    throw e;
  }
  try {
    const rows = await db.voucher.createManyAndReturn({
      data: files.map((f) => ({
        id: f.id,
        company_id: scope.companyId,
        filename: f.filename,
        mime_type: f.mimeType,
        file_size: f.content.size,
        sha256: f.content.sha256,
        storage_key: f.key,
        status: 'pending' as const,
      })),
    });
    await db.storedObjectIntent.deleteMany({ where: { storage_key: { in: keys } } });
    await recordEvents(
      db,
      scope,
      'voucher.created',
      files.map((f) => ({ id: f.id, filename: f.filename })),
    );
    const byId = new Map(rows.map((row) => [row.id, row]));
    return files.map((f) => voucherView(byId.get(f.id)!));
  } catch (e) {
    // The transaction will not commit: take the objects back now (the sweeper would, later).
    for (const key of keys) await store.delete(key).catch(() => {});
    throw e;
  }
}

// ---------------------------------------------------------------------------------------------------
// Read, download, delete

async function findVoucher(db: Db, scope: CompanyScope, id: string) {
  const row = await db.voucher.findFirst({ where: { id, company_id: scope.companyId } });
  if (!row) throw notFound('voucher', id);
  return row;
}

export async function getVoucher(db: Db, scope: CompanyScope, id: string) {
  return voucherView(await findVoucher(db, scope, id));
}

export function listVouchers(db: Db, scope: CompanyScope, params: ListParams): Promise<Page<VoucherView>> {
  return listPage(db.voucher, { company_id: scope.companyId }, params, VOUCHER_LIST, voucherView);
}

/** What a download needs: where the bytes are and what they must be. */
export async function voucherContent(db: Db, scope: CompanyScope, id: string) {
  const row = await findVoucher(db, scope, id);
  return { storage_key: row.storage_key, filename: row.filename, mime_type: row.mime_type, file_size: row.file_size, sha256: row.sha256 };
}

/**
 * Deletes an unattached voucher not under retention (contract: 400 invalid_request otherwise). The
 * object is deleted after the commit (`afterCommit`); until then an intent row marks it for the sweeper.
 */
export async function deleteVoucher(db: Db, scope: CompanyScope, id: string, afterCommit: (fn: (pool: Db) => Promise<void>) => void, store: VoucherStore) {
  const [locked] = await db.$queryRaw<{ id: string }[]>`SELECT id FROM vouchers WHERE id = ${id}::uuid AND company_id = ${scope.companyId}::uuid FOR UPDATE`;
  if (!locked) throw notFound('voucher', id);
  const row = await findVoucher(db, scope, id);
  if (row.expense_id) throw invalidRequest(`Voucher ${id} is attached to expense ${row.expense_id} and cannot be deleted.`, 'expense_id');
  if (row.transaction_id) throw invalidRequest(`Voucher ${id} documents transaction ${row.transaction_id} and cannot be deleted.`, 'transaction_id');
  if (row.retention_until)
    throw invalidRequest(`Voucher ${id} must be kept until ${fromDate(row.retention_until)} (bookkeeping retention).`, 'retention_until');
  await db.voucher.delete({ where: { id } });
  await db.storedObjectIntent.create({ data: { storage_key: row.storage_key, company_id: scope.companyId } });
  await recordEvent(db, scope, 'voucher.deleted', { id });
  afterCommit(async (pool) => {
    await store.delete(row.storage_key);
    await pool.storedObjectIntent.deleteMany({ where: { storage_key: row.storage_key } });
  });
  return { id, deleted: true as const };
}

// ---------------------------------------------------------------------------------------------------
// Attachment and retention

/**
 * Locks a voucher of the company for attaching to an expense or a posting. Another company's (or the
 * other mode's) voucher is 400 invalid_request naming `field`, as is one attached elsewhere already.
 */
export async function lockVoucherForAttachment(db: Db, scope: CompanyScope, voucherId: string, field = 'voucher_id') {
  const [row] = await db.$queryRaw<{ id: string; expense_id: string | null; transaction_id: string | null }[]>`
    SELECT id, expense_id, transaction_id FROM vouchers WHERE id = ${voucherId}::uuid AND company_id = ${scope.companyId}::uuid FOR UPDATE`;
  if (!row) throw invalidRequest(`No voucher ${voucherId} in this company.`, field);
  return row;
}

export async function attachVoucherToExpense(db: Db, scope: CompanyScope, voucherId: string, expenseId: string) {
  const row = await lockVoucherForAttachment(db, scope, voucherId);
  if (row.expense_id && row.expense_id !== expenseId)
    throw invalidRequest(`Voucher ${voucherId} is already attached to expense ${row.expense_id}.`, 'voucher_id');
  if (row.transaction_id && !row.expense_id) throw invalidRequest(`Voucher ${voucherId} already documents transaction ${row.transaction_id}.`, 'voucher_id');
  await db.voucher.update({ where: { id: voucherId }, data: { expense_id: expenseId } });
}

export async function detachVoucherFromExpense(db: Db, scope: CompanyScope, expenseId: string) {
  await db.voucher.updateMany({ where: { company_id: scope.companyId, expense_id: expenseId, transaction_id: null }, data: { expense_id: null } });
}

/**
 * The voucher documents a posting: it records the transaction and is kept five years from the end of
 * the posting's financial year. Called in the posting's transaction.
 */
export async function markVoucherPosted(
  db: Db,
  scope: CompanyScope,
  voucherId: string,
  posting: { id: string; date: string },
  opts: { expenseId?: string } = {},
) {
  const row = await lockVoucherForAttachment(db, scope, voucherId);
  if (row.transaction_id && row.transaction_id !== posting.id)
    throw invalidRequest(`Voucher ${voucherId} already documents transaction ${row.transaction_id}.`, 'voucher_id');
  if (row.expense_id && row.expense_id !== opts.expenseId) throw invalidRequest(`Voucher ${voucherId} is attached to expense ${row.expense_id}.`, 'voucher_id');
  const company = await db.company.findUniqueOrThrow({ where: { id: scope.companyId }, select: { fiscal_year_start_month: true } });
  await db.voucher.update({
    where: { id: voucherId },
    data: { transaction_id: posting.id, retention_until: toDate(retentionUntil(posting.date, company.fiscal_year_start_month)) },
  });
}

// ---------------------------------------------------------------------------------------------------
// The sweeper

/** Intents older than this belong to uploads that can no longer be in progress (the request deadline is far shorter). */
const ORPHAN_GRACE_MS = 10 * 60 * 1000;

/**
 * Removes stored objects whose voucher row does not exist (an upload whose transaction failed after the
 * object was written, a crash in between, a deletion whose clean-up did not run). Safe to run twice at
 * once: each intent is claimed with SKIP LOCKED.
 */
export async function sweepStoredObjects(run: InTransaction, store: VoucherStore, now = new Date(), batch = 200): Promise<number> {
  const before = new Date(now.getTime() - ORPHAN_GRACE_MS);
  let removed = 0;
  for (;;) {
    const done = await run(async (tx) => {
      const intents = await tx.$queryRaw<{ storage_key: string }[]>`
        SELECT storage_key FROM stored_object_intents WHERE created_at < ${before} ORDER BY created_at LIMIT ${batch} FOR UPDATE SKIP LOCKED`;
      for (const { storage_key } of intents) {
        const kept = await tx.voucher.findFirst({ where: { storage_key }, select: { id: true } });
        if (!kept) {
          await store.delete(storage_key);
          removed += 1;
        }
        await tx.storedObjectIntent.delete({ where: { storage_key } });
      }
      return intents.length < batch;
    });
    if (done) return removed;
  }
}
