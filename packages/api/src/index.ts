export { appRouter, type AppRouter } from './root.ts';
export { type ApiContext, internalContext } from './context.ts';
export { openApiDocument } from './openapi.ts';
export { routes, rawRoutes, rawRoute, allowedMethods, type Route, type RawRoute } from './routes.ts';
export { requireScopes } from './scopes.ts';
export { saftQuery } from './schemas/saft-query.ts';
export { toProblem, problem, internalProblem, busyProblem, BUSY_RETRY_AFTER, validationProblem, PROBLEM_CONTENT_TYPE, type Problem } from './problem.ts';
export type { ApiMeta } from './trpc.ts';
