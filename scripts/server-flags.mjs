// The V8 flags the API server runs with: `npm start` (tlr.mjs) and the benchmark's servers (bench/http.ts),
// which measure the server as it runs.
export const SERVER_NODE_FLAGS = [
  // An 8 MB young generation (V8's default is 16): voucher uploads churn through 13 MB bodies, and the
  // larger one let 10 concurrent uploads take the process from 177 to 336 MiB (decision 116).
  '--max-semi-space-size=8',
  // The old generation may grow to twice what was live before the next major collection; V8 otherwise
  // set the limit 10 to 20 MB above a live 65 to 75 MB, and under load a major collection came every 3 to
  // 6 s, its marking threads taking both cores of a small machine from PostgreSQL and the event loop for
  // 100 to 300 ms of late answers. About 50 MB more resident under sustained load (decision 150).
  '--heap-growing-percent=100',
];

// How a TypeScript entry point runs in a child process, as `npm start` runs the server: Node's own type
// stripping (Node 23.6+; the pinned runtime is Node 24), or tsx's loader on an older Node. Tests and
// benches start their servers, workers and benches with it.
export const RUN_TS = process.features.typescript ? [] : ['--import', 'tsx'];
