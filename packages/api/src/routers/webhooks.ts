// /webhooks: subscriptions, their secret rotation and delivery history (contract: Webhook endpoints;
// scope webhooks:manage; no Idempotency-Key on these endpoints).
import { z } from 'zod';
import {
  createSubscription,
  DELIVERY_STATUSES,
  deleteSubscription,
  EVENT_TYPES,
  listDeliveries,
  listSubscriptions,
  replayDelivery,
  rotateSecret,
  WEBHOOK_LIST,
  type WebhookSettings,
} from '@tlr/domain';
import { deleteEndpoint, listEndpoint, metaOf } from '../crud.ts';
import { storageUnavailable } from '../problem.ts';
import { single } from '../schemas/envelopes.ts';
import { timestamp, uuid } from '@tlr/domain/fields';
import { authedProcedure, router } from '../trpc.ts';
import { count, deliveryAttempts, receivedStatus } from '@tlr/domain/integers';

const tag = 'Webhooks';
const scope = ['webhooks:manage'] as const;

function requireWebhooks(settings: WebhookSettings | undefined): WebhookSettings {
  if (!settings) throw storageUnavailable('Webhooks are not configured on this server.');
  return settings;
}

const subscription = z
  .object({
    id: z.guid(),
    url: z.string(),
    events: z.array(z.enum(EVENT_TYPES)),
    created_at: timestamp(),
  })
  .meta({ id: 'WebhookSubscription' });

const withSecret = {
  secret: z.string().meta({ description: 'whsec_ and 43 base64url characters; shown only now. The HMAC key is this whole string (UTF-8).' }),
  message: z.string(),
};

const delivery = z
  .object({
    id: z.guid().meta({ description: 'Sent as Service-Delivery-Id' }),
    event_id: z.guid().meta({ description: 'Sent as Service-Event-Id, and the envelope id' }),
    event_type: z.enum(EVENT_TYPES),
    status: z
      .enum(DELIVERY_STATUSES)
      .meta({ description: 'pending (not yet tried), retrying (failed, next attempt scheduled), succeeded (a 2xx), dead_letter (8 attempts failed)' }),
    attempts: deliveryAttempts(),
    next_attempt_at: timestamp().nullable(),
    last_attempt_at: timestamp().nullable(),
    last_response_status: receivedStatus()
      .nullable()
      .meta({ description: 'HTTP status of the last attempt; null when no answer (unreachable, timeout, refused address)' }),
    last_duration_ms: count().nullable(),
    last_error: z.string().meta({ description: 'Why the last attempt got no answer; "" otherwise' }),
    created_at: timestamp(),
  })
  .meta({ id: 'WebhookDelivery' });

const eventTypes = z
  .array(z.enum(EVENT_TYPES, { error: (i) => `${JSON.stringify(i.input)} is not an event type of the catalog` }))
  .min(1, 'must name at least one event type');

export const webhooksRouter = router({
  list: listEndpoint({
    path: '/webhooks',
    tag,
    summary: 'List webhook subscriptions',
    description:
      'The active subscriptions of the company (the sandbox with a test key), in the list envelope with the list parameters of every list; newest first by default. Secrets are never listed.',
    scope,
    spec: WEBHOOK_LIST,
    searchDescription: 'Case-insensitive search in the URL',
    resource: subscription,
    run: listSubscriptions,
  }),
  create: authedProcedure
    .meta(
      metaOf(
        {
          path: '/webhooks',
          tag,
          summary: 'Subscribe to events',
          description:
            'url: HTTPS, no user name or password (not even empty), port 443 (the default) or 1024 to 65535 but for the ports of other services (Redis 6379, databases, brokers: decision 176), resolving only to public addresses, no IPv6 address carrying an IPv4 one (IPv4-compatible, IPv4-mapped, SIIT, NAT64, 6to4, Teredo) (checked now and again at every delivery); kept and answered in its normalised form (https://hooks.example.com/a/b for HTTPS://Hooks.Example.COM:443/a/./b), at most 2048 characters. events: a non-empty list of catalog types. At most 25 active subscriptions per company (409 webhook_limit_reached). A subscription made with a test key receives the sandbox events (livemode false). No Idempotency-Key. The secret is shown only in this answer.',
          scope,
          problems: [409],
        },
        'POST',
        { created: true },
      ),
    )
    .input(z.strictObject({ url: z.string().trim().max(2048).meta({ example: 'https://hooks.example.com/tlr' }), events: eventTypes }))
    .output(single(subscription.extend(withSecret)))
    .mutation(async ({ ctx, input }) => ({ data: await createSubscription(ctx.tx, ctx.scope, requireWebhooks(ctx.webhooks), input) })),
  delete: deleteEndpoint({
    path: '/webhooks/{id}',
    tag,
    summary: 'Delete a webhook subscription',
    description: 'Its pending deliveries stop.',
    scope,
    run: deleteSubscription,
  }),
  rotateSecret: authedProcedure
    .meta(
      metaOf(
        {
          path: '/webhooks/{id}/rotate-secret',
          tag,
          summary: 'Rotate the signing secret',
          description: 'Takes effect at once: every delivery sent from now on, retries included, is signed with the new secret only.',
          scope,
        },
        'POST',
      ),
    )
    .input(z.object({ id: uuid() }))
    .output(single(z.object({ id: z.guid(), ...withSecret })))
    .mutation(async ({ ctx, input }) => ({ data: await rotateSecret(ctx.tx, ctx.scope, requireWebhooks(ctx.webhooks), input.id) })),
  deliveries: authedProcedure
    .meta(
      metaOf({ path: '/webhooks/{id}/deliveries', tag, summary: 'Delivery history', description: 'The latest 100 deliveries, newest first.', scope }, 'GET'),
    )
    .input(z.object({ id: uuid() }))
    .output(z.object({ data: z.array(delivery) }))
    .query(async ({ ctx, input }) => ({ data: await listDeliveries(ctx.tx, ctx.scope, input.id) })),
  replay: authedProcedure
    .meta(
      metaOf(
        {
          path: '/webhooks/{id}/deliveries/{delivery_id}/replay',
          tag,
          summary: 'Replay a delivery',
          description:
            'Any delivery, dead_letter included, goes back to pending: the retry schedule restarts with the original payload; the signature timestamp is fresh at send time.',
          scope,
        },
        'POST',
      ),
    )
    .input(z.object({ id: uuid(), delivery_id: uuid() }))
    .output(single(delivery))
    .mutation(async ({ ctx, input }) => ({ data: await replayDelivery(ctx.tx, ctx.scope, input.id, input.delivery_id) })),
});
