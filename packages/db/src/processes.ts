// Is a process running, and which one is it: what the data folder's lock and the embedded PostgreSQL's
// pid file are judged by. Linux's /proc tells a zombie and a process's start; elsewhere the pid alone.
import { readFileSync } from 'node:fs';

/** The fields of /proc/<pid>/stat from the third (the state) on; undefined where there is none. */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 2 (the command name, in parentheses) may hold spaces: count from the last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/**
 * Is `pid` a running process? EPERM means it runs as another user (the postgres user, when we are not
 * root). A process killed with kill -9 stays a zombie until its parent (or init, once the parent is gone
 * too) reaps it, and kill(pid, 0) still finds it then; it holds nothing any more.
 */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  return !['Z', 'X', 'x'].includes(statFields(pid)?.[0] ?? '');
}

/**
 * When a process started, as this boot of Linux counts it (/proc/<pid>/stat field 22, and the boot id):
 * with the pid, it names one process for good, so a pid reused by another process is not taken for the
 * one that wrote it down. Undefined where there is no /proc.
 */
export function processStart(pid: number): string | undefined {
  const ticks = statFields(pid)?.[19];
  if (!ticks) return undefined;
  try {
    return `${readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()}/${ticks}`;
  } catch {
    return undefined;
  }
}
