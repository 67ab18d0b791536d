// The request audit log: one record per request or in-process procedure call, with its actor. REST
// requests are recorded by the HTTP layer (it also sees the requests that never reach a procedure);
// in-process callers (operator CLI, admin app, jobs) by the procedure pipeline. Records are buffered
// and written in batches (one multi-row INSERT every 200 ms or 500 records), so that auditing adds no
// database round trip to the request path. The price: a crash loses at most the last batch
// (docs/decisions.md).
import type { Queryable } from '@tlr/db';

export interface AuditRecord {
  request_id: string;
  /** api_key | oauth_token | operator | staff | job */
  actor_type: string | null;
  actor_id: string | null;
  company_id: string | null;
  /** The HTTP method, or CALL for an in-process procedure call. */
  method: string;
  /** The request path, or the procedure path (internal.createApiKey) of an in-process call. */
  path: string;
  status: number;
  problem_code: string | null;
  duration_ms: number;
  ip: string | null;
  created_at: Date;
}

export interface AuditSink {
  record(r: AuditRecord): void;
  flush(): Promise<void>;
}

interface ErrorLogger {
  error(obj: object, msg: string): void;
}

const COLUMNS = ['request_id', 'actor_type', 'actor_id', 'company_id', 'method', 'path', 'status', 'problem_code', 'duration_ms', 'ip', 'created_at'] as const;
const TYPES = ['text', 'text', 'text', 'uuid', 'text', 'text', 'int2', 'text', 'real', 'text', 'timestamptz'];
const INSERT = `INSERT INTO request_audit_log (${COLUMNS.join(', ')})
  SELECT * FROM unnest(${TYPES.map((t, i) => `$${i + 1}::${t}[]`).join(', ')})`;

export function writeAuditRecords(db: Queryable, batch: readonly AuditRecord[]): Promise<unknown> {
  return db.query(
    INSERT,
    COLUMNS.map((c) => batch.map((r) => r[c])),
  );
}

export class AuditLog implements AuditSink {
  private buffer: AuditRecord[] = [];
  private timer: NodeJS.Timeout | undefined;
  private inFlight: Promise<void> = Promise.resolve();
  private failures = 0;

  constructor(
    private readonly db: Queryable,
    private readonly logger: ErrorLogger,
    private readonly opts = { flushMs: 200, maxBatch: 500, maxBuffered: 50_000 },
  ) {}

  record(r: AuditRecord): void {
    this.buffer.push(r);
    this.trim();
    if (this.buffer.length >= this.opts.maxBatch && this.failures === 0) void this.flush();
    else this.schedule(this.opts.flushMs);
  }

  private schedule(ms: number): void {
    this.timer ??= setTimeout(() => void this.flush(), ms);
    this.timer.unref();
  }

  /** The database has been away for long: keep memory bounded, dropping the oldest (and saying so). */
  private trim(): void {
    const excess = this.buffer.length - this.opts.maxBuffered;
    if (excess > 0) {
      this.buffer.splice(0, excess);
      this.logger.error({ dropped: excess }, 'audit records dropped: the buffer is full while the database is unreachable');
    }
  }

  /** Writes one batch, after the batches already on their way (one write at a time keeps the order). */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.inFlight = this.inFlight.then(async () => {
      const batch = this.buffer.splice(0, this.opts.maxBatch);
      if (batch.length === 0) return;
      try {
        await writeAuditRecords(this.db, batch);
        this.failures = 0;
        if (this.buffer.length) this.schedule(0);
      } catch (e) {
        // Not dropped: back in front of the queue, retried with backoff (up to 10 s) until it is written.
        this.buffer.unshift(...batch);
        this.trim();
        this.failures += 1;
        if (this.failures === 1) this.logger.error({ err: e, records: batch.length }, 'audit batch not written; retrying');
        this.schedule(Math.min(10_000, 250 * 2 ** this.failures));
      }
    });
    return this.inFlight;
  }

  /** Writes what is buffered; gives up (logging what is lost) after `timeoutMs` of failures. */
  async close(timeoutMs = 5_000): Promise<void> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      await this.flush();
      if (this.buffer.length === 0) return;
      if (Date.now() > until) {
        this.logger.error({ lost: this.buffer.length }, 'audit records not written at shutdown: the database is unreachable');
        this.buffer = [];
        clearTimeout(this.timer);
        return;
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}
