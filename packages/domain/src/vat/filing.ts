// Filing the settled VAT return with Skattestyrelsen through the RSU B2B gateway (docs/vat-return.md,
// Filing): POST /vat-returns/{period}/submit checks the period in the company's calendar
// (VirksomhedKalenderHent) and sends the settled version as a draft (ModtagMomsangivelseForeloebig),
// answered with the link where the company approves it on skat.dk; GET /vat-returns/{period}/filing
// fetches the receipt once approved (MomsangivelseKvitteringHent) and keeps its PDF as a voucher on the
// settlement posting, the amount to pay, the payment deadline and the OCR line. A version is sent once:
// the company's row lock holds two submits apart and the second finds the first's filing. A transport
// failure queues the filing for the submit-vat-filing job, which sends the same request (the same
// TransaktionIdentifikator) again with back-off; Skattestyrelsen's error codes are never retried.
import { readFileSync, statSync } from 'node:fs';
import type { X509Certificate } from 'node:crypto';
import type { z } from 'zod';
import type { Db, InTransaction } from '@tlr/db';
import type { CompanyScope } from '../context.ts';
import { DomainError, invalidRequest } from '../errors.ts';
import { recordEvent } from '../events/outbox.ts';
import { newId } from '../ids.ts';
import { fromDate, toDate as toDateColumn } from '../calendar.ts';
import { amountToJson, Decimal } from '../money.ts';
import type { VatFrequency } from '../ledger/fiscal-years.ts';
import { markVoucherPosted, stageBytes, uploadVoucher, type VoucherStore } from '../vouchers/vouchers.ts';
import { VAT_RETURN_FIELDS, type VatReturnField } from './codes.ts';
import { fromJson, latestFiled } from './filed-returns.ts';
import { companyPeriod } from './return-figures.ts';
import type { VatPeriod } from './periods.ts';
import type { vatFilingResource } from './schema.ts';
import { CertificateRefusal, readPemCertificates, readPkcs12 } from './skat/certificates.ts';
import { callSkat, SkatFaultError, SkatTransportError, type SkatGateway } from './skat/client.ts';
import {
  calendarRequest,
  draftRequest,
  FREQUENCY_CODES,
  newTransaction,
  readCalendarAnswer,
  readDraftAnswer,
  readReceiptAnswer,
  receiptRequest,
  type SkatAnswer,
  type SkatMessage,
  type Transaction,
} from './skat/messages.ts';

export type VatFilingView = z.input<typeof vatFilingResource>;

/** The operator settings of the gateway (SKAT_*; config). */
export interface SkatSettings {
  certFile?: string | undefined;
  certPassphrase?: string | undefined;
  gatewayUrl?: string | undefined;
  gatewayCertFile?: string | undefined;
  gatewayCaFile?: string | undefined;
  timeoutMs: number;
  /** The back-off's unit (WEBHOOK_RETRY_UNIT_MS, 5 s unless a test shortens it). */
  retryUnitMs?: number | undefined;
}

const notConfigured = (setting: string, why: string) =>
  new DomainError('skat_not_configured', `Filing with Skattestyrelsen is not set up on this server: ${setting} ${why}.`, setting);

let cached: { key: string; gateway: Omit<SkatGateway, 'timeoutMs'> } | undefined;

/**
 * The gateway of the settings, its files read once (again when a file changes). Refused with 503
 * skat_not_configured naming the setting: one missing, a file that does not open, the provider's
 * certificate outside its validity.
 */
export function skatGateway(s: SkatSettings | undefined, now: Date = new Date()): SkatGateway {
  const required = [
    ['SKAT_CERT_FILE', s?.certFile],
    ['SKAT_CERT_PASSPHRASE', s?.certPassphrase],
    ['SKAT_GATEWAY_URL', s?.gatewayUrl],
    ['SKAT_GATEWAY_CERT_FILE', s?.gatewayCertFile],
    ['SKAT_GATEWAY_CA_FILE', s?.gatewayCaFile],
  ] as const;
  for (const [name, value] of required) if (value === undefined || value === '') throw notConfigured(name, 'is not set');
  const files = [s!.certFile!, s!.gatewayCertFile!, s!.gatewayCaFile!];
  const stamp = (f: string, name: string) => {
    try {
      return statSync(f).mtimeMs;
    } catch {
      throw notConfigured(name, `names a file that cannot be read (${f})`);
    }
  };
  const key = [
    ...files.map((f, i) => `${f}@${stamp(f, ['SKAT_CERT_FILE', 'SKAT_GATEWAY_CERT_FILE', 'SKAT_GATEWAY_CA_FILE'][i]!)}`),
    s!.certPassphrase,
    s!.gatewayUrl,
  ].join('\n');
  if (cached?.key !== key) {
    let signer: SkatGateway['signer'];
    try {
      signer = readPkcs12(readFileSync(s!.certFile!), s!.certPassphrase!);
    } catch (e) {
      if (e instanceof CertificateRefusal) throw notConfigured(e.rule === 'passphrase' ? 'SKAT_CERT_PASSPHRASE' : 'SKAT_CERT_FILE', `is refused: ${e.message}`);
      throw e;
    }
    const pem = (f: string, name: string): X509Certificate[] => {
      const certs = readPemCertificates(readFileSync(f, 'utf8'));
      if (!certs.length) throw notConfigured(name, 'names a file without a PEM certificate');
      return certs;
    };
    cached = {
      key,
      gateway: {
        url: s!.gatewayUrl!,
        signer,
        gatewayCertificate: pem(s!.gatewayCertFile!, 'SKAT_GATEWAY_CERT_FILE')[0]!,
        gatewayCa: pem(s!.gatewayCaFile!, 'SKAT_GATEWAY_CA_FILE'),
      },
    };
  }
  const gateway = { ...cached.gateway, timeoutMs: s!.timeoutMs };
  const c = gateway.signer.certificate;
  if (new Date(c.validTo) < now || new Date(c.validFrom) > now) {
    throw notConfigured(
      'SKAT_CERT_FILE',
      `holds a certificate valid ${new Date(c.validFrom).toISOString().slice(0, 10)} to ${new Date(c.validTo).toISOString().slice(0, 10)}, not today: renew the OCES3 certificate`,
    );
  }
  return gateway;
}

/** Skattestyrelsen's first error of an answer, as a problem naming the code and its text. */
function refusedBySkat(a: SkatAnswer): DomainError | undefined {
  const fejl = a.messages.find((m) => m.kind === 'fejl');
  if (!fejl) return undefined;
  return new DomainError('skat_error', `Skattestyrelsen refused the call (${a.service}): ${fejl.code} ${fejl.text}.`, 'period', {
    skat: { service: a.service, code: fejl.code, text: fejl.text },
  });
}

const gatewayRefused = (e: SkatFaultError) => new DomainError('skat_gateway_refused', e.message, 'period');

type FilingRow = NonNullable<Awaited<ReturnType<Db['vatFiling']['findFirst']>>>;

export function filingView(r: FilingRow): VatFilingView {
  return {
    period: r.period,
    version: r.version,
    kind: r.kind as VatFilingView['kind'],
    state: r.state as VatFilingView['state'],
    se_number: r.se_number,
    transaction_id: r.request_transaction_id,
    skat_transaction_id: r.skat_transaction_id || null,
    approval_url: r.approval_url || null,
    messages: r.messages as unknown as VatFilingView['messages'],
    attempts: r.attempts,
    last_error: r.last_error || null,
    submitted_at: r.submitted_at?.toISOString() ?? null,
    approved_at: r.approved_at?.toISOString() ?? null,
    amount_due: r.amount_due === null ? null : amountToJson(r.amount_due),
    payment_deadline: r.payment_deadline ? fromDate(r.payment_deadline) : null,
    ocr_line: r.ocr_line || null,
    receipt_voucher_id: r.receipt_voucher_id,
    calendar_deadline: r.calendar_deadline ? fromDate(r.calendar_deadline) : null,
    paid_transaction_id: r.paid_transaction_id,
  };
}

/** The kroner of a filed version as the 17 fields. */
const kronerOf = (fields: unknown) =>
  Object.fromEntries(VAT_RETURN_FIELDS.map((f) => [f, fromJson(fields as never)[f].toNumber()])) as Record<VatReturnField, number>;

interface CalendarCheck {
  warnings: SkatMessage[];
  /** The calendar's filing deadline of the period (the first after its end), when it gives one. */
  deadline: string | null;
}

/**
 * The period in the company's calendar: a frequency in force over the whole period, else 409
 * vat_period_unknown_to_skat; a frequency other than tlr's is a warning on the filing.
 */
async function checkCalendar(gateway: SkatGateway, seNumber: string, period: VatPeriod, frequency: VatFrequency): Promise<CalendarCheck> {
  const answer = await callSkat(gateway, 'VirksomhedKalenderHent', calendarRequest(newTransaction(), seNumber, period.start, period.end));
  const refused = refusedBySkat(answer);
  if (refused) throw refused;
  const frequencies = readCalendarAnswer(answer).filter((f) => f.code !== '00' && f.from <= period.start && (!f.to || f.to >= period.end));
  if (!frequencies.length) {
    throw new DomainError(
      'vat_period_unknown_to_skat',
      `Skattestyrelsen's calendar of SE number ${seNumber} lists no VAT period covering ${period.period} (${period.start} to ${period.end}).`,
      'period',
    );
  }
  const code = frequencies[0]!.code;
  const deadline =
    frequencies[0]!.deadlines
      .map((d) => d.filing)
      .filter((d) => d > period.end)
      .sort()[0] ?? null;
  return {
    deadline,
    warnings:
      code === FREQUENCY_CODES[frequency]
        ? []
        : [
            {
              kind: 'advis',
              code: 'frequency_mismatch',
              text: `Skattestyrelsen registers the company with frequency code ${code}; tlr files ${frequency} returns (code ${FREQUENCY_CODES[frequency]}): change vat_period_frequency or the registration.`,
            },
          ],
  };
}

/** Sends the draft request; a transport failure is returned (the caller queues), anything else thrown. */
async function sendDraft(gateway: SkatGateway, t: Transaction, seNumber: string, start: string, end: string, fields: unknown) {
  try {
    const answer = await callSkat(gateway, 'ModtagMomsangivelseForeloebig', draftRequest(t, seNumber, start, end, kronerOf(fields)));
    const refused = refusedBySkat(answer);
    if (refused) throw refused;
    return { answer, draft: readDraftAnswer(answer) };
  } catch (e) {
    if (e instanceof SkatTransportError) return { transport: e.message };
    if (e instanceof SkatFaultError) throw gatewayRefused(e);
    throw e;
  }
}

async function markSubmitted(
  db: Db,
  scope: CompanyScope,
  id: string,
  answer: SkatAnswer,
  draft: { draftTransactionId: string; approvalUrl: string },
  earlier: SkatMessage[],
) {
  const row = await db.vatFiling.update({
    where: { id },
    data: {
      state: 'submitted',
      skat_transaction_id: draft.draftTransactionId,
      approval_url: draft.approvalUrl,
      messages: [...earlier, ...answer.messages] as never,
      submitted_at: new Date(),
      next_attempt_at: null,
      last_error: '',
    },
  });
  await recordEvent(db, scope, 'vat_return.submitted', {
    period: row.period,
    version: row.version,
    kind: row.kind,
    transaction_id: row.request_transaction_id,
    approval_url: row.approval_url,
  });
  return row;
}

/** The retry schedule of a transport failure: 5 s, 10 s, 20 s ... up to 8 attempts, then failed. */
export const FILING_MAX_ATTEMPTS = 8;
export const filingRetryDelayMs = (attempts: number, unitMs = 5000) => unitMs * 2 ** Math.max(0, attempts - 1);

/**
 * POST /vat-returns/{period}/submit: the settled version of the period, once. Returns the filing and,
 * when a transport failure queued it, the moment its job is due.
 */
export async function submitVatReturn(
  db: Db,
  scope: CompanyScope,
  periodText: string,
  /** The gateway, asked for once the period is known to be one (its settings may be missing: 503). */
  gatewayOf: () => SkatGateway,
  retryUnitMs?: number,
): Promise<{ filing: VatFilingView; queued?: { id: string; due: Date } }> {
  const { period } = await companyPeriod(db, scope, periodText);
  const gateway = gatewayOf();
  await db.$queryRaw`SELECT 1 FROM companies WHERE id = ${scope.companyId}::uuid FOR UPDATE`;
  const filed = await latestFiled(db, scope, period.period);
  if (!filed)
    throw new DomainError(
      'vat_return_not_settled',
      `The VAT return for ${period.period} is not settled; settle it first (POST /vat-returns/${period.period}/settle).`,
      'period',
    );
  const existing = await db.vatFiling.findFirst({ where: { company_id: scope.companyId, period: period.period, version: filed.version } });
  if (existing) return { filing: filingView(existing) };
  const company = await db.company.findUniqueOrThrow({ where: { id: scope.companyId }, select: { se_number: true, cvr: true, vat_period_frequency: true } });
  const seNumber = company.se_number || company.cvr || '';
  if (!seNumber) throw invalidRequest('se_number: the company has neither an SE number nor a CVR number to file under (PUT /settings/company).', 'se_number');

  let calendar: CalendarCheck;
  try {
    calendar = await checkCalendar(gateway, seNumber, period, company.vat_period_frequency as VatFrequency);
  } catch (e) {
    if (e instanceof SkatFaultError) throw gatewayRefused(e);
    if (!(e instanceof SkatTransportError)) throw e;
    calendar = { warnings: [], deadline: null };
  }
  const approvedBefore = await db.vatFiling.count({ where: { company_id: scope.companyId, period: period.period, state: 'approved' } });
  const t = newTransaction();
  const sent = await sendDraft(gateway, t, seNumber, period.start, period.end, filed.fields);
  const row = await db.vatFiling.create({
    data: {
      id: newId(),
      company_id: scope.companyId,
      period: period.period,
      version: filed.version,
      kind: approvedBefore || filed.version > 1 ? 'follow_up' : 'ordinary',
      state: 'queued',
      se_number: seNumber,
      request_transaction_id: t.id,
      fields: filed.fields as never,
      messages: calendar.warnings as never,
      calendar_deadline: calendar.deadline ? toDateColumn(calendar.deadline) : null,
      attempts: 1,
    },
  });
  if ('transport' in sent) {
    const retryAt = new Date(Date.now() + filingRetryDelayMs(1, retryUnitMs));
    const queued = await db.vatFiling.update({ where: { id: row.id }, data: { last_error: sent.transport ?? '', next_attempt_at: retryAt } });
    return { filing: filingView(queued), queued: { id: row.id, due: retryAt } };
  }
  return { filing: filingView(await markSubmitted(db, scope, row.id, sent.answer, sent.draft, calendar.warnings)) };
}

/**
 * The submit-vat-filing job: the queued filing's request sent again (the same TransaktionIdentifikator,
 * so a request that did arrive is not a second draft). Returns the next attempt's moment while the
 * transport keeps failing, undefined once settled (submitted, refused, or failed after the last attempt).
 */
export async function retryVatFiling(run: InTransaction, filingId: string, gateway: SkatGateway, unitMs?: number): Promise<Date | undefined> {
  return run(async (db) => {
    const [row] = await db.$queryRaw<{ id: string }[]>`SELECT id FROM vat_filings WHERE id = ${filingId}::uuid AND state = 'queued' FOR UPDATE SKIP LOCKED`;
    if (!row) return undefined;
    const f = await db.vatFiling.findUniqueOrThrow({ where: { id: filingId } });
    const company = await db.company.findUniqueOrThrow({ where: { id: f.company_id }, select: { sandbox_of_id: true } });
    const scope: CompanyScope = { companyId: f.company_id, livemode: company.sandbox_of_id === null };
    const p = await db.vatReturn.findFirstOrThrow({ where: { company_id: f.company_id, period: f.period, version: f.version } });
    const t: Transaction = { id: f.request_transaction_id, time: new Date().toISOString() };
    try {
      const sent = await sendDraft(gateway, t, f.se_number, fromDate(p.start_date), fromDate(p.end_date), f.fields);
      if ('transport' in sent) {
        const attempts = f.attempts + 1;
        const failed = attempts >= FILING_MAX_ATTEMPTS;
        const next = failed ? null : new Date(Date.now() + filingRetryDelayMs(attempts, unitMs));
        await db.vatFiling.update({
          where: { id: f.id },
          data: { attempts, last_error: sent.transport ?? '', state: failed ? 'failed' : 'queued', next_attempt_at: next },
        });
        return next ?? undefined;
      }
      await markSubmitted(db, scope, f.id, sent.answer, sent.draft, f.messages as unknown as SkatMessage[]);
    } catch (e) {
      if (!(e instanceof DomainError)) throw e;
      const skat = e.extensions.skat;
      await db.vatFiling.update({
        where: { id: f.id },
        data: {
          state: 'refused',
          attempts: f.attempts + 1,
          last_error: e.message,
          next_attempt_at: null,
          messages: [...(f.messages as unknown as SkatMessage[]), ...(skat ? [{ kind: 'fejl', code: skat.code, text: skat.text }] : [])] as never,
        },
      });
    }
    return undefined;
  });
}

/** The filings due for a retry (the sweep that sends a job lost in a crash again). */
export async function filingsDue(db: Db, within: Date): Promise<{ id: string; due: Date }[]> {
  const rows = await db.vatFiling.findMany({
    where: { state: 'queued', next_attempt_at: { lte: within } },
    select: { id: true, next_attempt_at: true },
    take: 100,
  });
  return rows.map((r) => ({ id: r.id, due: r.next_attempt_at! }));
}

/** The latest filing of a period as the API shows it, or null. */
export async function filingOf(db: Db, scope: CompanyScope, period: string): Promise<VatFilingView | null> {
  const row = await latestFiling(db, scope, period);
  return row ? filingView(row) : null;
}

/** The latest filing of a period (its highest version sent), or undefined. */
export async function latestFiling(db: Db, scope: CompanyScope, period: string): Promise<FilingRow | undefined> {
  return (await db.vatFiling.findFirst({ where: { company_id: scope.companyId, period }, orderBy: { version: 'desc' } })) ?? undefined;
}

/**
 * GET /vat-returns/{period}/filing: the latest filing of the period; while it awaits approval, the
 * receipt is asked for. Not approved yet (4810) leaves it as it is; rejected (4811) marks it refused;
 * approved stores the receipt PDF as a voucher on the settlement posting and the payment details, and
 * emits vat_return.approved. `store`: without one, the receipt waits (the filing stays submitted).
 */
export async function pollVatFiling(
  run: InTransaction,
  pool: Db,
  scope: CompanyScope,
  periodText: string,
  /** The gateway, asked for only when a receipt is to be fetched (its settings may be missing: 503). */
  gatewayOf: () => SkatGateway,
  store: VoucherStore | undefined,
): Promise<VatFilingView> {
  const { period } = await companyPeriod(pool, scope, periodText);
  const current = await latestFiling(pool, scope, period.period);
  if (!current)
    throw new DomainError(
      'not_found',
      `The VAT return for ${period.period} has not been submitted to Skattestyrelsen (POST /vat-returns/${period.period}/submit).`,
      'period',
    );
  if (current.state !== 'submitted') return filingView(current);
  const gateway = gatewayOf();
  let answer: SkatAnswer;
  try {
    answer = await callSkat(gateway, 'MomsangivelseKvitteringHent', receiptRequest(newTransaction(), current.se_number, current.skat_transaction_id));
  } catch (e) {
    if (e instanceof SkatTransportError) return filingView(current);
    if (e instanceof SkatFaultError) throw gatewayRefused(e);
    throw e;
  }
  const fejl = answer.messages.find((m) => m.kind === 'fejl');
  if (fejl?.code === '4810') return filingView(current);
  return run(async (db) => {
    const [locked] = await db.$queryRaw<{ state: string }[]>`SELECT state FROM vat_filings WHERE id = ${current.id}::uuid FOR UPDATE`;
    if (locked?.state !== 'submitted') return filingView(await db.vatFiling.findUniqueOrThrow({ where: { id: current.id } }));
    if (fejl) {
      if (fejl.code !== '4811') throw refusedBySkat(answer)!;
      const row = await db.vatFiling.update({
        where: { id: current.id },
        data: { state: 'refused', messages: [...(current.messages as unknown as SkatMessage[]), fejl] as never },
      });
      return filingView(row);
    }
    const receipt = readReceiptAnswer(answer);
    if (!receipt.pdf || !store) return filingView(current);
    const filed = await db.vatReturn.findFirstOrThrow({ where: { company_id: scope.companyId, period: current.period, version: current.version } });
    const voucher = await uploadVoucher(db, pool, store, scope, {
      filename: `kvittering-moms-${current.period}-v${current.version}.pdf`,
      mime_type: 'application/pdf',
      content: await stageBytes(receipt.pdf),
    });
    if (filed.transaction_id) await markVoucherPosted(db, scope, voucher.id, { id: filed.transaction_id, date: fromDate(filed.end_date) });
    const ocr = receipt.ocr ? `+${receipt.ocr.cardType}<${receipt.ocr.number} +${receipt.ocr.account}<` : '';
    const row = await db.vatFiling.update({
      where: { id: current.id },
      data: {
        state: 'approved',
        approved_at: new Date(),
        amount_due: receipt.amount === null ? null : new Decimal(receipt.amount).toFixed(2),
        payment_deadline: receipt.paymentDeadline ? toDateColumn(receipt.paymentDeadline) : null,
        ocr_line: ocr,
        receipt_voucher_id: voucher.id,
        messages: [...(current.messages as unknown as SkatMessage[]), ...answer.messages] as never,
      },
    });
    await recordEvent(db, scope, 'vat_return.approved', {
      period: row.period,
      version: row.version,
      amount_due: row.amount_due === null ? null : amountToJson(row.amount_due),
      payment_deadline: receipt.paymentDeadline,
      ocr_line: ocr,
      receipt_voucher_id: voucher.id,
    });
    return filingView(row);
  });
}
