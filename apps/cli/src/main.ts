// Entry of the operator CLI (`npm run tlr -- ...`, `pnpm tlr ...`): hands argv and the process streams
// to runCli and exits with its code.
import { runCli } from './cli.ts';

let code: number;
try {
  code = await runCli(process.argv.slice(2), {
    stdout: (s) => process.stdout.write(s),
    stderr: (s) => process.stderr.write(s),
  });
} catch (e) {
  // runCli answers every failure it knows; this is the last word on one it did not foresee: still one line.
  process.stderr.write(`tlr: ${e instanceof Error ? e.message : String(e)}\n`);
  code = 1;
}
// At once: a timer or socket some library left behind must not hold the exit code back.
process.exit(code);
