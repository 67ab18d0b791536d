// Importing a bank statement (POST /bank-accounts/{id}/statements), in the caller's one transaction: the
// staged file is parsed as it is read, its lines inserted 1,000 to a statement, each line once per bank
// account whatever imports run at once (ON CONFLICT on its identity), then the statement with what its
// lines came to and its event. Any refusal rolls everything back: nothing of a bad file is kept.
import { Prisma, type Db } from '@tlr/db';
import type { CompanyScope } from '../../context.ts';
import { recordEvent } from '../../events/outbox.ts';
import { newId } from '../../ids.ts';
import { toDate } from '../../calendar.ts';
import { MAX_AMOUNT } from '../../money.ts';
import { bankAccountOf } from '../lines.ts';
import type { BankStatementView } from '../schema.ts';
import { accountIds, bbanOf, parseCamt053, type KnownAccount } from './camt053.ts';
import { parseCsv } from './csv.ts';
import { LineIdentities } from './identity.ts';
import { csvOnlyOptions, xmlOnlyOptions, type BankImportOptions } from './options.ts';
import { readStaged, type StagedBankFile } from './staged.ts';
import { bankStatementView } from './statements.ts';
import { fileError, type BankFileLine, type BankFileParser } from './types.ts';

/** How long an import's transaction may run: a 100,000-line file takes about 11 s on two shared cores (docs/perf.md), with room for a slower machine or a larger file. */
export const BANK_IMPORT_TIMEOUT_MS = 5 * 60_000;

/** Rows per INSERT: 1,000 lines of 14 columns as 11 array parameters, a few hundred KB a statement. */
export const BANK_INSERT_BATCH = 1_000;

interface Row {
  id: string;
  identity: string;
  line: BankFileLine;
}

/** Inserts what is not there yet; answers how many were new. */
async function insertLines(db: Db, scope: CompanyScope, accountId: string, statementId: string, currency: string, rows: Row[]): Promise<number> {
  if (!rows.length) return 0;
  const col = <T>(pick: (r: Row) => T) => rows.map(pick);
  const inserted = await db.$queryRaw<{ n: number }[]>`
    WITH ins AS (
      INSERT INTO bank_lines (id, company_id, bank_account_id, statement_id, identity, booking_date, value_date, amount, currency,
                              text, counterparty_name, counterparty_iban, reference, bank_reference)
      SELECT u.id, ${scope.companyId}::uuid, ${accountId}::uuid, ${statementId}::uuid, u.identity, u.booking_date, u.value_date, u.amount,
             ${currency}, u.text, u.counterparty_name, u.counterparty_iban, u.reference, u.bank_reference
      FROM unnest(${col((r) => r.id)}::uuid[], ${col((r) => r.identity)}::text[], ${col((r) => r.line.booking_date)}::text[]::date[],
                  ${col((r) => r.line.value_date)}::text[]::date[], ${col((r) => r.line.amount.toFixed(2))}::text[]::numeric[],
                  ${col((r) => r.line.text)}::text[], ${col((r) => r.line.counterparty_name)}::text[], ${col((r) => r.line.counterparty_iban)}::text[],
                  ${col((r) => r.line.reference)}::text[], ${col((r) => r.line.bank_reference)}::text[])
        WITH ORDINALITY AS u(id, identity, booking_date, value_date, amount, text, counterparty_name, counterparty_iban, reference, bank_reference, n)
      ORDER BY u.n
      ON CONFLICT (bank_account_id, identity) DO NOTHING
      RETURNING 1
    )
    SELECT count(*)::int AS n FROM ins`;
  return inserted[0]?.n ?? 0;
}

/** The company's other bank accounts, to name the one a foreign camt statement is of. */
async function otherAccounts(db: Db, scope: CompanyScope, id: string): Promise<KnownAccount[]> {
  const rows = await db.bankAccount.findMany({
    where: { company_id: scope.companyId, NOT: { id } },
    select: { id: true, name: true, iban: true, bank_reg_number: true, bank_account_number: true },
  });
  return rows.map((r) => ({ id: r.id, name: r.name, ...accountIds(r.iban, bbanOf(r.bank_reg_number, r.bank_account_number)) }));
}

export interface BankImportInput {
  bankAccountId: string;
  file: StagedBankFile;
  options: BankImportOptions;
}

/**
 * Imports a staged bank file into one of the company's bank accounts. One import per bank account at a
 * time (a transaction-scoped advisory lock): a second import of the same file waits and then finds
 * every line there, so the split between new and duplicate lines is exact; the unique identity per
 * bank account still holds each line once against any other writer.
 */
export async function importBankStatement(db: Db, scope: CompanyScope, input: BankImportInput): Promise<BankStatementView> {
  const { file, options } = input;
  const account = await bankAccountOf(db, scope, input.bankAccountId);
  if (file.kind === 'camt053') {
    const csvOnly = csvOnlyOptions(options);
    if (csvOnly.length)
      throw fileError(null, csvOnly[0]!, `${csvOnly.join(', ')} ${csvOnly.length === 1 ? 'is' : 'are'} for CSV files; a camt.053 file says what it holds`);
  } else {
    const xmlOnly = xmlOnlyOptions(options);
    if (xmlOnly.length) throw fileError(null, xmlOnly[0]!, `${xmlOnly.join(', ')} is for camt.053 and camt.054 files, which name their accounts`);
  }
  if (file.size === 0) throw fileError(null, 'body', 'The request has no file: send the statement as the body.');
  await db.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`bank-import:${account.id}`}, 0))`;

  const source = readStaged(file);
  const parser: BankFileParser =
    file.kind === 'camt053'
      ? parseCamt053(source, {
          currency: account.currency,
          account: accountIds(account.iban, bbanOf(account.bank_reg_number, account.bank_account_number)),
          others: await otherAccounts(db, scope, account.id),
          otherAccounts: options.other_accounts,
        })
      : parseCsv(source, options, { utf8: file.utf8, currency: account.currency });
  const statementId = newId();
  const identities = new LineIdentities();
  let batch: Row[] = [];
  let total = 0;
  let fresh = 0;
  const flush = async () => {
    fresh += await insertLines(db, scope, account.id, statementId, account.currency, batch);
    batch = [];
  };
  let step = await parser.next();
  while (!step.done) {
    for (const line of step.value) {
      batch.push({ id: newId(), identity: identities.of(line), line });
      total++;
      if (batch.length >= BANK_INSERT_BATCH) await flush();
    }
    step = await parser.next();
  }
  await flush();
  const head = step.value;
  // A balance the lines imply (an opening from the first line, a difference) must be an amount as well.
  for (const [value, field] of [
    [head.opening, 'opening balance'],
    [head.closing, 'closing balance'],
    [head.balance_difference, 'balance difference'],
  ] as const) {
    if (value?.abs().greaterThan(MAX_AMOUNT))
      throw fileError(null, 'balance', `the statement's ${field} is beyond ${MAX_AMOUNT.toFixed(2)}, the largest amount`);
  }
  const row = await db.bankStatement.create({
    data: {
      id: statementId,
      company_id: scope.companyId,
      bank_account_id: account.id,
      format: head.format,
      file_name: (options.file_name ?? file.dispositionName).slice(0, 255),
      file_sha256: file.sha256,
      statement_ref: head.statement_ref,
      from_date: head.from_date ? toDate(head.from_date) : null,
      to_date: head.to_date ? toDate(head.to_date) : null,
      opening_balance: head.opening === null ? null : new Prisma.Decimal(head.opening.toFixed(2)),
      closing_balance: head.closing === null ? null : new Prisma.Decimal(head.closing.toFixed(2)),
      balance_status: head.balance_status,
      balance_difference: head.balance_difference === null ? null : new Prisma.Decimal(head.balance_difference.toFixed(2)),
      line_count: total,
      new_count: fresh,
      duplicate_count: total - fresh,
    },
  });
  const view = bankStatementView(row);
  await recordEvent(db, scope, 'bank_statement.imported', view);
  return view;
}
