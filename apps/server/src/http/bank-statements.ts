// The HTTP shell of POST /bank-accounts/{id}/statements (the upload shell of raw-upload.ts): the body is
// the bank's file itself (camt.053 or camt.054 XML, or CSV), up to 200 MB, staged before the procedure opens its
// transaction, so the import reads it at disk speed whatever the client's speed; the procedure validates
// the query, checks the bank account and imports in one transaction; what it stored is then matched.
import type { Logger } from 'pino';
import { inTransaction } from '@tlr/db';
import { QUEUES } from '@tlr/jobs';
import { asSystem, AUTOMATIC_MATCHING, autoMatch, BANK_IMPORT_TIMEOUT_MS, MAX_BANK_FILE_BYTES, stageBankFile, type BankFileKind } from '@tlr/domain';
import type { RawCall, RawHandler } from './raw-routes.ts';
import { dispositionName, rawUpload } from './raw-upload.ts';

const XML_TYPE = /^(application|text)\/xml\s*(;|$)/i;
const CSV_TYPE = /^text\/csv\s*(;|$)/i;

/** Lines matched before the answer; a longer file's rest is the sweep's (the match-bank-lines job, within a minute). */
export const INLINE_MATCH_LINES = 1_000;

/**
 * Automatic matching of what the import stored, after its commit (decision 261): batches of their own,
 * so a statement's import never waits on a payment. A failure here loses nothing (the lines stay
 * unlooked-at and the sweep takes them); it is logged and the import answers as it committed.
 */
async function matchImported({ ctx }: RawCall, logger: Logger, bankAccountId: string): Promise<void> {
  try {
    await autoMatch(asSystem(inTransaction(ctx.db), QUEUES.matchBankLines.name, AUTOMATIC_MATCHING), ctx.db.prisma, {
      bankAccountId,
      limit: INLINE_MATCH_LINES,
    });
  } catch (e) {
    logger.error({ err: e, bank_account_id: bankAccountId }, 'automatic matching after an import failed; the sweep will retry');
  }
}

export function bankStatementImport(logger: Logger): RawHandler {
  return rawUpload({
    types: [
      { pattern: XML_TYPE, kind: 'camt053' as BankFileKind },
      { pattern: CSV_TYPE, kind: 'csv' as BankFileKind },
    ],
    send: 'Send the statement as the bank gives it, with Content-Type: application/xml (camt.053 or camt.054) or text/csv',
    limit: MAX_BANK_FILE_BYTES,
    what: 'The file',
    // A large file takes longer than the common 20 s to send and to import: the bound is the import transaction's (5 minutes), with the upload's time on top.
    deadlineMs: 2 * BANK_IMPORT_TIMEOUT_MS,
    stage: (body, kind, { req }) => stageBankFile(body, kind, { dispositionName: dispositionName(req.get('Content-Disposition')) }),
    run: async (call, staged) => {
      call.ctx.bankFile = staged;
      const result = await call.caller.bankStatements.import(call.input as Parameters<typeof call.caller.bankStatements.import>[0]);
      await matchImported(call, logger, result.data.bank_account_id);
      return result;
    },
    status: 201,
  });
}
