// The baseline of the benchmark: the least an Express 5 + pg server can do for GET /customers/:id —
// one parameterised SELECT on a pool, the row as JSON — and for the list (a page of 50 and the total),
// the create (one INSERT), a posting (POST /transactions) and an auto-approved invoice (POST /invoices):
// the last two run the bare SQL of bare-writes.ts, the same statements bench/ledger.ts and
// bench/invoices.ts hold tlr against. No auth, no rate limit, no audit, no idempotency, no validation,
// no envelope. tlr's endpoints are compared against these. express and pg come from the same catalogue
// versions as the service's.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import pg from 'pg';
import { bareInvoice, barePosting, type Invoicing } from './bare-writes.ts';

export interface Baseline {
  url: string;
  stop(): Promise<void>;
}

export interface BaselineOptions {
  databaseUrl: string;
  /** The company every request reads from (tlr takes it from the API key). */
  companyId: string;
  /** Same pool size as tlr's default DB_POOL_SIZE, for a fair comparison. */
  poolSize?: number;
  port?: number;
  /** For POST /transactions and POST /invoices: the ids tlr would look up (the bench looks them up once). */
  writes?: BaselineWrites;
}

export interface BaselineWrites {
  /** Monthly running balances exist in this schema. */
  monthly: boolean;
  /** Account number -> id, for the posting's lines. */
  accounts: Record<string, string>;
  /** The invoice's customer and accounts; the dates come from each request's body. */
  invoicing: Omit<Invoicing, 'companyId' | 'issue' | 'due'>;
}

export async function startBaseline(opts: BaselineOptions): Promise<Baseline> {
  const pool = new pg.Pool({ connectionString: opts.databaseUrl, max: opts.poolSize ?? 10 });
  pool.on('error', () => {});

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(express.json());
  const writes = () => {
    if (!opts.writes) throw new Error('the baseline was started without the ids for POST /transactions and /invoices (options.writes)');
    return opts.writes;
  };
  // The list's bare work: one page of 50 in tlr's default order, and the total, as two queries.
  app.get('/customers', async (_req, res, next) => {
    try {
      const [page, total] = await Promise.all([
        pool.query('SELECT * FROM customers WHERE company_id = $1 AND deleted_at IS NULL ORDER BY created_at DESC, id DESC LIMIT 50', [opts.companyId]),
        pool.query('SELECT count(*)::int AS n FROM customers WHERE company_id = $1 AND deleted_at IS NULL', [opts.companyId]),
      ]);
      res.json({ data: page.rows, total: total.rows[0].n });
    } catch (e) {
      next(e);
    }
  });
  // The create's bare work: one INSERT of the posted fields, the row back.
  app.post('/customers', async (req, res, next) => {
    try {
      const b = req.body as { name: string; email?: string; phone?: string; city?: string; payment_terms_days?: number };
      const { rows } = await pool.query(
        `INSERT INTO customers (id, company_id, name, email, phone, city, payment_terms_days) VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6) RETURNING *`,
        [opts.companyId, b.name, b.email ?? '', b.phone ?? '', b.city ?? '', b.payment_terms_days ?? 14],
      );
      res.status(201).json(rows[0]);
    } catch (e) {
      next(e);
    }
  });
  // A posting's bare work: the body's lines on the accounts looked up beforehand, then barePosting.
  app.post('/transactions', async (req, res, next) => {
    try {
      const w = writes();
      const b = req.body as { date: string; description?: string; lines: { account_number: string; debit?: string; credit?: string }[] };
      const lines = b.lines.map((l) => ({ account: w.accounts[l.account_number]!, debit: l.debit ?? '0', credit: l.credit ?? '0' }));
      res.status(201).json(await barePosting(pool, { companyId: opts.companyId, date: b.date, description: b.description ?? '', lines }, w.monthly));
    } catch (e) {
      next(e);
    }
  });
  // An auto-approved invoice's bare work: bareInvoice (the amounts of invoiceBody's two lines, as the
  // in-process bare SQL has them) for the body's customer and dates.
  app.post('/invoices', async (req, res, next) => {
    try {
      const w = writes();
      const b = req.body as { customer_id: string; issue_date: string; due_date: string };
      const inv = { ...w.invoicing, companyId: opts.companyId, customerId: b.customer_id, issue: b.issue_date, due: b.due_date };
      res.status(201).json(await bareInvoice(pool, inv, w.monthly));
    } catch (e) {
      next(e);
    }
  });
  app.get('/customers/:id', async (req, res, next) => {
    try {
      const { rows } = await pool.query('SELECT * FROM customers WHERE id = $1 AND company_id = $2', [req.params.id, opts.companyId]);
      if (rows.length === 0) res.status(404).json({ error: 'not found' });
      else res.json(rows[0]);
    } catch (e) {
      next(e);
    }
  });

  const server: Server = await new Promise((resolve, reject) => {
    const s = app.listen(opts.port ?? 0, '127.0.0.1', () => resolve(s));
    s.once('error', reject);
  });
  server.keepAliveTimeout = 65_000;
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    async stop() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      await pool.end();
    },
  };
}
