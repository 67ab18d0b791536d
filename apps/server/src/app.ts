// The Express application: request ids, CORS, 404/405, authentication and rate limits, body limits
// and the public documents, around the REST adapter (http/rest.ts) that runs the procedures.
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import {
  authorizationServerMetadata,
  jsonTextDepth,
  MAX_JSON_DEPTH,
  BUSY_RETRY_AFTER,
  busyProblem,
  databaseUnavailable,
  internalProblem,
  openApiDocument,
  problem,
  routes,
  type RequestLogSink,
  type BackgroundJobs,
} from '@tlr/api';
import type { Database } from '@tlr/db';
import type { BackupSetup } from '@tlr/db/backup';
import { exactJsonNumber, lastBackupRun, type SkatSettings, type VoucherStore, type WebhookSettings } from '@tlr/domain';
import { authenticate } from './http/authenticate.ts';
import { cors } from './http/cors.ts';
import { deadline } from './http/deadline.ts';
import { discovery } from './http/discovery.ts';
import { docsPage, redirectToDocs } from './http/docs-page.ts';
import { inspectQuery, requireJsonContent, requireJsonObject } from './http/json-body.ts';
import { sendProblem } from './http/problem-response.ts';
import { restAdapter } from './http/rest.ts';
import { requestContext } from './http/request-context.ts';
import { routeGuard, routeGuardAnonymous } from './http/route-guard.ts';
import { rawRoutes } from './http/raw-routes.ts';
import { inOrder } from './http/in-order.ts';
import { invoicePdf, quotePdf, reminderPdf, statementPdf } from './http/invoice-pdf.ts';
import { csvAttachment, xmlAttachment } from './http/xml-attachment.ts';
import { oauthEndpoints } from './http/oauth.ts';
import { ADMIN_BASE, adminPages } from '@tlr/admin';
import { ownerPages } from './pages/index.ts';
import { archiveExport, saftExport } from './http/saft.ts';
import { voucherDownload, voucherUpload } from './http/vouchers.ts';
import { einvoiceInbound } from './http/einvoice-inbound.ts';
import { bankStatementImport } from './http/bank-statements.ts';
import { saftImport } from './http/saft-import.ts';

/** Request bodies other than voucher uploads (those get their own, larger, limit). */
const JSON_BODY_LIMIT = '1mb';

export interface AppDeps {
  db: Database;
  logger: Logger;
  requestLog: RequestLogSink;
  /** Answers /readyz: false while starting or shutting down. */
  isReady: () => boolean;
  /** Where the official e-invoice rules are (/readyz's detail `einvoice_rules`: loading, loaded, failed, on_first_document); absent without. */
  einvoiceRules?: (() => string) | undefined;
  /** Whether backups are set up (/readyz and the admin health page say which step is missing); unknown without. */
  backups?: (() => Promise<BackupSetup>) | undefined;
  /** The absolute URL clients reach the service at (PUBLIC_BASE_URL); default: the request's origin. */
  publicBaseUrl?: string | undefined;
  /** Past this, a request without an answer yet gets 503 with Retry-After (REQUEST_TIMEOUT_MS). */
  requestTimeoutMs?: number;
  /** Where voucher documents are kept (STORAGE_BACKEND); without one, voucher uploads answer 503. */
  store?: VoucherStore | undefined;
  webhooks?: WebhookSettings | undefined;
  /** OAUTH_ALLOW_HTTP_LOCALHOST: http://localhost redirect URIs for OAuth clients (development). */
  oauthAllowLocalhost?: boolean | undefined;
  /** Where procedures send background work (the sandbox reset job). */
  jobs?: BackgroundJobs | undefined;
  /** The RSU B2B gateway settings (SKAT_*): filing the VAT return with Skattestyrelsen. */
  skat?: SkatSettings | undefined;
  /**
   * TRUST_PROXY: the peers whose X-Forwarded-For and X-Forwarded-Proto count (Express's `trust proxy`);
   * default none. It decides req.ip (the sign-in throttle's address, the token endpoint's limit, the audit
   * record) and req.protocol (the Secure cookie flag, the pages' Origin check, the documents' URLs).
   */
  trustProxy?: false | number | string[] | undefined;
}

/** How long /readyz waits for the database before it says not ready. */
const READY_PROBE_MS = 1_000;

export function createApp({
  db,
  logger,
  requestLog,
  isReady,
  einvoiceRules,
  backups,
  publicBaseUrl,
  requestTimeoutMs = 20_000,
  store,
  webhooks,
  jobs,
  skat,
  trustProxy = false,
}: AppDeps) {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('trust proxy', trustProxy);
  app.set('query parser', 'simple');

  app.use(inOrder(requestContext(logger, requestLog), deadline(requestTimeoutMs), cors));

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    // Bounded: a frozen database must not hang the probe that tells the load balancer about it.
    const probe = db.pool.query('SELECT 1').then(
      () => true,
      () => false,
    );
    const bounded = <T>(p: Promise<T>, otherwise: T) => Promise.race([p, new Promise<T>((r) => setTimeout(() => r(otherwise), READY_PROBE_MS).unref())]);
    const dbOk = await bounded(probe, false);
    const ready = isReady() && dbOk;
    // Backups, a detail: not set up (with the step missing), or the last run; a failed backup is shown
    // here but does not take the server out of service (decision 329).
    const setup =
      dbOk && backups
        ? await bounded(
            backups().catch(() => undefined),
            undefined,
          )
        : undefined;
    const last =
      dbOk && setup?.set_up !== false
        ? await bounded(
            lastBackupRun(db.prisma).catch(() => undefined),
            undefined,
          )
        : undefined;
    const backup =
      setup?.set_up === false
        ? { status: 'not_set_up', detail: setup.reason }
        : last
          ? { status: last.status, type: last.type, started_at: last.started_at, finished_at: last.finished_at, error: last.error }
          : { status: 'none' };
    // The e-invoice rules, a detail too: a server still loading them takes requests (a document waits for the load).
    res.status(ready ? 200 : 503).json({
      status: ready ? 'ready' : 'not_ready',
      database: dbOk ? 'ok' : 'unreachable',
      backup,
      ...(einvoiceRules ? { einvoice_rules: einvoiceRules() } : {}),
    });
  });

  // RFC 8414: what OAuth client libraries read to find the endpoints.
  app.get('/.well-known/oauth-authorization-server', (req, res) => {
    res.json(authorizationServerMetadata(publicBaseUrl ?? `${req.protocol}://${req.get('host')}`));
  });

  const api = express.Router();
  api.get('/openapi.json', (req, res) => {
    res.json(openApiDocument(publicBaseUrl ?? `${req.protocol}://${req.get('host')}`));
  });
  api.use('/docs', docsPage());
  app.get('/docs', redirectToDocs);
  api.get('/', discovery);
  api.use(inOrder(routeGuardAnonymous, authenticate(db.pool), routeGuard, inspectQuery));
  // The streamed routes, before the JSON body parser (an upload's body is read as a stream).
  api.use(
    rawRoutes(
      routes,
      {
        'exports.saft': saftExport(db, logger),
        'exports.archive': archiveExport(db, logger, store),
        'invoices.pdf': invoicePdf(),
        'reminders.pdf': reminderPdf(),
        'quotes.pdf': quotePdf(),
        'reports.customerStatementPdf': statementPdf(),
        'invoices.ubl': xmlAttachment((caller, input) => caller.invoices.ubl(input as { id: string })),
        'vouchers.upload': voucherUpload(),
        'einvoices.inbound': einvoiceInbound(),
        'bankStatements.import': bankStatementImport(logger),
        'imports.saft': saftImport(),
        'einvoices.xml': xmlAttachment((caller, input) => caller.einvoices.xml(input as { id: string })),
        'vouchers.content': voucherDownload(logger, store),
        'vat.export': xmlAttachment((caller, input) => caller.vat.export(input as { period: string })),
        'euSales.export': csvAttachment((caller, input) => caller.euSales.export(input as { period: string })),
      },
      { db, logger, store, webhooks, jobs, skat },
    ),
  );
  api.use(
    inOrder(
      requireJsonContent,
      // Not strict: a top-level string or number parses, so requireJsonObject can say what is wrong with it.
      express.json({
        limit: JSON_BODY_LIMIT,
        strict: false,
        type: ['application/json', 'application/*+json'],
        // Refused before parsing: parsing with a reviver recurses, and deep enough JSON overflows it.
        verify: (_req, _res, buf) => {
          if (jsonTextDepth(buf) > MAX_JSON_DEPTH)
            throw Object.assign(new Error(`The request body is nested deeper than ${MAX_JSON_DEPTH} levels.`), { status: 400, type: 'entity.too.deep' });
        },
        // A number a double cannot hold exactly reaches the schema as its exact text (money.ts).
        reviver: (_key: string, value: unknown, context?: { source?: string }) => (typeof value === 'number' ? exactJsonNumber(value, context?.source) : value),
      }),
      requireJsonObject,
      restAdapter({ db, logger, store, webhooks, jobs, skat }),
    ),
  );
  app.use('/api/v1', api);
  app.use('/api/oauth', oauthEndpoints(db));

  app.use(ownerPages({ db, logger, publicBaseUrl }));
  app.use(ADMIN_BASE, adminPages({ db, logger, publicBaseUrl, jobs, store, backups }));

  app.use((req: Request, res: Response) => {
    sendProblem(res, problem('not_found', `No endpoint ${req.path} exists. The API lives under /api/v1.`));
  });

  // Errors raised by Express middleware (body parsing, authentication's database call).
  app.use((err: Error & { type?: string; status?: number }, _req: Request, res: Response, _next: NextFunction) => {
    if (res.headersSent) return;
    if (err.type === 'entity.too.large') {
      return sendProblem(res, problem('payload_too_large', `The request body exceeds ${JSON_BODY_LIMIT}.`, { field: 'body' }));
    }
    if (err.type === 'entity.too.deep') return sendProblem(res, problem('invalid_request', err.message, { field: 'body' }));
    if (err.type === 'entity.parse.failed') {
      return sendProblem(res, problem('invalid_request', `The request body is not valid JSON: ${err.message}`, { field: 'body' }));
    }
    if (err.status && err.status >= 400 && err.status < 500) {
      return sendProblem(res, problem('invalid_request', err.message));
    }
    if (databaseUnavailable(err)) {
      logger.warn({ err: err.message, request_id: res.locals.requestId }, 'database unavailable');
      return sendProblem(res, busyProblem('The database is unreachable for the moment; retry shortly.'), { 'Retry-After': String(BUSY_RETRY_AFTER) });
    }
    logger.error({ err, request_id: res.locals.requestId }, 'unhandled error');
    sendProblem(res, internalProblem());
  });
  return app;
}
