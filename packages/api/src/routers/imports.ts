// /imports/saft, /imports and /imports/{id}: a SAF-T file taken for import (streamed: the HTTP shell
// stages the body, this procedure records the import and stores the file, the import-saft job runs
// it) and the imports with their status, progress, counts and, on failure, the problem.
import { z } from 'zod';
import { createSaftImport, DomainError, getImport, IMPORT_LIST, importResource, listImports, MAX_SAFT_FILE_BYTES, type ListParams } from '@tlr/domain';
import { uuid } from '@tlr/domain/fields';
import { metaOf } from '../crud.ts';
import { list, single } from '../schemas/envelopes.ts';
import { listQuery } from '../schemas/list-query.ts';
import { authedProcedure, router } from '../trpc.ts';

const tag = 'Imports';
// Decision 341: an import writes the chart and the journal; both write scopes, and GETs read as transactions do.
const write = ['accounts:write', 'transactions:write'] as const;
const read = 'transactions:read';

const importDescription = [
  'The body is a Danish SAF-T Financial file (UTF-8 XML, at most 1 GB), streamed. The answer is 202 Accepted with the import (status `queued`) and a `Location` header; the import-saft job checks the file against the XSD and then imports it into the books, everything or nothing: watch `GET /imports/{id}`.',
  "Imported: the chart (each Account mapped to the company's account with its StandardAccountID, else its AccountID, else created), customers and suppliers, the opening balances (one posting the day before SelectionStartDate), every journal transaction as a posting with source `import` that keeps the file's JournalID and TransactionID in `source_journal_id` and `source_transaction_id`, and the asset register: each MasterFiles/Assets/Asset still held at the end of the period with its cost, life, accounts and depreciation to date (its residual value what its monthly depreciation implies; AssetTransactions link its months to the imported postings), so that depreciation carries on from the next month, and each one disposed of in the period (an AFGANG AssetTransaction) as disposed, with its date, its proceeds (the AFGANG's AssetTransactionAmount) and its depreciation until then, so that GET /reports/assets at any date of the period agrees with the file (decision 891). The Danish XSD gives an Asset no Analysis: an asset's dimensions are not imported (its postings keep their lines' Analysis). Fiscal years the dates fall in are created. See docs/saft-import.md.",
  'The same file (its SHA-256) imports once: sent again while its import is queued, running or succeeded, the answer is that import (202, `Location` the same). A company with postings answers 409 books_not_empty: an import goes into fresh books. A company imports one file at a time: another file sent while its import is queued or running answers 409 conflict naming that import. A failed import records its problem (saft_file_invalid naming the element and the line; period_locked; fiscal_year_not_open; books_not_empty) and keeps nothing of the file.',
].join('\n\n');

export const importsRouter = router({
  saft: authedProcedure
    .meta({
      ...metaOf({ path: '/imports/saft', tag, summary: 'Import a SAF-T file', description: importDescription, scope: write, problems: [409] }, 'POST', {
        idempotent: { status: 202 },
      }),
      streamedBody: true,
      requestBody: {
        contentType: 'application/xml',
        contentTypes: ['text/xml'],
        description: `A Danish SAF-T Financial file (urn:StandardAuditFile-Taxation-Financial:DK), UTF-8, at most ${MAX_SAFT_FILE_BYTES} bytes`,
        schema: { type: 'string', description: 'SAF-T Financial XML (root AuditFile)' },
        query: z.object({}),
      },
      // The file is stored in the database in this transaction: 1 GB takes longer than the common bound.
      transactionTimeoutMs: 10 * 60_000,
    })
    .input(z.object({}))
    .output(single(importResource))
    .mutation(async ({ ctx }) => {
      if (!ctx.saftFile) throw new DomainError('saft_file_invalid', 'The request has no file: send the SAF-T file as the body.', 'body');
      const { view, created } = await createSaftImport(ctx.tx, ctx.scope, {
        file: ctx.saftFile.file,
        fileName: ctx.saftFile.fileName,
        requestedBy: { type: ctx.credential.type, id: ctx.credential.id },
      });
      ctx.response.headers.Location = `/api/v1/imports/${view.id}`;
      if (created)
        ctx.afterCommit(async () => {
          await ctx.jobs?.saftImport(view.id);
        });
      return { data: view };
    }),
  list: authedProcedure
    .meta(
      metaOf(
        {
          path: '/imports',
          tag,
          summary: "List the company's imports",
          description:
            "One page of the company's imports, newest first unless `sort`/`order` say otherwise, with the contract's list parameters and `meta`; search looks in the file name.",
          scope: read,
        },
        'GET',
      ),
    )
    .input(listQuery(IMPORT_LIST, 'Case-insensitive search in the file name'))
    .output(list(importResource))
    .query(({ ctx, input }) => listImports(ctx.tx, ctx.scope, input as ListParams)),
  get: authedProcedure
    .meta(
      metaOf(
        {
          path: '/imports/{id}',
          tag,
          summary: 'Get an import',
          description: "Its status, progress, counts and, when it failed, the problem. An id that is not one of the company's imports answers 404 not_found.",
          scope: read,
        },
        'GET',
      ),
    )
    .input(z.object({ id: uuid().meta({ description: 'The import id (UUID)' }) }))
    .output(single(importResource))
    .query(async ({ ctx, input }) => ({ data: await getImport(ctx.tx, ctx.scope, input.id) })),
});
