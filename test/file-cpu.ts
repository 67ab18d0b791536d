// CPU time per test file, for the run's report (test/slowest-files.ts): the test process's own time
// and that of the child processes it waited for (server processes, the CLI, benches), from
// /proc/self/stat. PostgreSQL's work is not in it. Linux only; elsewhere nothing is recorded.
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const CPU_LOG_DIR = join(import.meta.dirname, '..', 'node_modules', '.cache', 'test-cpu');

/** Seconds of CPU used so far by this process and its reaped children. */
export function cpuSeconds(): number | undefined {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    // Fields after the command name (which may hold spaces) start at ") ": utime is the 14th field.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(f[i]), 0);
    return ticks / 100; // USER_HZ
  } catch {
    return undefined;
  }
}

/** Appends one file's CPU seconds to the run's log (the run is named by the vitest main process). */
export function recordFileCpu(runId: string, file: string, seconds: number): void {
  mkdirSync(CPU_LOG_DIR, { recursive: true });
  appendFileSync(join(CPU_LOG_DIR, `${runId}.jsonl`), `${JSON.stringify({ file, seconds })}\n`);
}
