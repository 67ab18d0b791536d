// /bank-accounts/{id}/statements and /bank-accounts/{id}/lines: importing a bank statement (camt.053, camt.054 or a
// Danish bank's CSV, streamed: the HTTP shell stages the body, this procedure imports it in one
// transaction), the statements imported and the lines they brought.
import { z } from 'zod';
import {
  BANK_IMPORT_TIMEOUT_MS,
  BANK_LINE_LIST,
  BANK_STATEMENT_LIST,
  bankImportQuery,
  bankLineResource,
  bankStatementResource,
  CSV_PRESET_NAMES,
  fileError,
  getBankStatement,
  importBankStatement,
  listBankLines,
  listBankStatements,
  MAX_BANK_FILE_BYTES,
  type ListParams,
} from '@tlr/domain';
import { uuid } from '@tlr/domain/fields';
import { metaOf } from '../crud.ts';
import { list, single } from '../schemas/envelopes.ts';
import { listQuery } from '../schemas/list-query.ts';
import { authedProcedure, router } from '../trpc.ts';

const tag = 'Bank accounts';
const read = 'transactions:read';
const write = 'transactions:write';
const accountParam = z.object({ id: uuid().meta({ description: 'The bank account id (UUID)' }) });
const notFound = "A bank account that is not one of the company's (another company's included) answers 404 not_found.";

const importDescription = [
  "The body is the file as the bank gives it, streamed (at most 200 MB): `Content-Type: application/xml` (or text/xml) for ISO 20022 camt.053 statements or camt.054 debit/credit notifications (versions .001.02 to .08, by the namespace), `text/csv` for the CSV export of a Danish bank, read by a `preset`, a column mapping (the `*_column` parameters), or else by the header's own column names (a date, a text, and an amount or money out and in: Dato, Bogført, Posteringstekst, Beløb i DKK, Ind, Ud, Saldo …); see docs/bank-statements.md. Only booked entries of a camt file are lines; a camt.054 batch entry whose transactions carry their own amounts (an FI card batch) is a line per transaction, so each FI payment id is matched.",
  "Each camt statement must be of this bank account, by its IBAN or its registration and account number (Acct/Id/IBAN or Othr/Id): one of another account is refused by name (400, naming the company's bank account it is of), or with `other_accounts=skip` left out of this import; it is never merged.",
  "Each line is stored once per bank account: its identity is the bank's reference (`ref:` + camt AcctSvcrRef) where there is one, otherwise `sha256:` of its booking date, amount, text, counterparty and reference, with `#n`, its occurrence among identical lines of the file. Importing the same statement again, or an overlapping one, stores no line twice: `lines` counts the total, the new and the duplicates.",
  "camt.053: the opening balance (OPBD, else PRCD) plus the booked entries is checked against the closing balance (CLBD); a CSV running balance column is checked line by line. A mismatch is reported in `balance` (status mismatch, `difference`) and the lines are imported all the same: the bank's file is what happened on the account.",
  "Refused, with nothing imported: a malformed file or a line of it (400 bank_file_invalid, `line` the CSV line number or the camt entry number, `field` the element or column), a CSV header that fits two readings (400 bank_file_invalid, `field` header, with `columns` and `choices`), lines in another currency than the bank account's, a camt statement of another account, XML with a DOCTYPE, another namespace than camt.053/camt.054 .001.02-08; another Content-Type (415); a body over 200 MB (413). Answers 201 with the statement and emits bank_statement.imported.",
].join('\n\n');

export const bankStatementsRouter = router({
  import: authedProcedure
    .meta({
      ...metaOf(
        {
          path: '/bank-accounts/{id}/statements',
          tag,
          summary: 'Import a bank statement (camt.053, camt.054 or CSV)',
          description: importDescription,
          scope: write,
        },
        'POST',
        {
          idempotent: { status: 201 },
        },
      ),
      streamedBody: true,
      requestBody: {
        contentType: 'application/xml',
        contentTypes: ['text/xml', 'text/csv'],
        description: `The statement file as the bank gives it, at most ${MAX_BANK_FILE_BYTES} bytes: camt.053 or camt.054 XML (UTF-8), or CSV (UTF-8 with or without a BOM, or Windows-1252) of one of the presets ${CSV_PRESET_NAMES.join(', ')}, a column mapping, or read by its column names`,
        schema: { type: 'string', description: 'camt.053 or camt.054 .001.02 to .08 XML (root Document), or CSV text' },
        query: bankImportQuery,
      },
      transactionTimeoutMs: BANK_IMPORT_TIMEOUT_MS,
    })
    .input(bankImportQuery.extend(accountParam.shape))
    .output(single(bankStatementResource))
    .mutation(async ({ ctx, input }) => {
      // The HTTP shell staged the body before the transaction; a call without one has no file.
      if (!ctx.bankFile) throw fileError(null, 'body', 'The request has no file: send the statement as the body.');
      const { id, ...options } = input;
      return { data: await importBankStatement(ctx.tx, ctx.scope, { bankAccountId: id, file: ctx.bankFile, options }) };
    }),
  statements: authedProcedure
    .meta(
      metaOf(
        {
          path: '/bank-accounts/{id}/statements',
          tag,
          summary: "List a bank account's imported statements",
          description: `One page of the statements imported into the bank account, with the contract's list parameters and \`meta\`; sorted by created_at unless \`sort\` says otherwise, ties broken by id. since and until filter on the import date; search looks in the file name and the statement reference. ${notFound}`,
          scope: read,
        },
        'GET',
      ),
    )
    .input(listQuery(BANK_STATEMENT_LIST, 'Case-insensitive search in the file name and the statement reference (camt.053 Stmt/Id)').extend(accountParam.shape))
    .output(list(bankStatementResource))
    .query(({ ctx, input }) => {
      const { id, ...params } = input;
      return listBankStatements(ctx.tx, ctx.scope, id, params as ListParams);
    }),
  statement: authedProcedure
    .meta(
      metaOf(
        {
          path: '/bank-accounts/{id}/statements/{statement_id}',
          tag,
          summary: 'Get an imported bank statement',
          description: `The same shape as the import's answer. ${notFound} So does a statement of another bank account.`,
          scope: read,
        },
        'GET',
      ),
    )
    .input(accountParam.extend({ statement_id: uuid().meta({ description: 'The statement id (UUID)' }) }))
    .output(single(bankStatementResource))
    .query(async ({ ctx, input }) => ({ data: await getBankStatement(ctx.tx, ctx.scope, input.id, input.statement_id) })),
  lines: authedProcedure
    .meta(
      metaOf(
        {
          path: '/bank-accounts/{id}/lines',
          tag,
          summary: "List a bank account's lines",
          description: `One page of the lines imported into the bank account, with the contract's list parameters and \`meta\`: sorted by booking_date unless \`sort\` says otherwise, descending unless \`order\` is asc, ties broken by id. since and until filter on the booking date; status on matched or unmatched. ${notFound}`,
          scope: read,
        },
        'GET',
      ),
    )
    .input(listQuery(BANK_LINE_LIST, 'Case-insensitive search in the text, the counterparty name and the reference').extend(accountParam.shape))
    .output(list(bankLineResource))
    .query(({ ctx, input }) => {
      const { id, ...params } = input;
      return listBankLines(ctx.tx, ctx.scope, id, params as ListParams);
    }),
});
