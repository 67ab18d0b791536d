// TCP ports on 127.0.0.1: one free now (throwaway servers, a new embedded data folder), and whether a
// given one is: what the embedded PostgreSQL's port is chosen and checked by (decision 420).
import { createServer } from 'node:net';

/** Listens on `port` (0: any) of 127.0.0.1 for a moment; resolves with the port, or undefined when it is taken. */
function probe(port: number): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', (e: NodeJS.ErrnoException) => (e.code === 'EADDRINUSE' || e.code === 'EACCES' ? resolve(undefined) : reject(e)));
    s.listen(port, '127.0.0.1', () => {
      const { port: bound } = s.address() as { port: number };
      s.close(() => resolve(bound));
    });
  });
}

/** A TCP port free on 127.0.0.1 right now: for throwaway embedded servers (tests, benchmarks). */
export async function freePort(): Promise<number> {
  return (await probe(0))!;
}

/** Is `port` free on 127.0.0.1 right now? */
export async function portFree(port: number): Promise<boolean> {
  return (await probe(port)) !== undefined;
}
