// GET /exports/saft: the SAF-T Financial file; GET /exports/archive: the leaving archive (zip). The
// procedures validate the parameters and the scopes and name the company; the HTTP shells (apps/server,
// raw routes) stream the XML and the zip, which the REST adapter cannot (it always JSON-encodes).
import { z } from 'zod';
import { date } from '@tlr/domain/fields';
import { authedProcedure, router } from '../trpc.ts';
import { requireStore } from './vouchers.ts';

export const exportsRouter = router({
  saft: authedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/exports/saft',
        tags: ['Exports'],
        summary: 'SAF-T Financial export (XML)',
        description:
          'The Danish SAF-T Financial file (urn:StandardAuditFile-Taxation-Financial:DK) of the period from..to (inclusive; default the fiscal year containing today, Europe/Copenhagen), streamed as an attachment.',
      },
      scopes: ['exports:read'],
      raw: {
        contentType: 'application/xml',
        description:
          'The SAF-T Financial file: Header, MasterFiles (general ledger accounts with opening and closing balances, customers, suppliers, tax table) and GeneralLedgerEntries (every transaction of the period in SystemID order). Streamed (chunked).',
        schema: {
          type: 'string',
          description: 'XML valid against the Danish SAF-T Financial schema (namespace urn:StandardAuditFile-Taxation-Financial:DK, root AuditFile)',
        },
        headers: { 'Content-Disposition': 'attachment; filename="saft-<CVR or company id>-<from>-<to>.xml"' },
      },
    })
    .input(
      z.strictObject({
        from: date()
          .optional()
          .meta({ description: 'First day of the period, inclusive. Default: the first day of the fiscal year containing `to` (or today).' }),
        to: date().optional().meta({
          description: 'Last day of the period, inclusive; not before `from`. Default: the last day of the fiscal year containing `from` (or today).',
        }),
      }),
    )
    .output(z.object({ companyId: z.guid(), from: z.string().optional(), to: z.string().optional() }))
    .query(({ ctx, input }) => ({ companyId: ctx.scope.companyId, ...input })),
  archive: authedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/exports/archive',
        tags: ['Exports'],
        summary: 'The whole book as a zip archive (SAF-T, vouchers, manifest)',
        description:
          "Everything needed to leave: the SAF-T Financial file of the whole book (from the first day of the company's first fiscal year to the last day of the fiscal year containing today or the last posting), every voucher (bilag) under its original file name, and a manifest with each entry's size and SHA-256. Streamed as it is written; needs both exports:read and vouchers:read. Busy (503, Retry-After) while two archives are being written by the same server. See docs/exports.md.",
      },
      scopes: ['exports:read', 'vouchers:read'],
      raw: {
        contentType: 'application/zip',
        description:
          'A zip (zip64 when needed) holding saft/<the SAF-T file>, vouchers/<voucher id without hyphens, as SAF-T SourceDocumentID>/<original file name> for every voucher, manifest.json (company, period, and per entry its path, size and SHA-256) and SHA256SUMS (for sha256sum -c). Streamed (chunked); a failure after the first byte aborts the connection, so a complete zip is a whole archive.',
        schema: { type: 'string', format: 'binary' },
        headers: { 'Content-Disposition': 'attachment; filename="archive-<CVR or company id>-<from>-<to>.zip"' },
      },
    })
    .input(z.strictObject({}))
    .output(z.object({ companyId: z.guid() }))
    .query(({ ctx }) => {
      requireStore(ctx.store);
      return { companyId: ctx.scope.companyId };
    }),
});
