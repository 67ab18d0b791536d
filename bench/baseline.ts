// The baseline of the benchmark: the least an Express 5 + pg server can do for GET /customers/:id —
// one parameterised SELECT on a pool, the row as JSON — and for the list (a page of 50 and the total)
// and the create (one INSERT). No auth, no rate limit, no audit, no validation, no envelope. tlr's
// endpoints are compared against these. express and pg
// come from the same catalogue versions as the service's.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import pg from 'pg';

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
}

export async function startBaseline(opts: BaselineOptions): Promise<Baseline> {
  const pool = new pg.Pool({ connectionString: opts.databaseUrl, max: opts.poolSize ?? 10 });
  pool.on('error', () => {});

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(express.json());
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
