// An open-loop load at a fixed rate: requests leave on a schedule (rate per second, evenly spaced),
// whether or not earlier answers have come back, and each latency counts from the request's scheduled
// time, so a server that falls behind shows it in the percentiles.
//
// autocannon's overallRate cannot measure "p99 at half load": each connection sends its share of a
// second as fast as it can at the start of the second and then waits (bursts at full load), and its
// latency histogram then back-fills one synthetic value per millisecond of every response
// (recordValueWithExpectedInterval with an interval of ceil(1 / rate) = 1).
import http from 'node:http';

export interface PacedRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface PacedResult {
  sent: number;
  /** Answers per second over the run. */
  rps: number;
  /** Latency percentiles in milliseconds, from each request's scheduled departure. */
  p50: number;
  p99: number;
  statuses: Record<string, number>;
  errors: number;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export async function paced(baseUrl: string, opts: { rate: number; seconds: number; connections: number; request: () => PacedRequest }): Promise<PacedResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: opts.connections });
  const url = new URL(baseUrl);
  const total = Math.round(opts.rate * opts.seconds);
  const interval = 1000 / opts.rate;
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let errors = 0;
  let sent = 0;
  const inFlight = new Set<Promise<void>>();

  const send = (scheduled: number) => {
    const r = opts.request();
    const p = new Promise<void>((resolve) => {
      const req = http.request({ host: url.hostname, port: url.port, method: r.method, path: r.path, headers: r.headers, agent }, (res) => {
        res.resume();
        res.on('end', () => {
          latencies.push(performance.now() - scheduled);
          statuses[res.statusCode ?? 0] = (statuses[res.statusCode ?? 0] ?? 0) + 1;
          resolve();
        });
      });
      // As autocannon's timeout: a server that never answers counts as an error, not a hung bench.
      req.setTimeout(10_000, () => req.destroy(new Error('timeout')));
      req.on('error', () => {
        errors += 1;
        resolve();
      });
      req.end(r.body);
    });
    inFlight.add(p);
    void p.then(() => inFlight.delete(p));
  };

  const start = performance.now();
  await new Promise<void>((done) => {
    const tick = () => {
      const due = Math.min(total, Math.floor((performance.now() - start) / interval) + 1);
      while (sent < due) send(start + sent++ * interval);
      if (sent < total) setTimeout(tick, Math.max(0, start + sent * interval - performance.now()));
      else done();
    };
    tick();
  });
  await Promise.all(inFlight);
  const elapsed = (performance.now() - start) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return { sent, rps: latencies.length / elapsed, p50: percentile(latencies, 50), p99: percentile(latencies, 99), statuses, errors };
}
