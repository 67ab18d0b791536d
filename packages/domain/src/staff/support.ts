// What support staff look at: a company with everything attached to it, a request by the X-Request-ID
// an integrator quotes, webhook deliveries and dead letters across the service, and the health of the
// queues. Reads only; the changes support may make go through the same domain functions as the API.
import type { Db } from '@tlr/db';
import { notFound } from '../errors.ts';
import { isUuid } from '../ids.ts';
import { companySettingsView } from '../companies/companies.ts';
import { listApiKeys } from '../credentials/api-keys.ts';
import { listOAuthGrants } from '../oauth/flow.ts';
import { listSandboxResets } from '../companies/sandbox-reset.ts';
import { MAX_ACTIVE_SUBSCRIPTIONS } from '../webhooks/rules.ts';
import { listDeliveries, listSubscriptions, replayDelivery } from '../webhooks/subscriptions.ts';
import { lastBackupRun } from '../backup/runs.ts';

/** A live company with its sandbox, keys, connected apps, webhook subscriptions and recent resets. */
export async function companyOverview(db: Db, companyId: string) {
  const company = isUuid(companyId) ? await db.company.findUnique({ where: { id: companyId }, include: { owner: { select: { email: true } } } }) : null;
  if (!company || company.sandbox_of_id) throw notFound('live company', companyId);
  const sandbox = await db.company.findUnique({ where: { sandbox_of_id: company.id } });
  // Every active one (there are at most 25), oldest first.
  const all = { page: 1, per_page: MAX_ACTIVE_SUBSCRIPTIONS, order: 'asc' } as const;
  const subscriptions = async (id: string, livemode: boolean) =>
    (await listSubscriptions(db, { companyId: id, livemode }, all)).data.map((s) => ({ ...s, livemode }));
  return {
    company: { ...companySettingsView(company), owner_email: company.owner.email, created_at: company.created_at.toISOString() },
    sandbox_id: sandbox?.id ?? null,
    api_keys: await listApiKeys(db, company.id),
    oauth_grants: await listOAuthGrants(db, company.id),
    webhooks: [...(await subscriptions(company.id, true)), ...(sandbox ? await subscriptions(sandbox.id, false) : [])],
    sandbox_resets: sandbox ? await listSandboxResets(db, sandbox.id, 10) : [],
  };
}

/** The requests recorded under an X-Request-ID (one, or the calls of one in-process request), oldest first. */
export async function lookupRequest(db: Db, requestId: string) {
  const rows = await db.requestAudit.findMany({ where: { request_id: requestId.trim() }, orderBy: { id: 'asc' }, take: 20 });
  const companies = await db.company.findMany({
    where: { id: { in: rows.map((r) => r.company_id).filter((id): id is string => id !== null) } },
    select: { id: true, name: true, sandbox_of_id: true },
  });
  return rows.map((r) => {
    const company = companies.find((c) => c.id === r.company_id);
    return {
      request_id: r.request_id,
      method: r.method,
      path: r.path,
      status: r.status,
      problem_code: r.problem_code,
      duration_ms: Math.round(r.duration_ms * 10) / 10,
      credential: r.actor_type ? `${r.actor_type}${r.actor_id ? ` ${r.actor_id}` : ''}` : null,
      company_id: r.company_id,
      company_name: company?.name ?? null,
      livemode: company ? company.sandbox_of_id === null : null,
      ip: r.ip,
      created_at: r.created_at.toISOString(),
    };
  });
}

/**
 * A subscription of the live company `companyId` or of its sandbox, as the scope the API's own delivery
 * functions take. Another company's subscription is not found.
 */
async function subscriptionScope(db: Db, companyId: string, subscriptionId: string) {
  const sub = isUuid(subscriptionId) ? await db.webhookSubscription.findUnique({ where: { id: subscriptionId }, select: { company_id: true } }) : null;
  const company = sub && (await db.company.findUnique({ where: { id: sub.company_id }, select: { id: true, sandbox_of_id: true } }));
  if (!company || (company.id !== companyId && company.sandbox_of_id !== companyId)) throw notFound('webhook subscription', subscriptionId);
  return { companyId: company.id, livemode: company.sandbox_of_id === null };
}

export async function subscriptionDeliveries(db: Db, companyId: string, subscriptionId: string) {
  return listDeliveries(db, await subscriptionScope(db, companyId, subscriptionId), subscriptionId);
}

export async function replaySubscriptionDelivery(db: Db, companyId: string, subscriptionId: string, deliveryId: string) {
  return replayDelivery(db, await subscriptionScope(db, companyId, subscriptionId), subscriptionId, deliveryId);
}

/** The sandbox of a live company, for a reset support starts on the owner's request. */
export async function sandboxOf(db: Db, companyId: string): Promise<string> {
  const sandbox = isUuid(companyId) ? await db.company.findUnique({ where: { sandbox_of_id: companyId }, select: { id: true } }) : null;
  if (!sandbox) throw notFound('sandbox of company', companyId);
  return sandbox.id;
}

/** Deliveries that used up their attempts, across the service, newest first. */
export async function deadLetters(db: Db, take = 100) {
  const rows = await db.webhookDelivery.findMany({ where: { status: 'dead_letter' }, orderBy: [{ last_attempt_at: 'desc' }, { id: 'desc' }], take });
  const subs = await db.webhookSubscription.findMany({
    where: { id: { in: [...new Set(rows.map((r) => r.subscription_id))] } },
    select: { id: true, url: true },
  });
  // The live company the support pages open (a sandbox's deliveries are found under its live company).
  const companies = await db.company.findMany({
    where: { id: { in: [...new Set(rows.map((r) => r.company_id))] } },
    select: { id: true, sandbox_of_id: true },
  });
  const liveOf = new Map(companies.map((c) => [c.id, c.sandbox_of_id ?? c.id]));
  return rows.map((r) => ({
    id: r.id,
    company_id: r.company_id,
    live_company_id: liveOf.get(r.company_id) ?? r.company_id,
    subscription_id: r.subscription_id,
    url: subs.find((s) => s.id === r.subscription_id)?.url ?? '',
    event_type: r.event_type,
    attempts: r.attempts,
    last_response_status: r.last_status,
    last_error: r.last_error,
    last_attempt_at: r.last_attempt_at?.toISOString() ?? null,
  }));
}

/** Queue depths, the oldest delivery still waiting, failed jobs of the last day, and the database itself. */
export async function serviceHealth(db: Db) {
  const started = performance.now();
  await db.$queryRaw`SELECT 1`;
  const databaseMs = Math.round((performance.now() - started) * 10) / 10;
  const [deliveries] = await db.$queryRaw<{ waiting: number; oldest: Date | null; dead: number }[]>`
    SELECT count(*) FILTER (WHERE status IN ('pending', 'retrying'))::int AS waiting,
           min(created_at) FILTER (WHERE status IN ('pending', 'retrying')) AS oldest,
           count(*) FILTER (WHERE status = 'dead_letter')::int AS dead
    FROM webhook_deliveries`;
  const [outbox] = await db.$queryRaw<{ undispatched: number }[]>`SELECT count(*)::int AS undispatched FROM outbox_events WHERE dispatched_at IS NULL`;
  // pg-boss keeps its jobs in its own schema; absent until a worker has started once.
  const queues = await db.$queryRaw<{ name: string; queued: number; active: number; failed: number }[]>`
    SELECT name,
           count(*) FILTER (WHERE state IN ('created', 'retry'))::int AS queued,
           count(*) FILTER (WHERE state = 'active')::int AS active,
           count(*) FILTER (WHERE state = 'failed' AND completed_on > now() - interval '1 day')::int AS failed
    FROM pgboss.job GROUP BY name ORDER BY name`.catch(() => []);
  const resets = await db.sandboxReset.count({ where: { status: { in: ['pending', 'running'] } } });
  // The last backup run: a failed one is shown, with its error.
  const backup = (await lastBackupRun(db)) ?? null;
  return {
    backup,
    database: { reachable: true, round_trip_ms: databaseMs },
    deliveries: { waiting: deliveries?.waiting ?? 0, oldest_waiting_at: deliveries?.oldest?.toISOString() ?? null, dead_letters: deliveries?.dead ?? 0 },
    outbox_undispatched: outbox?.undispatched ?? 0,
    open_sandbox_resets: resets,
    queues,
  };
}
