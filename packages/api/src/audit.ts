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
  return db.query(INSERT, COLUMNS.map((c) => batch.map((r) => r[c])));
}

export class AuditLog implements AuditSink {
  private buffer: AuditRecord[] = [];
  private timer: NodeJS.Timeout | undefined;
  private inFlight: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Queryable,
    private readonly logger: ErrorLogger,
    private readonly opts = { flushMs: 200, maxBatch: 500, maxBuffered: 50_000 },
  ) {}

  record(r: AuditRecord): void {
    if (this.buffer.length >= this.opts.maxBuffered) {
      this.buffer.shift(); // the database is unreachable: keep memory bounded
    }
    this.buffer.push(r);
    if (this.buffer.length >= this.opts.maxBatch) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), this.opts.flushMs);
  }

  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.buffer;
    this.buffer = [];
    if (batch.length === 0) return this.inFlight;
    this.inFlight = this.inFlight.then(async () => {
      try {
        await writeAuditRecords(this.db, batch);
      } catch (e) {
        this.logger.error({ err: e, records: batch.length }, 'audit batch not written');
      }
    });
    return this.inFlight;
  }

  async close(): Promise<void> {
    await this.flush();
  }
}
