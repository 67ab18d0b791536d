// The request log (table request_audit_log): one record per request or in-process procedure call, with
// its actor. REST requests are recorded by the HTTP layer (it also sees the requests that never reach a
// procedure); in-process callers (operator CLI, admin app, jobs) by the procedure pipeline. Records are
// buffered and written in batches (one multi-row INSERT every 200 ms or 500 records), so that logging adds
// no database round trip to the request path. The price: a crash loses at most the last batch (decision 35).
import type { Queryable } from '@tlr/db';

export interface RequestLogRecord {
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

export interface RequestLogSink {
  record(r: RequestLogRecord): void;
  flush(): Promise<void>;
}

interface ErrorLogger {
  error(obj: object, msg: string): void;
}

const COLUMNS = ['request_id', 'actor_type', 'actor_id', 'company_id', 'method', 'path', 'status', 'problem_code', 'duration_ms', 'ip', 'created_at'] as const;
const TYPES = ['text', 'text', 'text', 'uuid', 'text', 'text', 'int2', 'text', 'real', 'text', 'timestamptz'];
// One parameter: the batch as a JSON array of records, each a JSON array in COLUMNS order, sent as
// bytes (a Buffer goes as a binary bytea parameter, so the batch is never a string on the V8 heap).
const INSERT = `INSERT INTO request_audit_log (${COLUMNS.join(', ')})
  SELECT ${TYPES.map((t, i) => `(r->>${i})::${t}`).join(', ')}
  FROM jsonb_array_elements(convert_from($1::bytea, 'UTF8')::jsonb) AS r`;

/**
 * One record as the JSON text of its values in COLUMNS order, each as the text its column parses. Numbers
 * too: JSON has no NaN or Infinity, and the real column takes their text, as the old text[] did.
 */
function encode(r: RequestLogRecord): string {
  return JSON.stringify(COLUMNS.map((c) => columnText(r[c])));
}

const columnText = (v: string | number | Date | null): string | null => (v === null ? null : v instanceof Date ? v.toISOString() : String(v));

const COMMA = 0x2c;

/**
 * Records waiting to be written, encoded at once into one growing off-heap buffer: `[a],[b],[c],`.
 * Kept as objects, a buffered record outlived two scavenges and V8 promoted it (about 0.4 KB per
 * request); the old generation then filled and a major collection came every few seconds under load.
 * Now the garbage collector never sees a buffered record.
 */
class EncodedBatch {
  private bytes = Buffer.allocUnsafe(16 * 1024);
  /** ends[i]: where record i ends (after its comma). */
  private readonly ends: Uint32Array;
  /** Records before this one were dropped (trim). */
  private first = 0;
  count = 0;

  readonly capacity: number;
  constructor(capacity: number) {
    this.capacity = capacity;
    this.ends = new Uint32Array(capacity);
  }

  get size(): number {
    return this.count - this.first;
  }

  add(text: string): void {
    const at = this.count === 0 ? 0 : this.ends[this.count - 1]!;
    const need = at + Buffer.byteLength(text) + 1;
    if (need > this.bytes.length) {
      const grown = Buffer.allocUnsafe(Math.max(need, this.bytes.length * 2));
      this.bytes.copy(grown, 0, 0, at);
      this.bytes = grown;
    }
    this.bytes[at + this.bytes.write(text, at)] = COMMA;
    this.ends[this.count++] = need;
  }

  /** Drops up to n of the oldest records; returns how many it dropped. */
  drop(n: number): number {
    const dropped = Math.min(n, this.size);
    this.first += dropped;
    return dropped;
  }

  /** The records kept, as one JSON array. */
  json(): Buffer {
    const from = this.first === 0 ? 0 : this.ends[this.first - 1]!;
    const body = this.bytes.subarray(from, this.ends[this.count - 1]! - 1);
    return Buffer.concat([OPEN, body, CLOSE]);
  }
}

const OPEN = Buffer.from('[');
const CLOSE = Buffer.from(']');

function writeBatch(db: Queryable, batch: EncodedBatch): Promise<unknown> {
  return db.query(INSERT, [batch.json()]);
}

export function writeRequestLogRecords(db: Queryable, records: readonly RequestLogRecord[]): Promise<unknown> {
  const batch = new EncodedBatch(records.length);
  for (const r of records) batch.add(encode(r));
  return writeBatch(db, batch);
}

export class RequestLog implements RequestLogSink {
  /** Oldest first; only the last one takes new records. */
  private batches: EncodedBatch[] = [];
  private timer: NodeJS.Timeout | undefined;
  private inFlight: Promise<void> = Promise.resolve();
  private failures = 0;

  private readonly db: Queryable;
  private readonly logger: ErrorLogger;
  private readonly opts: { flushMs: number; maxBatch: number; maxBuffered: number };
  constructor(db: Queryable, logger: ErrorLogger, opts = { flushMs: 200, maxBatch: 500, maxBuffered: 50_000 }) {
    this.db = db;
    this.logger = logger;
    this.opts = opts;
  }

  record(r: RequestLogRecord): void {
    let open = this.batches.at(-1);
    if (!open || open.count === open.capacity) this.batches.push((open = new EncodedBatch(this.opts.maxBatch)));
    open.add(encode(r));
    this.trim();
    if (open.count === open.capacity && this.failures === 0) void this.flush();
    else this.schedule(this.opts.flushMs);
  }

  /** Records waiting (not counting a batch being written). */
  private buffered(): number {
    let n = 0;
    for (const b of this.batches) n += b.size;
    return n;
  }

  private schedule(ms: number): void {
    this.timer ??= setTimeout(() => void this.flush(), ms);
    this.timer.unref();
  }

  /** The database has been away for long: keep memory bounded, dropping the oldest (and saying so). */
  private trim(): void {
    let excess = this.buffered() - this.opts.maxBuffered;
    if (excess <= 0) return;
    const dropped = excess;
    while (excess > 0) {
      const oldest = this.batches[0]!;
      excess -= oldest.drop(excess);
      if (oldest.size === 0) this.batches.shift();
    }
    this.logger.error({ dropped }, 'request log records dropped: the buffer is full while the database is unreachable');
  }

  /** Writes one batch, after the batches already on their way (one write at a time keeps the order). */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.inFlight = this.inFlight.then(async () => {
      const batch = this.batches.shift();
      if (!batch || batch.size === 0) return;
      try {
        await writeBatch(this.db, batch);
        this.failures = 0;
        if (this.batches.length) this.schedule(0);
      } catch (e) {
        // Not dropped: back in front of the queue, retried with backoff (up to 10 s) until it is written.
        this.batches.unshift(batch);
        this.trim();
        this.failures += 1;
        if (this.failures === 1) this.logger.error({ err: e, records: batch.size }, 'request log batch not written; retrying');
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
      const left = this.buffered();
      if (left === 0) return;
      if (Date.now() > until) {
        this.logger.error({ lost: left }, 'request log records not written at shutdown: the database is unreachable');
        this.batches = [];
        clearTimeout(this.timer);
        return;
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}
