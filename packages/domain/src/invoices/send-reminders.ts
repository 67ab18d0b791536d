// Payment reminders (rykkere) on the books: issuing one on an invoice (by request or by the daily job),
// listing an invoice's reminders, and what a reminder's PDF shows. A reminder, the posting of its fee and
// interest and its invoice.reminder_sent event commit in one transaction, under the invoice's row lock,
// so two requests at once (or two job runs) issue one reminder and the second is refused or skips.
import { Prisma, type Db, type InTransaction, type InvoiceReminder } from '@tlr/db';
import { fromDate, toDate, today } from '../calendar.ts';
import type { CompanyScope } from '../context.ts';
import { DomainError, invalidRequest, notFound } from '../errors.ts';
import { recordEvent } from '../events/outbox.ts';
import { newId } from '../ids.ts';
import { postTransaction } from '../ledger/post.ts';
import { listPage, type ListParams, type ListSpec, type Page } from '../lists/list.ts';
import { amountToJson, Decimal } from '../money.ts';
import { accountsByNumber } from './posting-accounts.ts';
import { queueReminderEinvoice } from '../einvoice/outbound-reminders.ts';
import { reminderEinvoiceView } from '../einvoice/views.ts';
import { DEFAULT_ACCOUNTS } from '../ledger/default-accounts.ts';
import { interestDays, interestRate, isBusinessBuyer, nextReminderNumber, reminderInterest, type PreviousReminder } from './reminders.ts';
import type { ReminderInput, ReminderView } from './reminder-schema.ts';

export const REMINDER_LIST = {
  sort: { number: 'number', date: 'date', created_at: 'created_at' },
  defaultSort: 'number',
  search: ['invoice_number'],
  dateColumn: 'date',
  dateDescription: 'reminder date',
} satisfies ListSpec;

const dec = (v: { toString(): string }) => new Decimal(v.toString());

/** The invoice's reminder messages (OIOUBL Reminders), as a reminder shows its own. */
type ReminderMessages = Parameters<typeof reminderEinvoiceView>[0];
const reminderMessages = (db: Db, scope: CompanyScope, invoiceId: string): Promise<ReminderMessages> =>
  db.einvoiceMessage.findMany({
    where: { company_id: scope.companyId, invoice_id: invoiceId, direction: 'outbound', document_kind: 'reminder' },
    select: { id: true, reminder_number: true, status: true, last_response: true },
  });

/**
 * A reminder as the API shows it; `charges` is the fees and interest of it and the reminders before it,
 * `messages` the invoice's reminder messages (its e-invoice among them, when it went as one).
 */
function reminderView(r: InvoiceReminder, currency: string, charges: Decimal, messages: ReminderMessages): ReminderView {
  return {
    id: r.id,
    invoice_id: r.invoice_id,
    invoice_number: r.invoice_number,
    number: r.number,
    date: fromDate(r.date),
    currency,
    balance_due: amountToJson(r.balance_due),
    fee: amountToJson(r.fee),
    interest: amountToJson(r.interest),
    interest_rate: r.rate === null ? null : r.rate.toFixed(2),
    interest_days: r.interest_days,
    charges_total: amountToJson(charges),
    transaction_id: r.transaction_id,
    einvoice: reminderEinvoiceView(messages, r.number),
    created_at: r.created_at.toISOString(),
  };
}

/** Each reminder of an invoice (all of them, in number order) with the charges up to and including it. */
function withCharges(all: readonly InvoiceReminder[]): Map<string, Decimal> {
  let sum = new Decimal(0);
  return new Map(all.map((r) => [r.id, (sum = sum.plus(dec(r.fee)).plus(dec(r.interest)))]));
}

const previousOf = (rows: readonly InvoiceReminder[]): PreviousReminder[] =>
  rows.map((r) => ({ number: r.number, date: fromDate(r.date), charged_interest: r.rate !== null }));

interface LockedInvoice {
  id: string;
  status: string;
  invoice_number: string;
  due_date: Date;
  currency: string;
  total: Prisma.Decimal;
  paid_amount: Prisma.Decimal;
  total_dkk: Prisma.Decimal;
  paid_dkk: Prisma.Decimal;
  customer_cvr: string;
  customer_vat_number: string;
  customer_ean: string;
  reminder_fee_enabled: boolean;
  reminder_fee: Prisma.Decimal;
  reminder_interest_enabled: boolean;
  reminder_reference_rate: Prisma.Decimal;
}

/** The invoice of the caller's company with its company's reminder settings, its row locked until commit. */
async function lockForReminder(db: Db, scope: CompanyScope, invoiceId: string, skipLocked = false): Promise<LockedInvoice | undefined> {
  const [row] = await db.$queryRaw<LockedInvoice[]>`
    SELECT i.id, i.status, i.invoice_number, i.due_date, i.currency, i.total, i.paid_amount, i.total_dkk, i.paid_dkk,
           i.customer_cvr, i.customer_vat_number, i.customer_ean,
           c.reminder_fee_enabled, c.reminder_fee, c.reminder_interest_enabled, c.reminder_reference_rate
    FROM invoices AS i JOIN companies AS c ON c.id = i.company_id
    WHERE i.id = ${invoiceId}::uuid AND i.company_id = ${scope.companyId}::uuid
    FOR UPDATE OF i ${skipLocked ? Prisma.sql`SKIP LOCKED` : Prisma.empty}`;
  return row;
}

/**
 * Issues the next reminder of a locked invoice dated `date`: the rules (reminders.ts), the fee and interest
 * the company's settings give, their posting, the row and the event. Read under the lock, the reminders
 * before it include any another transaction committed while this one waited.
 */
async function issueReminder(db: Db, scope: CompanyScope, invoice: LockedInvoice, date: string): Promise<ReminderView> {
  const previous = await db.invoiceReminder.findMany({ where: { invoice_id: invoice.id }, orderBy: { number: 'asc' } });
  const due = fromDate(invoice.due_date);
  const number = nextReminderNumber({ status: invoice.status, invoice_number: invoice.invoice_number, due_date: due }, previousOf(previous), date);

  const fee = invoice.reminder_fee_enabled ? dec(invoice.reminder_fee) : new Decimal(0);
  const balanceDkk = dec(invoice.total_dkk).minus(dec(invoice.paid_dkk));
  const charged = invoice.reminder_interest_enabled && isBusinessBuyer(invoice);
  const rate = charged ? interestRate(dec(invoice.reminder_reference_rate)) : null;
  const days = rate ? interestDays(due, previousOf(previous), date) : 0;
  const interest = rate ? reminderInterest(balanceDkk, rate, days) : new Decimal(0);

  let transactionId: string | null = null;
  const claim = fee.plus(interest);
  if (claim.greaterThan(0)) {
    const account = await accountsByNumber(db, scope, [DEFAULT_ACCOUNTS.receivable, DEFAULT_ACCOUNTS.reminderFee, DEFAULT_ACCOUNTS.reminderInterest]);
    const zero = new Decimal(0);
    const text = `Rykker ${number} for faktura ${invoice.invoice_number}`;
    const credit = (n: string, amount: Decimal, description: string) =>
      amount.greaterThan(0) ? [{ accountId: account(n).id, account: account(n), debit: zero, credit: amount, description, vatCode: '' }] : [];
    const posted = await postTransaction(db, scope, {
      date,
      description: text,
      source: 'reminder',
      sourceId: invoice.id,
      lines: [
        {
          accountId: account(DEFAULT_ACCOUNTS.receivable).id,
          account: account(DEFAULT_ACCOUNTS.receivable),
          debit: claim,
          credit: zero,
          description: text,
          vatCode: '',
        },
        ...credit(DEFAULT_ACCOUNTS.reminderFee, fee, `Rykkergebyr: ${text}`),
        ...credit(DEFAULT_ACCOUNTS.reminderInterest, interest, `Renter ${rate?.toFixed(2)} % p.a. i ${days} dage: ${text}`),
      ],
    });
    transactionId = posted.id;
  }
  const row = await db.invoiceReminder.create({
    data: {
      id: newId(),
      company_id: scope.companyId,
      invoice_id: invoice.id,
      number,
      invoice_number: invoice.invoice_number,
      date: toDate(date),
      balance_due: dec(invoice.total).minus(dec(invoice.paid_amount)).toFixed(2),
      balance_dkk: balanceDkk.toFixed(2),
      fee: fee.toFixed(2),
      interest: interest.toFixed(2),
      interest_days: days,
      rate: rate?.toFixed(2) ?? null,
      transaction_id: transactionId,
    },
  });
  // An invoice sent as OIOUBL gets its reminder the same way, once (decision 695).
  const message = await queueReminderEinvoice(db, scope, invoice.id, row, previous);
  const view = reminderView(row, invoice.currency, withCharges([...previous, row]).get(row.id)!, message ? [message] : []);
  await recordEvent(db, scope, 'invoice.reminder_sent', view);
  return view;
}

/** POST /invoices/{id}/reminders: the invoice's next reminder, dated `date` (default today, never later). */
export async function createReminder(db: Db, scope: CompanyScope, invoiceId: string, input: ReminderInput): Promise<ReminderView> {
  const day = today();
  const date = input.date ?? day;
  if (date > day) throw invalidRequest(`A reminder is dated today (${day}) or earlier, not ${date}.`, 'date');
  const invoice = await lockForReminder(db, scope, invoiceId);
  if (!invoice) throw notFound('invoice', invoiceId);
  return issueReminder(db, scope, invoice, date);
}

/** The invoice of the caller's company (404 otherwise) with its reminders in number order. */
async function remindersOf(db: Db, scope: CompanyScope, invoiceId: string) {
  const invoice = await db.invoice.findFirst({ where: { id: invoiceId, company_id: scope.companyId }, select: { id: true, currency: true } });
  if (!invoice) throw notFound('invoice', invoiceId);
  const all = await db.invoiceReminder.findMany({ where: { invoice_id: invoiceId }, orderBy: { number: 'asc' } });
  return { invoice, all, charges: withCharges(all), messages: await reminderMessages(db, scope, invoiceId) };
}

/** GET /invoices/{id}/reminders: at most three rows, so the charges are summed over all of them. */
export async function listReminders(db: Db, scope: CompanyScope, q: ListParams & { id: string }): Promise<Page<ReminderView>> {
  const { invoice, charges, messages } = await remindersOf(db, scope, q.id);
  return listPage(db.invoiceReminder, { company_id: scope.companyId, invoice_id: invoice.id }, q, REMINDER_LIST, (r) =>
    reminderView(r, invoice.currency, charges.get(r.id)!, messages),
  );
}

/** One reminder of an invoice by its number (1, 2 or 3), with the reminders before it. */
export async function reminderByNumber(db: Db, scope: CompanyScope, invoiceId: string, number: number) {
  const { invoice, all, charges, messages } = await remindersOf(db, scope, invoiceId);
  const row = all.find((r) => r.number === number);
  if (!row) throw notFound(`reminder ${number} of invoice ${invoiceId}`);
  return { row, view: reminderView(row, invoice.currency, charges.get(row.id)!, messages), earlier: all.filter((r) => r.number < number) };
}

export interface ReminderRun {
  sent: number;
  /** Invoices whose reminder the books refused (a locked period, a deactivated account): tried again the next day. */
  failed: { invoice_id: string; code: string; detail: string }[];
}

/**
 * The daily job: every approved, sent or overdue invoice of a company with reminders_automatic gets the
 * reminder that is due on `day`, dated `day`. Candidates are read in batches by id; each invoice is issued
 * in a transaction of its own under its row lock, taken with SKIP LOCKED, and the rules are checked again
 * under it, so two runs at once issue each reminder once. `run` opens those transactions.
 */
export async function sendDueReminders(run: InTransaction, day = today(), batch = 200): Promise<ReminderRun> {
  const result: ReminderRun = { sent: 0, failed: [] };
  let after = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    const candidates = await run(
      (tx) =>
        tx.$queryRaw<{ id: string; company_id: string; livemode: boolean }[]>`
        SELECT i.id, i.company_id, c.sandbox_of_id IS NULL AS livemode
        FROM invoices AS i JOIN companies AS c ON c.id = i.company_id
        WHERE c.reminders_automatic AND i.status IN ('approved', 'sent', 'overdue') AND i.due_date < ${day}::date AND i.id > ${after}::uuid
          AND (SELECT count(*) FROM invoice_reminders AS r WHERE r.invoice_id = i.id) < 3
          AND NOT EXISTS (SELECT 1 FROM invoice_reminders AS r WHERE r.invoice_id = i.id AND r.date > ${day}::date - 10)
        ORDER BY i.id LIMIT ${batch}`,
    );
    for (const c of candidates) {
      const scope = { companyId: c.company_id, livemode: c.livemode };
      try {
        const sent = await run(async (tx) => {
          const invoice = await lockForReminder(tx, scope, c.id, true);
          if (!invoice) return false; // another run has it now
          try {
            await issueReminder(tx, scope, invoice, day);
            return true;
          } catch (e) {
            // Issued meanwhile by another run or a request (checked again under the lock): nothing is due.
            if (e instanceof DomainError && ['reminder_too_early', 'reminder_limit_reached', 'invoice_not_remindable'].includes(e.code)) return false;
            throw e;
          }
        });
        if (sent) result.sent++;
      } catch (e) {
        if (!(e instanceof DomainError)) throw e;
        result.failed.push({ invoice_id: c.id, code: e.code, detail: e.message });
      }
    }
    if (candidates.length < batch) return result;
    after = candidates.at(-1)!.id;
  }
}
