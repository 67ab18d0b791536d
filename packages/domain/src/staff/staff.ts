// Support staff of the admin app: accounts created by the operator, and the staff actions (table
// staff_audit), the append-only record of what each of them did (the database refuses to change one).
import type { Db } from '@tlr/db';
import { DomainError, invalidRequest } from '../errors.ts';
import { isUuid, newId } from '../ids.ts';
import { hashPassword } from '../credentials/secrets.ts';

export const STAFF_ROLES = ['support', 'admin'] as const;
export type StaffRoleName = (typeof STAFF_ROLES)[number];

export interface StaffUserView {
  id: string;
  email: string;
  role: StaffRoleName;
  created_at: string;
}

export async function createStaffUser(db: Db, input: { email: string; password: string; role: StaffRoleName }): Promise<StaffUserView> {
  const email = input.email.trim().toLowerCase();
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) throw invalidRequest('The e-mail is not an e-mail address.', 'email');
  if (input.password.length < 12) throw invalidRequest('A staff password must have at least 12 characters.', 'password');
  if (await db.staffUser.findUnique({ where: { email } })) throw new DomainError('conflict', `A staff user ${email} exists already.`, 'email');
  const row = await db.staffUser.create({ data: { id: newId(), email, role: input.role, password_hash: await hashPassword(input.password) } });
  return { id: row.id, email: row.email, role: row.role as StaffRoleName, created_at: row.created_at.toISOString() };
}

export async function getStaffUser(db: Db, id: string): Promise<StaffUserView | null> {
  const row = isUuid(id) ? await db.staffUser.findFirst({ where: { id, disabled_at: null } }) : null;
  return row && { id: row.id, email: row.email, role: row.role as StaffRoleName, created_at: row.created_at.toISOString() };
}

export interface StaffActionRecord {
  staff_user_id: string;
  action: string;
  kind: 'query' | 'mutation';
  company_id: string | null;
  target: string;
  outcome: string;
  request_id: string;
}

/** One staff action; the e-mail and role are copied so the record reads on its own. */
export async function recordStaffAction(db: Db, r: StaffActionRecord): Promise<void> {
  await db.$executeRaw`
    INSERT INTO staff_audit (staff_user_id, staff_email, role, action, kind, company_id, target, outcome, request_id)
    SELECT s.id, s.email, s.role, ${r.action}, ${r.kind}, ${r.company_id}::uuid, ${r.target}, ${r.outcome}, ${r.request_id}
    FROM staff_users s WHERE s.id = ${r.staff_user_id}::uuid`;
}

export interface StaffActionView {
  id: string;
  staff_email: string;
  role: string;
  action: string;
  kind: string;
  company_id: string | null;
  target: string;
  outcome: string;
  request_id: string;
  created_at: string;
}

/** The staff actions, newest first: all of them, or one company's, or one staff user's. */
export async function listStaffActions(
  db: Db,
  filter: { companyId?: string | undefined; staffUserId?: string | undefined; limit?: number } = {},
): Promise<StaffActionView[]> {
  const rows = await db.staffAudit.findMany({
    where: { ...(filter.companyId ? { company_id: filter.companyId } : {}), ...(filter.staffUserId ? { staff_user_id: filter.staffUserId } : {}) },
    orderBy: { id: 'desc' },
    take: filter.limit ?? 200,
  });
  return rows.map((r) => ({
    id: String(r.id),
    staff_email: r.staff_email,
    role: r.role,
    action: r.action,
    kind: r.kind,
    company_id: r.company_id,
    target: r.target,
    outcome: r.outcome,
    request_id: r.request_id,
    created_at: r.created_at.toISOString(),
  }));
}
