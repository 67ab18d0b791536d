// GET /exports/saft: the SAF-T Financial file. The procedure validates the period and the scope and
// names the company; the HTTP shell (apps/server, raw routes) streams the XML, which the REST adapter
// cannot (it always JSON-encodes).
import { z } from 'zod';
import { date } from '@tlr/domain/fields';
import { authedProcedure, router } from '../trpc.ts';

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
});
