// How a test starts a TypeScript entry point in a child process as `npm start` does (scripts/server-flags.mjs).
export { RUN_TS } from '../scripts/server-flags.mjs';
