// A worker of validate.ts's pool: validates the documents the pool sends it, one at a time, with
// SaxonJS and the rules it loads at its warm-up (or on the first document that needs them).
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { parentPort } from 'node:worker_threads';
import { DomainError } from '../errors.ts';
import { loadEinvoiceRulesHere, REDUCE_MEMORY_AFTER_CHARS, validateEinvoiceHere, type WorkerReply, type WorkerRequest } from './validate.ts';

/**
 * A full collection that gives the heap's free pages back (decision 494): loading the rules leaves
 * their SEF texts and the parse's garbage behind, and under the process's `--heap-growing-percent=100`
 * (decision 150, a V8 flag every thread shares) no collection came to take it back; a warm worker with
 * every rule set held 340 MiB instead of 165. V8 gives `gc` only to a context made while `--expose-gc`
 * is set: set for this one context and unset again, so that no other context (nor a later worker) has it.
 */
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as (options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;
setFlagsFromString('--no-expose-gc');
const reduceMemory = () => gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });

/** The rule sets this worker has loaded: the first document of a set loads its stylesheets, and leaves the load's garbage. */
const loaded = new Set<string>();

const port = parentPort!;
port.on('message', async (request: WorkerRequest) => {
  let reply: WorkerReply;
  try {
    if ('warm' in request) {
      await loadEinvoiceRulesHere(request.sets);
      reply = { result: { fatal: [], warnings: [] } };
    } else reply = { result: await validateEinvoiceHere(request.xml, request.set) };
  } catch (e) {
    // An error does not cross the thread boundary as itself: its message, and a DomainError's code.
    reply = { error: { message: (e as Error).message, ...(e instanceof DomainError ? { code: e.code } : {}) } };
  }
  // After the warm-up, a set's first document (its rules' load) and a large document (its tree and
  // report were hundreds of MiB), before the answer: the pool's next document waits for it.
  const sets = 'warm' in request ? request.sets : [request.set];
  const loading = sets.some((set) => !loaded.has(set));
  for (const set of sets) loaded.add(set);
  if (loading || ('xml' in request && request.xml.length > REDUCE_MEMORY_AFTER_CHARS)) reduceMemory();
  port.postMessage(reply);
});
