// A worker of validate.ts's pool: validates the documents the pool sends it, one at a time, with
// SaxonJS and the rules it loads on the first.
import { parentPort } from 'node:worker_threads';
import { DomainError } from '../errors.ts';
import { validateEinvoiceHere, type WorkerReply } from './validate.ts';

const port = parentPort!;
port.on('message', async (xml: string) => {
  let reply: WorkerReply;
  try {
    reply = { result: await validateEinvoiceHere(xml) };
  } catch (e) {
    // An error does not cross the thread boundary as itself: its message, and a DomainError's code.
    reply = { error: { message: (e as Error).message, ...(e instanceof DomainError ? { code: e.code } : {}) } };
  }
  port.postMessage(reply);
});
