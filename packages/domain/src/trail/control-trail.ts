// GET /audit-trail: a company's control trail (kontrolspor) as one list: every registration and change
// the trail triggers recorded (control_trail), joined with what support staff did to the company
// (staff_audit), newest first. Both tables are append-only; nothing here or elsewhere deletes from them.
import { z } from 'zod';
import { Prisma, type Db } from '@tlr/db';
import type { CompanyScope } from '../context.ts';
import type { ListParams, ListSpec, Page } from '../lists/list.ts';
import { dayAfter } from '../calendar.ts';
import { registeredBy, type RegisteredBy } from './actor.ts';

export const TRAIL_RESOURCE_TYPES = [
  'transaction',
  'invoice',
  'credit_note',
  'invoice_payment',
  'expense',
  'voucher',
  'vat_return',
  'bank_statement',
  'bank_line',
  'bank_account',
  'customer',
  'supplier',
  'product',
  'account',
  'quote',
  'recurring_invoice',
  'staff_action',
] as const;

export const CONTROL_TRAIL_LIST: ListSpec = {
  sort: { registered_at: 'registered_at' },
  defaultSort: 'registered_at',
  search: [],
  dateColumn: 'registered_at',
  dateDescription: 'registration time (registered_at, UTC day)',
};

export const controlTrailFilters = z.strictObject({
  type: z
    .enum(TRAIL_RESOURCE_TYPES, { error: `must be one of ${TRAIL_RESOURCE_TYPES.join(', ')}` })
    .optional()
    .meta({ description: 'Only entries about this kind of resource (staff_action: what support staff did)' }),
  resource_id: z.guid('must be a UUID').optional().meta({ description: 'Only entries about this resource' }),
  actor_type: registeredBy.shape.type.optional().meta({ description: 'Only entries made by this kind of actor' }),
  actor_id: z.string().max(200).optional().meta({ description: "Only entries made by this actor (an API key's, application's or user's id)" }),
  action: z
    .string()
    .max(100)
    .optional()
    .meta({ description: 'Only this action (posted, created, approved, sent, paid, cancelled, matched, updated, deleted, ...)' }),
});
export type ControlTrailFilters = z.output<typeof controlTrailFilters>;

export const controlTrailEntry = z
  .object({
    id: z.string().meta({ description: 'The entry: its consecutive number in the trail, or staff-<n> for a support staff action' }),
    registered_at: z.string().meta({ description: 'When, by the database clock' }),
    registered_by: registeredBy,
    request_id: z.string().nullable().meta({ description: 'The X-Request-ID of the request that made it; null for a background job' }),
    resource_type: z.enum(TRAIL_RESOURCE_TYPES),
    resource_id: z.string().nullable().meta({ description: 'The resource; null for a staff action (see changes.target)' }),
    action: z
      .string()
      .meta({ description: 'What happened: posted, created, approved, sent, paid, cancelled, booked, matched, unmatched, reversed, updated, deleted, ...' }),
    changes: z
      .record(z.string(), z.unknown())
      .nullable()
      .meta({ description: 'An update: each changed field as [before, after]. A staff action: its procedure kind, target and outcome. null for a creation' }),
  })
  // The OpenAPI component keeps the name of the public path, GET /audit-trail.
  .meta({ id: 'AuditTrailEntry' });
export type ControlTrailEntry = z.input<typeof controlTrailEntry>;

interface Row {
  src: number;
  seq: bigint;
  registered_at: Date;
  actor: RegisteredBy;
  request_id: string | null;
  resource_type: string;
  resource_id: string | null;
  action: string;
  changes: Record<string, unknown> | null;
}

/** One page of the company's trail with the list parameters and the filters; ties broken by the entry's number. */
export async function listControlTrail(db: Db, scope: CompanyScope, params: ListParams & ControlTrailFilters): Promise<Page<ControlTrailEntry>> {
  const utcDay = (d: string) => Prisma.sql`(${d}::date::timestamp AT TIME ZONE 'UTC')`;
  const since = params.since ? Prisma.sql`AND registered_at >= ${utcDay(params.since)}` : Prisma.empty;
  const until = params.until ? Prisma.sql`AND registered_at < ${utcDay(dayAfter(params.until))}` : Prisma.empty;
  const term = params.search?.trim() ? `%${params.search.trim().replace(/[\\%_]/g, (c) => `\\${c}`)}%` : null;
  const filters = Prisma.sql`
    ${params.type ? Prisma.sql`AND resource_type = ${params.type}` : Prisma.empty}
    ${params.resource_id ? Prisma.sql`AND resource_id = ${params.resource_id}` : Prisma.empty}
    ${params.actor_type ? Prisma.sql`AND actor->>'type' = ${params.actor_type}` : Prisma.empty}
    ${params.actor_id ? Prisma.sql`AND actor->>'id' = ${params.actor_id}` : Prisma.empty}
    ${params.action ? Prisma.sql`AND action = ${params.action}` : Prisma.empty}
    ${term ? Prisma.sql`AND (action ILIKE ${term} OR actor->>'name' ILIKE ${term} OR resource_type ILIKE ${term})` : Prisma.empty}`;
  const dir = params.order === 'asc' ? Prisma.sql`ASC` : Prisma.sql`DESC`;
  // A staff action has no row id of ours to filter on: a resource filter leaves them out.
  const staff = params.resource_id ? Prisma.sql`AND false` : Prisma.empty;
  // The CTE is inlined into each statement (referenced once), so the filters reach each table's index.
  const entries = Prisma.sql`
    WITH entries AS (
      SELECT 0 AS src, id AS seq, registered_at, actor, request_id, resource_type, resource_id::text, action, changes
      FROM control_trail WHERE company_id = ${scope.companyId}::uuid
      UNION ALL
      SELECT 1, id, created_at, jsonb_build_object('type', 'staff', 'id', staff_user_id::text, 'name', staff_email), request_id,
             'staff_action', NULL, action, jsonb_build_object('kind', kind, 'role', role, 'target', target, 'outcome', outcome)
      FROM staff_audit WHERE company_id = ${scope.companyId}::uuid ${staff}
    )`;
  // The page and the count apart: a window count over the page's query would read and sort every entry.
  const [rows, [counted]] = await Promise.all([
    db.$queryRaw<Row[]>`${entries}
      SELECT * FROM entries WHERE true ${since} ${until} ${filters}
      ORDER BY registered_at ${dir}, src ${dir}, seq ${dir}
      LIMIT ${params.per_page} OFFSET ${(params.page - 1) * params.per_page}`,
    db.$queryRaw<{ n: number }[]>`${entries} SELECT count(*)::int AS n FROM entries WHERE true ${since} ${until} ${filters}`,
  ]);
  const total = counted?.n ?? 0;
  return {
    data: rows.map((r) => ({
      id: r.src === 0 ? String(r.seq) : `staff-${r.seq}`,
      registered_at: r.registered_at.toISOString(),
      registered_by: r.actor,
      request_id: r.request_id,
      resource_type: r.resource_type as ControlTrailEntry['resource_type'],
      resource_id: r.resource_id,
      action: r.action,
      changes: r.changes,
    })),
    meta: { page: params.page, per_page: params.per_page, total, total_pages: Math.ceil(total / params.per_page) },
  };
}
