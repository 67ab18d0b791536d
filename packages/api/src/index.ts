export { appRouter, type AppRouter } from './root.ts';
export { createCaller, callerOf, type Caller } from './caller.ts';
export { type ApiContext, type BackgroundJobs, type Actor, type StaffRole, type CallerOptions, callerContext, directAudit } from './context.ts';
export { AuditLog, writeAuditRecords, type AuditRecord, type AuditSink } from './audit.ts';
export { openApiDocument } from './openapi.ts';
export { inspectInput, jsonTextDepth, MAX_JSON_DEPTH } from './inspect.ts';
export { routes, matchRoute, type Route } from './routes.ts';
export { readAlong } from './crud.ts';
export {
  toProblem,
  toTrpcError,
  problem,
  internalProblem,
  busyProblem,
  databaseUnavailable,
  BUSY_RETRY_AFTER,
  validationProblem,
  PROBLEM_CONTENT_TYPE,
  type Problem,
} from './problem.ts';
export type { ApiMeta } from './trpc.ts';
export { authorizationServerMetadata, OAUTH_PATHS } from './oauth-document.ts';
