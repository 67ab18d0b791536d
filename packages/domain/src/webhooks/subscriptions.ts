// Webhook subscriptions and their delivery history (contract: Webhook endpoints, Subscriptions).
// Secrets are generated here, shown once (on creation and rotation) and stored encrypted.
import { lookup } from 'node:dns/promises';
import type { Db } from '@tlr/db';
import type { CompanyScope } from '../context.ts';
import { DomainError, invalidRequest, notFound } from '../errors.ts';
import type { EventType } from '../events/outbox.ts';
import { newId } from '../ids.ts';
import { listPage, type ListParams, type ListSpec, type Page } from '../lists/list.ts';
import {
  checkWebhookUrl,
  DELIVERY_HISTORY,
  encryptSecret,
  forbiddenAddress,
  MAX_ACTIVE_SUBSCRIPTIONS,
  newSigningSecret,
  type DeliveryStatus,
  webhookUrl,
} from './rules.ts';

/** What the webhook code needs from the server's configuration. */
export interface WebhookSettings {
  /** The AES-256-GCM key secrets are stored under (32 bytes). */
  key: Buffer;
  /** Development and test harnesses only: http:// and loopback or private targets allowed. */
  allowInsecure: boolean;
  /** The length of one "minute" of the retry schedule (tests shorten it). */
  retryUnitMs: number;
}

const SECRET_MESSAGE = 'Store this secret now: it is shown only once. Verify each delivery with it (Service-Signature; docs/webhooks.md).';

export interface SubscriptionView {
  id: string;
  url: string;
  events: EventType[];
  created_at: string;
}

type SubscriptionRow = { id: string; url: string; events: string[]; created_at: Date };
const view = (r: SubscriptionRow): SubscriptionView => ({ id: r.id, url: r.url, events: r.events as EventType[], created_at: r.created_at.toISOString() });

/**
 * The URL rules of the contract ("HTTPS, no embedded credentials, publicly resolvable"): the syntax,
 * then every address the host resolves to. Deliveries check both again (dispatch.ts, send). Returns the
 * URL in the form it is stored, listed and dialled in.
 */
async function checkUrl(text: string, settings: WebhookSettings): Promise<string> {
  const rule = checkWebhookUrl(text, settings.allowInsecure);
  if (rule) throw invalidRequest(`url ${rule}.`, 'url');
  const url = webhookUrl(text);
  if (settings.allowInsecure) return url;
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  let addresses: { address: string }[];
  try {
    addresses = await lookup(host, { all: true });
  } catch {
    throw invalidRequest(`url must be publicly resolvable: ${host} does not resolve.`, 'url');
  }
  for (const { address } of addresses) {
    const why = forbiddenAddress(address);
    if (why) throw invalidRequest(`url must be publicly resolvable: ${host} resolves to ${why} (${address}).`, 'url');
  }
  return url;
}

export async function createSubscription(db: Db, scope: CompanyScope, settings: WebhookSettings, input: { url: string; events: EventType[] }) {
  const url = await checkUrl(input.url, settings);
  // The company's row serialises creations, so two at once cannot both be the 25th.
  await db.$queryRaw`SELECT id FROM companies WHERE id = ${scope.companyId}::uuid FOR UPDATE`;
  const active = await db.webhookSubscription.count({ where: { company_id: scope.companyId, deleted_at: null } });
  if (active >= MAX_ACTIVE_SUBSCRIPTIONS) {
    throw new DomainError('webhook_limit_reached', `A company has at most ${MAX_ACTIVE_SUBSCRIPTIONS} active webhook subscriptions; delete one first.`, 'url');
  }
  const secret = newSigningSecret();
  const row = await db.webhookSubscription.create({
    data: {
      id: newId(),
      company_id: scope.companyId,
      url,
      events: [...new Set(input.events)],
      secret_encrypted: encryptSecret(secret, settings.key),
    },
  });
  return { ...view(row), secret, message: SECRET_MESSAGE };
}

/**
 * GET /webhooks is a list like every other (contract, Conventions 5 and List parameters): the list
 * engine's page, per_page, sort, order, since/until (on the creation time) and search (in the URL).
 */
export const WEBHOOK_LIST = {
  sort: { created_at: 'created_at', url: 'url' },
  defaultSort: 'created_at',
  dateColumn: 'created_at',
  dateDescription: 'creation date',
  // The URL is all that tells one subscription from another.
  search: ['url'],
} satisfies ListSpec;

/** The active subscriptions, a page of them. */
export function listSubscriptions(db: Db, scope: CompanyScope, params: ListParams): Promise<Page<SubscriptionView>> {
  return listPage(db.webhookSubscription, { company_id: scope.companyId, deleted_at: null }, params, WEBHOOK_LIST, view);
}

async function activeSubscription(db: Db, scope: CompanyScope, id: string, lock = false) {
  if (lock) await db.$queryRaw`SELECT id FROM webhook_subscriptions WHERE id = ${id}::uuid AND company_id = ${scope.companyId}::uuid FOR UPDATE`;
  const row = await db.webhookSubscription.findFirst({ where: { id, company_id: scope.companyId, deleted_at: null } });
  if (!row) throw notFound('webhook subscription', id);
  return row;
}

/** Deletes a subscription: its pending deliveries stop (the row and history stay, unlisted). */
export async function deleteSubscription(db: Db, scope: CompanyScope, id: string): Promise<{ id: string; deleted: true }> {
  await activeSubscription(db, scope, id, true);
  await db.webhookSubscription.update({ where: { id }, data: { deleted_at: new Date() } });
  await db.webhookDelivery.updateMany({ where: { subscription_id: id, status: { in: ['pending', 'retrying'] } }, data: { next_attempt_at: null } });
  return { id, deleted: true };
}

/** A new secret at once: every send from now on, retries included, is signed with it. */
export async function rotateSecret(db: Db, scope: CompanyScope, settings: WebhookSettings, id: string) {
  await activeSubscription(db, scope, id, true);
  const secret = newSigningSecret();
  await db.webhookSubscription.update({ where: { id }, data: { secret_encrypted: encryptSecret(secret, settings.key) } });
  return { id, secret, message: SECRET_MESSAGE };
}

export interface DeliveryView {
  id: string;
  event_id: string;
  event_type: EventType;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: string | null;
  last_attempt_at: string | null;
  last_response_status: number | null;
  last_duration_ms: number | null;
  last_error: string;
  created_at: string;
}

type DeliveryRow = {
  id: string;
  event_id: string;
  event_type: string;
  status: string;
  attempts: number;
  next_attempt_at: Date | null;
  last_attempt_at: Date | null;
  last_status: number | null;
  last_duration_ms: number | null;
  last_error: string;
  created_at: Date;
};
const deliveryView = (d: DeliveryRow): DeliveryView => ({
  id: d.id,
  event_id: d.event_id,
  event_type: d.event_type as EventType,
  status: d.status as DeliveryStatus,
  attempts: d.attempts,
  next_attempt_at: d.next_attempt_at?.toISOString() ?? null,
  last_attempt_at: d.last_attempt_at?.toISOString() ?? null,
  last_response_status: d.last_status,
  last_duration_ms: d.last_duration_ms,
  last_error: d.last_error,
  created_at: d.created_at.toISOString(),
});

/** The latest 100 deliveries of a subscription, newest first (contract: "Delivery history: latest 100 entries"). */
export async function listDeliveries(db: Db, scope: CompanyScope, id: string): Promise<DeliveryView[]> {
  await activeSubscription(db, scope, id);
  const rows = await db.webhookDelivery.findMany({ where: { subscription_id: id }, orderBy: [{ created_at: 'desc' }, { id: 'desc' }], take: DELIVERY_HISTORY });
  return rows.map(deliveryView);
}

/** Back to pending, the schedule restarted, the original payload; the signature is made fresh at send time. */
export async function replayDelivery(db: Db, scope: CompanyScope, id: string, deliveryId: string): Promise<DeliveryView> {
  await activeSubscription(db, scope, id);
  const found = await db.webhookDelivery.findFirst({ where: { id: deliveryId, subscription_id: id, company_id: scope.companyId } });
  if (!found) throw notFound('webhook delivery', deliveryId);
  const row = await db.webhookDelivery.update({ where: { id: deliveryId }, data: { status: 'pending', attempts: 0, next_attempt_at: new Date() } });
  return deliveryView(row);
}
