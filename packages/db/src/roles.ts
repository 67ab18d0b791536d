// Least privilege (decision 480): the service reads and writes the books as SERVICE_ROLE, a role with no
// superuser right that owns nothing: it cannot disable a trigger (only a table's owner can), cannot
// change or delete the control trail (INSERT and SELECT only), and cannot alter the schema. Migrations,
// pg-boss's own schema and backups use the role of DATABASE_URL (the owner); with the embedded
// PostgreSQL that is the cluster's own role, and both exist from the first start.
//
// The owner creates SERVICE_ROLE when it is missing (it needs CREATEROLE, which the embedded cluster's
// role has) and grants it again at every start, after the migrations, so that new tables are covered.
// Its password is derived from the owner's (HMAC), so that every server started with the same
// DATABASE_URL connects with the same one; an owner without a password (trust) gives none.
import { createHmac } from 'node:crypto';
import pg from 'pg';

export const SERVICE_ROLE = 'tlr_service';

/** The service's password for an owner's URL; '' when the owner has none. */
function servicePassword(ownerUrl: string): string {
  const owner = new URL(ownerUrl);
  const secret = decodeURIComponent(owner.password);
  return secret ? createHmac('sha256', secret).update(`${SERVICE_ROLE}@${owner.hostname}`).digest('base64url') : '';
}

/** The URL the service connects with: the owner's, as SERVICE_ROLE. */
export function serviceUrl(ownerUrl: string): string {
  const url = new URL(ownerUrl);
  url.username = SERVICE_ROLE;
  url.password = servicePassword(ownerUrl);
  return url.toString();
}

/** Whether SERVICE_ROLE signs in with its derived password. */
async function signsIn(ownerUrl: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: serviceUrl(ownerUrl), connectionTimeoutMillis: 10_000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

const ident = (s: string) => `"${s.replace(/"/g, '""')}"`;
const literal = (s: string) => `'${s.replace(/'/g, "''")}'`;

/**
 * The grants of SERVICE_ROLE in the owner's database: the tables of the books (the trail append-only),
 * their sequences, and pg-boss's schema. Creates the role first when it is missing. Answers false, with
 * the reason, when the owner may not (no CREATEROLE, and no such role): the caller then says what to grant.
 */
export async function ensureServiceRole(ownerUrl: string): Promise<{ ok: true } | { ok: false; reason: string }> {
  const client = new pg.Client({ connectionString: ownerUrl });
  await client.connect();
  try {
    const password = servicePassword(ownerUrl);
    const exists = (await client.query(`SELECT 1 FROM pg_roles WHERE rolname = $1`, [SERVICE_ROLE])).rowCount === 1;
    const attributes = `LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS ${password ? `PASSWORD ${literal(password)}` : 'PASSWORD NULL'}`;
    try {
      if (!exists) await client.query(`CREATE ROLE ${SERVICE_ROLE} ${attributes}`);
      // Altered only when it cannot sign in as it should (roles are the cluster's: servers starting at once would collide).
      else if (!(await signsIn(ownerUrl))) await client.query(`ALTER ROLE ${SERVICE_ROLE} ${attributes}`);
    } catch (e) {
      const code = (e as { code?: string }).code;
      // Another server created it at the same moment: it is there now.
      if (code !== '42710' && code !== '23505') return { ok: false, reason: (e as Error).message };
    }
    const database = (await client.query<{ db: string }>(`SELECT current_database() AS db`)).rows[0]!.db;
    // One transaction, one start at a time per database: a concurrent start sees the grants whole.
    await client.query('BEGIN');
    await client.query(`SELECT pg_advisory_xact_lock(hashtextextended('tlr:service-role', 0))`);
    await client.query(`GRANT CONNECT, TEMPORARY ON DATABASE ${ident(database)} TO ${SERVICE_ROLE}`);
    await client.query(`GRANT USAGE ON SCHEMA public TO ${SERVICE_ROLE}`);
    await client.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ${SERVICE_ROLE}`);
    await client.query(`GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA public TO ${SERVICE_ROLE}`);
    // Tables a later migration adds (another server's start) are granted at once.
    await client.query(`ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO ${SERVICE_ROLE}`);
    await client.query(`ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT, UPDATE ON SEQUENCES TO ${SERVICE_ROLE}`);
    // pg-boss's queue is the owner's (it makes its own schema); support staff's page reads its jobs.
    if ((await client.query(`SELECT 1 FROM pg_namespace WHERE nspname = 'pgboss'`)).rowCount) {
      await client.query(`GRANT USAGE ON SCHEMA pgboss TO ${SERVICE_ROLE}`);
      await client.query(`GRANT SELECT ON ALL TABLES IN SCHEMA pgboss TO ${SERVICE_ROLE}`);
    }
    // The trail: added to and read, never changed (its triggers say so too, and only its owner could disable them).
    await client.query(`REVOKE UPDATE, DELETE, TRUNCATE ON control_trail FROM ${SERVICE_ROLE}`);
    // The migrations' record is the owner's alone.
    await client.query(`REVOKE ALL ON _prisma_migrations FROM ${SERVICE_ROLE}`);
    await client.query('COMMIT');
    return { ok: true };
  } catch (e) {
    await client.query('ROLLBACK').catch(() => {});
    throw e;
  } finally {
    await client.end();
  }
}
