// What every procedure sees, whoever calls it: the database, the actor (an API credential through
// REST, the operator CLI, a staff user of the admin app), the request id, the Idempotency-Key, and a
// place for the HTTP status and headers of a success (the REST adapter reads them in responseMeta).
import { randomUUID } from 'node:crypto';
import type { Database } from '@tlr/db';
import type {
  Credential,
  DueEmail,
  DueMessage,
  Prefetched,
  PreparedInbound,
  StagedBankFile,
  SkatSettings,
  StagedContent,
  StagedUpload,
  VoucherStore,
  WebhookSettings,
} from '@tlr/domain';
import { writeRequestLogRecords, type RequestLogSink } from './request-log.ts';

export type StaffRole = 'support' | 'admin';

export type Actor =
  /** An API key or OAuth access token: acts on its company (the sandbox for a test key) within its scopes. */
  | { type: 'credential'; credential: Credential }
  /** The operator CLI, run by whoever operates the service: every internal procedure. */
  | { type: 'operator' }
  /** A support staff user of the admin app: the internal procedures its role allows. */
  | { type: 'staff'; userId: string; role: StaffRole }
  /** A company owner signed in on the owner pages: the procedures marked `owner`, for the companies they own. */
  | { type: 'owner'; userId: string };

export interface ApiContext {
  db: Database;
  /** null: nobody identified (a bare caller); only public documents are open to it. */
  actor: Actor | null;
  requestId: string;
  /** The Idempotency-Key of the call (the REST header, or given by an in-process caller). */
  idempotencyKey: string | undefined;
  response: { status?: number; headers: Record<string, string> };
  /** Where an in-process call's request log record goes; null when the HTTP layer records the request. */
  requestLog: RequestLogSink | null;
  /** The object store of voucher documents; absent where none is configured (voucher uploads then answer 503). */
  store?: VoucherStore | undefined;
  /** A voucher body the HTTP shell has already read and staged (POST /vouchers streams). */
  upload?: StagedContent | undefined;
  /** A received e-invoice the HTTP shell has already read and checked against the rules (POST /einvoices/inbound). */
  inbound?: PreparedInbound | undefined;
  /** A PDF POST /einvoices/inbound received that carries no e-invoice XML: stored as a voucher, nothing read. */
  inboundPdf?: Uint8Array | undefined;
  /** A bank statement file the HTTP shell has staged (POST /bank-accounts/{id}/statements streams). */
  bankFile?: StagedBankFile | undefined;
  /** A SAF-T file the HTTP shell has staged (POST /imports/saft streams), with its Content-Disposition filename. */
  saftFile?: { file: StagedUpload; fileName: string } | undefined;
  /** POST /einvoices/inbound: a long document (decision 491), staged, for its import by the job. */
  longInbound?: { file: StagedUpload; fileName: string } | undefined;
  /** The secrets key and URL policy of webhooks; absent where none is configured (webhook endpoints then answer 503). */
  webhooks?: WebhookSettings | undefined;
  /** OAUTH_ALLOW_HTTP_LOCALHOST: http://localhost redirect URIs may be registered (development). */
  oauthAllowLocalhost?: boolean | undefined;
  /** The background job queue (pg-boss); absent for one-shot callers (the CLI), which run the work themselves. */
  jobs?: BackgroundJobs | undefined;
  /** The RSU B2B gateway settings (SKAT_*); absent or incomplete, filing calls answer 503 skat_not_configured. */
  skat?: SkatSettings | undefined;
  /** A GET by id's read, already answered by the authentication statement (decision 148). */
  prefetched?: Prefetched | undefined;
  /** 'csv': the REST client asked a report for text/csv (ApiMeta.csv): answer every row, not one page. */
  format?: 'csv' | undefined;
}

/** What procedures hand to the background workers. */
export interface BackgroundJobs {
  /** Enqueues the sandbox-reset job for a recorded reset (jobs coalesce per reset id). */
  sandboxReset(resetId: string): Promise<void>;
  /** How long POST /sandbox/reset waits for a worker before running the job itself (SANDBOX_RESET_PICKUP_MS). */
  resetPickupMs: number;
  /** Enqueues the delivery of e-invoice messages queued (or replayed) by a committed change. */
  einvoicesQueued(due: DueMessage[]): Promise<void>;
  /** Enqueues the delivery of e-mails queued by a committed change (optional: a caller without it leaves them to the sweep). */
  emailsQueued?(due: DueEmail[]): Promise<void>;
  /** Enqueues the import-saft job of a recorded import. */
  saftImport(importId: string): Promise<void>;
  /** Enqueues an import-einvoice job for a recorded import of a long received e-invoice. */
  einvoiceImport?(importId: string): Promise<void>;
  /** Enqueues the submit-vat-filing job of a filing a transport failure queued, for its moment. */
  vatFilingQueued(filing: { id: string; due: Date }): Promise<void>;
}

/** Writes each record at once: for one-shot callers (the CLI) that have no batch to wait for. */
const directRequestLog = (db: Database): RequestLogSink => {
  const pending = new Set<Promise<unknown>>();
  return {
    record(r) {
      const p = writeRequestLogRecords(db.pool, [r])
        .catch(() => {})
        .finally(() => pending.delete(p));
      pending.add(p);
    },
    async flush() {
      await Promise.all(pending);
    },
  };
};

export interface CallerOptions {
  requestId?: string;
  idempotencyKey?: string;
  /** Default: each record written at once to the database of `db`; null when the caller records the call itself (the HTTP layer). */
  requestLog?: RequestLogSink | null;
  store?: VoucherStore;
  upload?: StagedContent;
  webhooks?: WebhookSettings;
  oauthAllowLocalhost?: boolean;
  jobs?: BackgroundJobs;
  skat?: SkatSettings;
  prefetched?: Prefetched | undefined;
}

/** The context of an in-process caller (operator CLI, admin app, tests): the same rules as REST. */
export function callerContext(db: Database, actor: Actor, opts: CallerOptions = {}): ApiContext {
  return {
    db,
    actor,
    requestId: opts.requestId ?? randomUUID(),
    idempotencyKey: opts.idempotencyKey,
    response: { headers: {} },
    requestLog: opts.requestLog === undefined ? directRequestLog(db) : opts.requestLog,
    store: opts.store,
    webhooks: opts.webhooks,
    upload: opts.upload,
    oauthAllowLocalhost: opts.oauthAllowLocalhost,
    jobs: opts.jobs,
    skat: opts.skat,
    prefetched: opts.prefetched,
  };
}
