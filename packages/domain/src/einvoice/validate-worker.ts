// A worker of validate.ts's pool: validates the documents the pool sends it, one at a time, with
// SaxonJS and the rules it loads at its warm-up (or on the first document that needs them).
import { parentPort } from 'node:worker_threads';
import { DomainError } from '../errors.ts';
import { loadEinvoiceRulesHere, validateEinvoiceHere, type WorkerReply, type WorkerRequest } from './validate.ts';

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
  port.postMessage(reply);
});
