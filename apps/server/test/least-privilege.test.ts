// Least privilege: the service reads and writes the books as a role that is no
// superuser and owns nothing, so that the control trail's triggers are not its only guard: it cannot
// disable them, nor change or delete a row of the trail, whatever SQL it were made to send.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, SERVICE_ROLE, serviceUrl, type Database } from '@tlr/db';
import { databaseUrl, useCompany } from './helpers.ts';

const t = useCompany({ name: 'Mindste Ret ApS' });

let service: Database['pool'];
let handle: Database | undefined;
beforeAll(async () => {
  // A posting, so that the trail has rows.
  const posted = await t.raw.post('/transactions', {
    date: '2026-03-02',
    lines: [
      { account_number: '6470', debit: 100 },
      { account_number: '1010', credit: 100 },
    ],
  });
  expect(posted.status, posted.text).toBe(201);
  handle = createDatabase(serviceUrl(databaseUrl()), 1);
  service = handle.pool;
});
afterAll(() => handle?.close());

/** The SQLSTATE of what `sql` fails with as the service's role, or 'ok'. */
const refusal = (sql: string) =>
  service.query(sql).then(
    () => 'ok',
    (e: { code?: string; message: string }) => `${e.code}: ${e.message}`,
  );

describe("the service's role", () => {
  it('is the one the server connects with, and has no superuser, role, database or replication right', async () => {
    const { rows } = await t.svc.db.pool.query<{ user: string }>(`SELECT current_user AS user`);
    expect(rows[0]?.user).toBe(SERVICE_ROLE);
    const role = await service.query(`SELECT rolsuper, rolcreaterole, rolcreatedb, rolreplication, rolbypassrls FROM pg_roles WHERE rolname = current_user`);
    expect(role.rows[0]).toEqual({ rolsuper: false, rolcreaterole: false, rolcreatedb: false, rolreplication: false, rolbypassrls: false });
  });

  it("cannot disable the trail's triggers, nor UPDATE, DELETE or TRUNCATE the trail; it can add to it and read it", async () => {
    expect((await service.query(`SELECT count(*)::int AS n FROM control_trail`)).rows[0].n).toBeGreaterThan(0);
    for (const sql of [
      'ALTER TABLE control_trail DISABLE TRIGGER ALL',
      'ALTER TABLE control_trail DISABLE TRIGGER control_trail_append_only',
      'ALTER TABLE ledger_transactions DISABLE TRIGGER USER',
      'DROP TRIGGER control_trail_append_only ON control_trail',
    ])
      expect(await refusal(sql), sql).toMatch(/^42501: must be owner of (table|relation) /);
    for (const sql of [`UPDATE control_trail SET action = 'forged'`, 'DELETE FROM control_trail', 'TRUNCATE control_trail'])
      expect(await refusal(sql), sql).toMatch(/^42501: permission denied for table control_trail/);
    // Nor around the triggers: replication mode skips them, and is a superuser's setting.
    expect(await refusal('SET session_replication_role = replica')).toMatch(/^42501: permission denied to set parameter "session_replication_role"/);
    // Nor the schema or the migrations' record.
    expect(await refusal('CREATE TABLE forged (id int)')).toMatch(/^42501: permission denied for schema public/);
    expect(await refusal('SELECT * FROM _prisma_migrations')).toMatch(/^42501: permission denied for table _prisma_migrations/);
  });
});
