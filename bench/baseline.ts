// The baseline of the benchmark: the least an Express 5 + pg server can do for GET /customers/:id —
// one parameterised SELECT on a pool, the row as JSON. No auth, no rate limit, no audit, no
// validation, no envelope. tlr's GET /api/v1/customers/{id} is compared against this. express and pg
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
