// The driver adapter factory handed to the WebAssembly schema engine: @prisma/adapter-pg, plus the
// few things the native engine does on PostgreSQL that adapter-pg does not (each noted below).
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import pg from 'pg';
import { PrismaPg } from '@prisma/adapter-pg';

// The binder that turns thrown errors into the Result values the engine expects is adapter-pg's own
// dependency; load that copy, so it always matches the adapter it wraps.
const fromAdapterPg = createRequire(createRequire(import.meta.url).resolve('@prisma/adapter-pg'));
const { bindMigrationAwareSqlAdapterFactory } = fromAdapterPg('@prisma/driver-adapter-utils');

// The engine reads catalog columns of type "char" (OID 18: pg_class.relkind, pg_constraint.confdeltype,
// ...) and `name` (OID 19). adapter-pg 7.10 knows `name` but not "char", and fails the whole query on it
// ("Column type 'char' could not be deserialized"). Report both as text, which is how the engine reads
// them; the value parsers were already chosen from the real OIDs, and leave both as strings.
const TEXT_OID = 25;
const CATALOG_TEXT_OIDS = new Set([18, 19]);
const addFields = pg.Result.prototype.addFields;
pg.Result.prototype.addFields = function (descriptions) {
  addFields.call(this, descriptions);
  for (const field of this.fields) if (CATALOG_TEXT_OIDS.has(field.dataTypeID)) field.dataTypeID = TEXT_OID;
};

// Prisma URLs carry `?schema=`; pg does not know it, the engine learns it from the adapter.
function connectionConfig(url) {
  const parsed = new URL(url);
  const schema = parsed.searchParams.get('schema') ?? undefined;
  parsed.searchParams.delete('schema');
  const config = { connectionString: parsed.toString(), max: 1, idleTimeoutMillis: 0 };
  if (schema) config.options = `-c search_path="${schema.replaceAll('"', '""')}"`;
  return { config, options: schema ? { schema } : undefined };
}

export function databaseName(url) {
  return decodeURIComponent(new URL(url).pathname.slice(1)) || 'postgres';
}

function withDatabase(url, name) {
  const parsed = new URL(url);
  parsed.pathname = `/${encodeURIComponent(name)}`;
  return parsed.toString();
}

export const quoteIdent = (name) => `"${name.replaceAll('"', '""')}"`;

// CREATE/DROP DATABASE on the server of `url`. They cannot run inside the database they create or
// drop, and that database may not exist, so fall back to the `postgres` maintenance database.
export async function onServer(url, sql) {
  const candidates = [...new Set([url, withDatabase(url, 'postgres')])];
  for (const [i, candidate] of candidates.entries()) {
    const client = new pg.Client(connectionConfig(candidate).config);
    try {
      await client.connect();
    } catch (error) {
      if (error.code === '3D000' && i < candidates.length - 1) continue;
      throw error;
    }
    try {
      return await client.query(sql);
    } finally {
      await client.end().catch(() => {});
    }
  }
}

async function connect(url) {
  const { config, options } = connectionConfig(url);
  // One connection, as the native engine uses: the migration advisory lock and SET commands are
  // per session, and a pool would scatter them over several.
  const adapter = await new PrismaPg(config, options).connect();
  const pool = adapter.underlyingDriver();
  // adapter-pg splits scripts on every `;` (breaking strings, dollar-quoted bodies and comments) and
  // runs the pieces one by one, so a failing migration stays half applied. Send the script whole:
  // PostgreSQL runs a multi-statement simple query as one implicit transaction, like the native engine.
  adapter.executeScript = async (script) => {
    try {
      await pool.query(script);
    } catch (error) {
      adapter.onError(error);
    }
  };
  return adapter;
}

export function createAdapterFactory({ url, shadowDatabaseUrl }) {
  const shadows = new Set(); // temporary shadow databases created by this process
  const drops = new Map(); // shadow database name -> its DROP, once started

  const dropShadow = (name) => {
    // FORCE: the engine may let go of its handle without waiting for the pool to close.
    if (!drops.has(name)) drops.set(name, onServer(url, `DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`));
    return drops.get(name);
  };

  // The shadow database replays the migrations folder. Without a configured one, the native engine
  // creates a temporary database next to the main one and drops it afterwards; so does this.
  async function temporaryShadow() {
    const name = `prisma_migrate_shadow_db_${randomUUID()}`;
    await onServer(url, `CREATE DATABASE ${quoteIdent(name)}`);
    shadows.add(name);
    const adapter = await connect(withDatabase(url, name));
    const dispose = adapter.dispose.bind(adapter);
    adapter.dispose = async () => {
      await dispose();
      await dropShadow(name);
    };
    return adapter;
  }

  // A configured shadow database belongs to Prisma: the native engine empties it before use.
  async function configuredShadow() {
    if (shadowDatabaseUrl === url) {
      throw new Error('The shadow database you configured appears to be the same as the main database.');
    }
    const adapter = await connect(shadowDatabaseUrl);
    const schema = quoteIdent(connectionConfig(shadowDatabaseUrl).options?.schema ?? 'public');
    await adapter.underlyingDriver().query(`DROP SCHEMA IF EXISTS ${schema} CASCADE; CREATE SCHEMA ${schema}`);
    return adapter;
  }

  const factory = bindMigrationAwareSqlAdapterFactory({
    provider: 'postgres',
    adapterName: '@prisma/adapter-pg',
    connect: () => connect(url),
    connectToShadowDb: () => (shadowDatabaseUrl ? configuredShadow() : temporaryShadow()),
  });

  // Called before exit: the engine disposes shadow handles without waiting, and may not at all.
  const cleanup = () => Promise.allSettled([...shadows].map(dropShadow));

  return { factory, cleanup };
}
