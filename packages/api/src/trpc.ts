// tRPC initialisation and the one procedure pipeline every caller goes through (REST through the
// adapter, the operator CLI and the admin app through createCaller). Each rule is a middleware driven
// by the procedure's meta, in this order:
//   request log and staff actions (in-process calls) -> hostile input and error mapping -> actor (scopes
//   or staff role) with transaction and idempotency (mutations) -> input -> output -> the procedure.
// Three layers of our own: tRPC copies a call's options at every layer (docs/history/perf-log.md, tenth session).
import { getTRPCErrorFromUnknown, initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import type { z } from 'zod';
import type { Db } from '@tlr/db';
import {
  invalidRequest,
  isUuid,
  notFound,
  recordStaffAction,
  takeQueuedEinvoices,
  takeQueuedEmails,
  type CompanyScope,
  type Credential,
  type ReadById,
  type Scope,
  type CsvTable,
} from '@tlr/domain';
import type { ApiContext, StaffRole } from './context.ts';
import { runMutation } from './idempotency.ts';
import { inspectInput, textFault } from './inspect.ts';
import { toProblem, toTrpcError, type Problem } from './problem.ts';
import { requireInternal, requireScopes } from './scopes.ts';
import type { Tag } from './tags.ts';

export interface ApiMeta extends OpenApiMeta {
  /** The operation's REST meta; its tags come from the catalogue (tags.ts), the reference's sections. */
  openapi?: OpenApiMeta['openapi'] & { tags?: Tag[] };
  /** Every scope listed is required (the voucher endpoints need both voucher scopes). */
  scopes?: Scope[];
  /**
   * Runs under an Idempotency-Key (contract: Conventions 2): the key is claimed, the work done and the
   * response stored in one transaction; a repeat replays it. `status` is the success status (201 for
   * creates, 200 for state transitions, 202 for work queued); `optional` lets a call without a key
   * through (not for creates).
   */
  idempotent?: { status: 200 | 201 | 202; optional?: boolean };
  /**
   * A second success the endpoint answers (OpenAPI only): 202 Accepted with a resource of the document's
   * components (a long received e-invoice's import, decision 491), and what it means.
   */
  accepted?: { description: string; schema: string };
  /** Answers 201 Created without an Idempotency-Key (the contract exempts webhook endpoints). */
  created?: true;
  /** Problem statuses beyond the common ones that the endpoint can answer (OpenAPI only). */
  problems?: number[];
  /**
   * The procedure validates and authorises; its HTTP shell streams the answer (XML, raw bytes) instead
   * of JSON. What the OpenAPI document says the 200 response is.
   */
  raw?: { contentType: string; description: string; schema: Record<string, unknown>; headers?: Record<string, string> };
  /**
   * The HTTP shell reads the request body itself, as a stream (a voucher upload of 13.4 MB), and passes
   * what it read to the procedure; the OpenAPI request and response are the procedure's own.
   */
  streamedBody?: true;
  /**
   * A streamed body that is not the procedure's JSON input (a received e-invoice's XML): what OpenAPI says
   * the request body is; `contentTypes` names further media types it may have, and `query` the input fields
   * that come as query parameters (a bank statement's format options).
   */
  requestBody?: {
    contentType: string;
    contentTypes?: string[];
    description: string;
    schema: Record<string, unknown>;
    query?: z.ZodObject;
  };
  /** The transaction may run longer than the default (a 100,000-line bank statement import): its timeout in ms. */
  transactionTimeoutMs?: number;
  /**
   * false: the procedure opens its own transactions (it waits for background work and must not hold
   * one open meanwhile); ctx.tx is then the pool client.
   */
  transaction?: false;
  /** Only test API keys may call it (the sandbox reset): the OpenAPI document offers no OAuth scheme. */
  testKeysOnly?: true;
  /** Internal procedures: the least staff role that may call it; without it, the operator only. */
  staffRole?: StaffRole;
  /**
   * Internal procedures a signed-in company owner may call too (their pages): only for a company they
   * own, named by the input's `companyId`; a procedure without one acts on the owner themself.
   */
  owner?: true;
  /** A GET by id whose read can ride on the authentication statement (decision 148; crud.ts readAlong). */
  byId?: ReadById;
  /**
   * The report is also served as CSV (Accept: text/csv; decision 545): the procedure is called with
   * ctx.format 'csv' (every row, not a page) and this makes the table of its output.
   */
  csv?: (output: never) => CsvTable;
}

const t = initTRPC
  .context<ApiContext>()
  .meta<ApiMeta>()
  .create({
    // Never put stack traces into error shapes, whoever the caller is.
    isDev: false,
    // @trpc/client reads message and code; the REST adapter sends the problem alone (toProblem).
    errorFormatter: ({ shape, error }): typeof shape & { data: { problem: Problem } } => {
      const problem = toProblem(error);
      return { ...shape, message: problem.detail, data: { ...shape.data, httpStatus: problem.status, problem } };
    },
  });

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

/** The staff action record of a call: the company and the other ids its input named. */
function staffRecord(userId: string, requestId: string, path: string, kind: 'query' | 'mutation', input: unknown, outcome: string) {
  const fields = input && typeof input === 'object' ? (input as Record<string, unknown>) : {};
  const company = typeof fields.companyId === 'string' && isUuid(fields.companyId) ? fields.companyId : null;
  const target = Object.entries(fields)
    .filter(([k, v]) => k !== 'companyId' && typeof v === 'string' && /(^id$|Id$|^search$)/.test(k))
    // Refused text (NUL, broken UTF-16) is recorded escaped: PostgreSQL refuses it, and the refusal is the record.
    .map(([k, v]) => {
      const text = String(v).slice(0, 100);
      return `${k}=${textFault(text) ? JSON.stringify(text) : text}`;
    })
    .join(' ');
  return { staff_user_id: userId, action: path, kind, company_id: company, target, outcome, request_id: requestId };
}

/**
 * The records of a call: an in-process call's request log record (REST requests are recorded by the
 * HTTP layer), and for a staff member the append-only staff actions (who, what, which company, when, how
 * it ended): a committed change from inside its transaction (see transactional), everything else here.
 * Refusals are recorded too: a support member trying an admin action is among the staff actions. One tRPC
 * layer for both (each layer copies the call's options): a REST request passes it with a single test.
 */
const recorded = t.middleware(async ({ ctx, type, path, next, getRawInput }) => {
  const actor = ctx.actor;
  if (!ctx.requestLog && actor?.type !== 'staff') return next();
  const started = performance.now();
  // Per call (one caller's context serves many calls): set when the transaction recorded it.
  const staffCall = actor?.type === 'staff' ? { recorded: false } : undefined;
  const result = await (staffCall ? next({ ctx: { staffCall } }) : next());
  const input = await getRawInput().catch(() => undefined);
  // A staff action that cannot be recorded fails the call, and the request log record says so.
  let staffActionFailure: { error: unknown } | undefined;
  if (actor?.type === 'staff' && !staffCall!.recorded) {
    const outcome = result.ok ? 'ok' : toProblem(result.error).code;
    const kind = type === 'mutation' ? 'mutation' : 'query';
    await recordStaffAction(ctx.db.prisma as Db, staffRecord(actor.userId, ctx.requestId, path, kind, input, outcome)).catch(
      (error: unknown) => (staffActionFailure = { error }),
    );
  }
  if (ctx.requestLog) {
    const problem = staffActionFailure ? toProblem(staffActionFailure.error) : result.ok ? undefined : toProblem(result.error);
    const inputCompany = (input as { companyId?: unknown } | undefined)?.companyId;
    ctx.requestLog.record({
      request_id: ctx.requestId,
      actor_type: actor ? (actor.type === 'credential' ? actor.credential.type : actor.type) : null,
      actor_id: actor?.type === 'credential' ? actor.credential.id : actor?.type === 'staff' || actor?.type === 'owner' ? actor.userId : null,
      company_id: actor?.type === 'credential' ? actor.credential.companyId : typeof inputCompany === 'string' && isUuid(inputCompany) ? inputCompany : null,
      method: 'CALL',
      path,
      status: problem?.status ?? ctx.response.status ?? 200,
      problem_code: problem?.code ?? null,
      duration_ms: performance.now() - started,
      ip: null,
      created_at: new Date(),
    });
  }
  if (staffActionFailure) throw staffActionFailure.error;
  return result;
});

/**
 * Hostile input (NUL, lone surrogates, absurd nesting) is refused before any schema sees it, and every
 * error leaves as the tRPC error of its problem (FORBIDDEN, NOT_FOUND, CONFLICT, ...).
 */
const guarded = t.middleware(async ({ next, getRawInput }) => {
  try {
    const fault = inspectInput(await getRawInput(), 'input');
    if (fault) throw invalidRequest(`${fault.field}: ${fault.message}`, fault.field);
  } catch (cause) {
    throw toTrpcError(getTRPCErrorFromUnknown(cause));
  }
  const result = await next();
  return result.ok ? result : { ...result, error: toTrpcError(result.error) };
});

const base = t.procedure.use(recorded).use(guarded);

/** Runs after the commit, on the pool (the transaction is over). */
type AfterCommit = (db: Db) => Promise<void>;
const noHooks = (): void => {
  throw new Error('afterCommit is for mutations');
};

interface CallOptions {
  ctx: ApiContext;
  meta: ApiMeta | undefined;
  type: string;
  path: string;
  getRawInput: () => Promise<unknown>;
}

/**
 * Mutations run in one transaction (with the Idempotency-Key when the meta says so) and get it as
 * ctx.tx; queries get the client. `next` passes tx and afterCommit on with the caller's own context
 * extension, in the same tRPC layer (each layer copies the call's options and context).
 */
async function transactional<R extends { ok: boolean }>(
  { ctx, meta, type, path, getRawInput }: CallOptions,
  next: (tx: Db, afterCommit: (fn: AfterCommit) => void) => Promise<R>,
): Promise<R> {
  const pool = ctx.db.prisma as Db;
  if (type !== 'mutation') return next(pool, noHooks);
  if (meta?.transaction === false) return next(pool, (fn) => void fn(pool).catch(() => {}));
  // Work that must follow the commit and never precede it (deleting a stored object whose row is gone).
  const hooks: AfterCommit[] = [];
  const result = await runMutation({
    ctx,
    meta,
    path,
    getRawInput,
    next: async (tx: Db) => {
      const r = await next(tx, (fn) => void hooks.push(fn));
      // E-invoices the change queued go to the delivery worker once it commits (a lost wake-up is the sweep's).
      const queued = takeQueuedEinvoices(tx);
      const jobs = ctx.jobs;
      if (queued.length && jobs) hooks.push(() => jobs.einvoicesQueued(queued));
      // E-mails likewise (email/outbound.ts; a lost wake-up is the e-mail sweep's).
      const mails = takeQueuedEmails(tx);
      if (mails.length && jobs?.emailsQueued) hooks.push(() => jobs.emailsQueued!(mails));
      // A staff member's change commits with its staff action record, or not at all.
      if (r.ok && ctx.actor?.type === 'staff') {
        await recordStaffAction(tx, staffRecord(ctx.actor.userId, ctx.requestId, path, 'mutation', await getRawInput(), 'ok'));
        const call = (ctx as { staffCall?: { recorded: boolean } }).staffCall;
        if (call) call.recorded = true;
      }
      return r;
    },
  });
  // A hook that fails leaves its work to a sweeper job: the committed answer stands.
  if (result.ok) for (const hook of hooks) await hook(pool).catch(() => {});
  return result;
}

/** The public API: an API credential within the procedure's scopes, acting on its company. */
export const authedProcedure = base.use((opts) => {
  const credential: Credential = requireScopes(opts.ctx.actor, opts.meta?.scopes ?? []);
  const scope: CompanyScope = { companyId: credential.companyId, livemode: credential.livemode };
  return transactional(opts, (tx, afterCommit) => opts.next({ ctx: { credential, scope, tx, afterCommit } }));
});

/**
 * The operator CLI, the admin app and the owner pages: an operator, staff with the role the meta
 * names, or (meta `owner`) a company owner for a company they own. Another owner's company is "not
 * found", as on the REST API.
 */
export const internalProcedure = base.use(async (opts) => {
  const { ctx, meta, getRawInput } = opts;
  requireInternal(ctx.actor, meta?.staffRole, meta?.owner);
  if (ctx.actor?.type === 'owner') {
    const companyId = ((await getRawInput()) as { companyId?: unknown } | undefined)?.companyId;
    if (companyId !== undefined) {
      const owned =
        typeof companyId === 'string' &&
        isUuid(companyId) &&
        (await ctx.db.prisma.company.count({ where: { id: companyId, owner_user_id: ctx.actor.userId, sandbox_of_id: null } })) === 1;
      if (!owned) throw notFound('company', String(companyId));
    }
  }
  return transactional(opts, (tx, afterCommit) => opts.next({ ctx: { tx, afterCommit } }));
});
