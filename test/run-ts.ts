// How a test starts a TypeScript entry point in a child process as `npm start` does: Node's own type
// stripping (Node 23.6+; the pinned runtime is Node 24), or tsx's loader on an older Node.
export const RUN_TS: string[] = process.features.typescript ? [] : ['--import', 'tsx'];
