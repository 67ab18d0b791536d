// A full, memory-reducing collection on demand (decision 494): for a validation worker after work that
// left hundreds of MiB of garbage (loading the e-invoice rules, a long document), which under
// `--heap-growing-percent=100` (decision 150, a flag of every thread) no collection would take back soon.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

type Collect = (options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;
let collect: Collect | undefined;

/**
 * Collects this thread's heap now and gives its free pages back to the system: some 0.1 to 0.3 s of this
 * thread. V8 gives `gc` only to a context made while `--expose-gc` is set: set for one `vm` context and
 * unset again, so that no other code and no later worker sees `gc`.
 */
export function reduceMemory(): void {
  if (!collect) {
    setFlagsFromString('--expose-gc');
    try {
      collect = runInNewContext('gc') as Collect;
    } finally {
      setFlagsFromString('--no-expose-gc');
    }
  }
  collect({ type: 'major', execution: 'sync', flavor: 'last-resort' });
}
