// The HTTP shell of POST /bank-accounts/{id}/statements: the body is the bank's file itself (camt.053
// XML or CSV), up to 200 MB. It is written to a temporary file as it arrives (memory holds one chunk),
// before the procedure opens its transaction, so the import reads it at disk speed whatever the client's
// speed; the procedure validates the query, checks the bank account and imports in one transaction.
import type { Logger } from 'pino';
import { requireScopes } from '@tlr/api';
import { inTransaction } from '@tlr/db';
import { QUEUES } from '@tlr/jobs';
import {
  asSystem,
  AUTOMATIC_MATCHING,
  autoMatch,
  BANK_IMPORT_TIMEOUT_MS,
  BankFileTooLarge,
  MAX_BANK_FILE_BYTES,
  stageBankFile,
  type BankFileKind,
} from '@tlr/domain';
import { extendDeadline } from './deadline.ts';
import type { RawCall, RawHandler } from './raw-routes.ts';
import { refuseEarly } from './vouchers.ts';

const XML_TYPE = /^(application|text)\/xml\s*(;|$)/i;
const CSV_TYPE = /^text\/csv\s*(;|$)/i;

/** The filename of a Content-Disposition header (RFC 6266: filename*=UTF-8''… before filename="…"), or "". */
export function dispositionName(header: string | undefined): string {
  if (!header) return '';
  const extended = /filename\*\s*=\s*UTF-8''([^;\s]+)/i.exec(header);
  if (extended) {
    try {
      return decodeURIComponent(extended[1]!);
    } catch {
      // Not percent-encoded UTF-8: the plain filename, if any, stands.
    }
  }
  const plain = /filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]+))/i.exec(header);
  return plain ? (plain[1]?.replace(/\\(.)/g, '$1') ?? plain[2] ?? '') : '';
}

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
  return async (call: RawCall) => {
    const { req, res, ctx, caller, input } = call;
    requireScopes(ctx.actor, ['transactions:write']);
    const type = req.get('Content-Type');
    const kind: BankFileKind | undefined = type && XML_TYPE.test(type) ? 'camt053' : type && CSV_TYPE.test(type) ? 'csv' : undefined;
    if (!kind) {
      return refuseEarly(
        call,
        'unsupported_media_type',
        `Send the statement as the bank gives it, with Content-Type: application/xml (camt.053) or text/csv${type ? ` (it was ${JSON.stringify(type)})` : ''}.`,
        'Content-Type',
      );
    }
    const tooLarge = () => refuseEarly(call, 'payload_too_large', `The file exceeds ${MAX_BANK_FILE_BYTES} bytes (200 MB).`, 'body');
    if (Number(req.get('Content-Length') ?? 0) > MAX_BANK_FILE_BYTES) return tooLarge();
    // A large file takes longer than the common 20 s to send and to import: the bound is the import transaction's (5 minutes), with the upload's time on top.
    extendDeadline(res, 2 * BANK_IMPORT_TIMEOUT_MS);
    let staged;
    try {
      staged = await stageBankFile(req, kind, { dispositionName: dispositionName(req.get('Content-Disposition')) });
    } catch (e) {
      if (e instanceof BankFileTooLarge) return tooLarge();
      if (!req.readableEnded) res.setHeader('Connection', 'close');
      throw e;
    }
    try {
      ctx.bankFile = staged;
      const result = await caller.bankStatements.import(input as Parameters<typeof caller.bankStatements.import>[0]);
      await matchImported(call, logger, result.data.bank_account_id);
      res.status(ctx.response.status ?? 201);
      for (const [name, value] of Object.entries(ctx.response.headers)) res.setHeader(name, value);
      res.json(result);
    } finally {
      await staged.discard();
    }
  };
}
