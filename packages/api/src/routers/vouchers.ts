// /vouchers: upload (the HTTP shell streams and stages the body), list, get, download (the HTTP shell
// streams the stored bytes) and delete. Contract: every voucher endpoint needs vouchers:read and
// vouchers:write.
import { z } from 'zod';
import {
  deleteVoucher,
  getVoucher,
  listVouchers,
  stageBase64,
  uploadSummary,
  uploadVoucher,
  voucherContent,
  VOUCHER_LIST,
  VOUCHER_STATUSES,
  type VoucherStore,
  registrationFields,
} from '@tlr/domain';
import { getEndpoint, listEndpoint, metaOf } from '../crud.ts';
import { storageUnavailable } from '../problem.ts';
import { single } from '../schemas/envelopes.ts';
import { dateOut, timestamp, uuid } from '@tlr/domain/fields';
import { authedProcedure, router } from '../trpc.ts';
import { fileSize } from '@tlr/domain/integers';

const tag = 'Vouchers';
const scope = ['vouchers:read', 'vouchers:write'] as const;

const voucherResource = z
  .object({
    id: z.guid(),
    filename: z.string().meta({ description: 'The original file name' }),
    mime_type: z.string(),
    file_size: fileSize().meta({ description: 'Bytes of the decoded document' }),
    status: z.enum(VOUCHER_STATUSES).meta({ description: 'pending until processing has read the document, then completed' }),
    expense_id: z.union([z.guid(), z.literal('')]).meta({ description: 'The expense it is attached to; "" when unset (never null)' }),
    transaction_id: z.union([z.guid(), z.literal('')]).meta({ description: 'The posting it documents; "" when unset' }),
    uploaded_at: timestamp(),
    retention_until: z
      .union([dateOut(), z.literal('')])
      .meta({ description: 'Kept until this date (five years after the end of the financial year of its posting); "" when unset' }),
    ...registrationFields,
  })
  .meta({ id: 'Voucher' });

const uploadResponse = z
  .object({ id: z.guid(), filename: z.string(), mime_type: z.string(), file_size: fileSize(), status: z.enum(VOUCHER_STATUSES) })
  .meta({ id: 'VoucherUpload' });

export function requireStore(store: VoucherStore | undefined): VoucherStore {
  if (!store) throw storageUnavailable('Voucher storage is not configured on this server.');
  return store;
}

export const vouchersRouter = router({
  list: listEndpoint({
    path: '/vouchers',
    tag,
    summary: 'List vouchers',
    scope,
    spec: VOUCHER_LIST,
    searchDescription: 'Case-insensitive search in the original file name and the display name and vendor found in the document',
    resource: voucherResource,
    run: listVouchers,
  }),
  upload: authedProcedure
    .meta({
      ...metaOf(
        {
          path: '/vouchers',
          tag,
          summary: 'Upload a voucher (bilag)',
          description:
            'JSON with the document as standard padded base64 (RFC 4648, not base64url) in one unbroken string; whitespace around it is trimmed, embedded line breaks are invalid. 1 byte to 10 MB decoded (10,485,760 bytes; about 13.4 MB encoded). Refusals are 400 invalid_request naming the field; storage that cannot be reached is 503 with Retry-After, and nothing is left behind: a retry with the same Idempotency-Key is safe. The body is read as a stream (up to 14 MB), not with the 1 MB limit of other endpoints. Emits voucher.created.',
          scope,
          problems: [503],
        },
        'POST',
        { idempotent: { status: 201 } },
      ),
      streamedBody: true,
    })
    .input(
      z.strictObject({
        filename: z.string().meta({
          description:
            'The original file name with its extension (the extension names the stored object); not blank, at most 255 characters, without a path, control characters or invisible characters (Unicode format characters such as bidirectional controls and zero-width spaces, and line or paragraph separators)',
          example: 'Kvittering æøå.pdf',
        }),
        content_base64: z.string().meta({ description: 'The document, standard padded base64', example: 'JVBERi0xLjQK' }),
        mime_type: z
          .string()
          .optional()
          .meta({ description: 'Stored and sent back on download; default application/octet-stream', example: 'application/pdf' }),
      }),
    )
    .output(single(uploadResponse))
    .mutation(async ({ ctx, input }) => {
      const store = requireStore(ctx.store);
      // The HTTP shell staged the streamed content already; an in-process caller sends the string.
      const content = ctx.upload ?? (await stageBase64(input.content_base64));
      try {
        const view = await uploadVoucher(ctx.tx, ctx.db.prisma, store, ctx.scope, { filename: input.filename, mime_type: input.mime_type, content });
        return { data: uploadSummary(view) };
      } finally {
        if (!ctx.upload) await content.discard();
      }
    }),
  get: getEndpoint({
    path: '/vouchers/{id}',
    tag,
    summary: 'Get a voucher',
    description: 'The same shape as a list item.',
    scope,
    resource: voucherResource,
    run: getVoucher,
  }),
  content: authedProcedure
    .meta({
      ...metaOf({ path: '/vouchers/{id}/content', tag, summary: 'Download the stored document', scope, problems: [503] }, 'GET'),
      raw: {
        contentType: '*/*',
        description:
          "The stored bytes exactly as uploaded (not an envelope). Content-Type is the voucher's mime_type; the SHA-256 recorded at upload is checked as the bytes are sent.",
        schema: { type: 'string', format: 'binary' },
        headers: {
          'Content-Disposition':
            'attachment with the original file name (RFC 6266: an ASCII filename and the exact UTF-8 filename*); an invisible or control character, which only a name stored before such names were refused can have, is sent as "_"',
          'Content-Length': 'file_size',
        },
      },
    })
    .input(z.object({ id: uuid() }))
    .output(z.object({ storage_key: z.string(), filename: z.string(), mime_type: z.string(), file_size: fileSize(), sha256: z.string() }))
    .query(({ ctx, input }) => voucherContent(ctx.tx, ctx.scope, input.id)),
  delete: authedProcedure
    .meta(
      metaOf(
        {
          path: '/vouchers/{id}',
          tag,
          summary: 'Delete a voucher',
          description:
            'Only a voucher that is not attached to an expense or a posting and not under retention; otherwise 400 invalid_request naming expense_id, transaction_id or retention_until. Emits voucher.deleted.',
          scope,
        },
        'DELETE',
      ),
    )
    .input(z.object({ id: uuid().meta({ description: 'The resource id (UUID)' }) }))
    .output(single(z.object({ id: z.guid(), deleted: z.literal(true) })))
    .mutation(async ({ ctx, input }) => ({ data: await deleteVoucher(ctx.tx, ctx.scope, input.id, ctx.afterCommit, requireStore(ctx.store)) })),
});
