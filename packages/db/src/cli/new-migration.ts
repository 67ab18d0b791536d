// Writes the next migration: prisma/migrations/<UTC timestamp>_<name>/migration.sql, holding what
// prisma/schema.prisma adds to the migrations so far, as Prisma's `migrate diff` computes it (see
// check-migrations.ts for the temporary databases). Prints the path written, or "no changes".
//
//   tsx packages/db/src/cli/new-migration.ts <name>      (pnpm db:migrate:new <name>)
//
// Like `prisma migrate dev --create-only`, but applies nothing and needs no development database.
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { databaseServerFromEnv, diffMigrationsToSchema, MIGRATION_LOCK, MIGRATIONS_DIR } from './check-migrations.ts';

const timestamp = (date: Date) => date.toISOString().replace(/\D/g, '').slice(0, 14); // YYYYMMDDHHMMSS, UTC

// Migrations apply in the order of their folder names: never sort before an existing one (a clock
// behind, or two migrations within a second).
function nextTimestamp(existing: string[]): string {
  const now = timestamp(new Date());
  const last = existing
    .map((folder) => folder.slice(0, 14))
    .filter((t) => /^\d{14}$/.test(t))
    .sort()
    .at(-1);
  if (!last || now > last) return now;
  const [, y, mo, d, h, mi, s] = /^(\d{4})(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)$/.exec(last)!.map(Number);
  return timestamp(new Date(Date.UTC(y!, mo! - 1, d, h, mi, s! + 1)));
}

async function main(): Promise<void> {
  const name = (process.argv[2] ?? '')
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  if (!name) throw new Error('usage: tsx packages/db/src/cli/new-migration.ts <name>   (e.g. add_invoices)');

  const { inSync, sql } = await diffMigrationsToSchema(databaseServerFromEnv());
  if (inSync) {
    console.log('no changes');
    return;
  }

  mkdirSync(MIGRATIONS_DIR, { recursive: true });
  const existing = readdirSync(MIGRATIONS_DIR, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name);
  const folder = join(MIGRATIONS_DIR, `${nextTimestamp(existing)}_${name}`);
  mkdirSync(folder);
  const file = join(folder, 'migration.sql');
  writeFileSync(file, sql);
  const lockFile = join(MIGRATIONS_DIR, 'migration_lock.toml');
  if (!existsSync(lockFile)) writeFileSync(lockFile, MIGRATION_LOCK);
  console.log(relative(process.cwd(), file));
}

main().catch((error: Error) => {
  console.error(error.message);
  process.exitCode = 1;
});
