// The request audit log. Records are buffered in memory and written in batches (one multi-row INSERT
// every 200 ms or 500 records), so that auditing adds no database round trip to the request path.
// The price: a crash loses at most the last batch (docs/decisions.md).
import type { Logger } from 'pino';
import type { Queryable } from '@tlr/db';

export interface AuditRecord {
  request_id: string;
  credential_type: string | null;
  credential_id: string | null;
  company_id: string | null;
  method: string;
  path: string;
  status: number;
  duration_ms: number;
  ip: string | null;
  created_at: Date;
}

const COLUMNS = ['request_id', 'credential_type', 'credential_id', 'company_id', 'method', 'path', 'status', 'duration_ms', 'ip', 'created_at'] as const;
const TYPES = ['text', 'text', 'uuid', 'uuid', 'text', 'text', 'int2', 'real', 'text', 'timestamptz'];
const INSERT = `INSERT INTO request_audit_log (${COLUMNS.join(', ')})
  SELECT * FROM unnest(${TYPES.map((t, i) => `$${i + 1}::${t}[]`).join(', ')})`;

export class AuditLog {
  private buffer: AuditRecord[] = [];
  private timer: NodeJS.Timeout | undefined;
  private inFlight: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Queryable,
    private readonly logger: Logger,
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
        await this.db.query(INSERT, COLUMNS.map((c) => batch.map((r) => r[c])));
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
