// A worker of validate.ts's pool: validates the documents the pool sends it, one at a time, with
// SaxonJS and the rules it loads at its warm-up (or on the first document that needs them).
import { parentPort } from 'node:worker_threads';
import { DomainError } from '../errors.ts';
import { reduceMemory } from '../memory.ts';
import { loadEinvoiceRulesHere, REDUCE_MEMORY_AFTER_CHARS, validateEinvoiceHere, type WorkerReply, type WorkerRequest } from './validate.ts';

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
  // A full collection that gives the heap's free pages back (decision 494) after the warm-up, a set's
  // first document (its rules' load) and a large document (its tree and reports were hundreds of MiB),
  // before the answer: the pool's next document waits for it. Loading the rules left the SEF texts and
  // the parse's garbage behind, and no collection came to take it back: a warm worker with every rule
  // set held 340 MiB instead of 160.
  const sets = 'warm' in request ? request.sets : [request.set];
  const loading = sets.some((set) => !loaded.has(set));
  for (const set of sets) loaded.add(set);
  if (loading || ('xml' in request && request.xml.length > REDUCE_MEMORY_AFTER_CHARS)) reduceMemory();
  port.postMessage(reply);
});
