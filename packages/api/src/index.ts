export { appRouter, type AppRouter } from './root.ts';
export { type ApiContext, internalContext } from './context.ts';
export { openApiDocument } from './openapi.ts';
export { routes, allowedMethods, type Route } from './routes.ts';
export { toProblem, problem, internalProblem, validationProblem, PROBLEM_CONTENT_TYPE, type Problem } from './problem.ts';
export type { ApiMeta } from './trpc.ts';
