// Who a transaction acts for, as the control trail records it (bogføringsloven annex 1 no. 2). The
// application names the actor once per transaction; the database's trail triggers read it (tlr_actor()
// in the control_trail migration), resolve its name and stamp every registration the transaction makes.
import { z } from 'zod';
import { withTransactionSettings, type Db, type InTransaction } from '@tlr/db';
import { timestamp } from '../fields.ts';

/** The actor as the application names it: the database looks up the names. */
export type GivenActor =
  | { type: 'api_key' | 'oauth_token' | 'owner' | 'staff'; id: string }
  /** The operator CLI: the operating-system user that ran it. */
  | { type: 'operator'; id: null; name: string }
  /** A background job of tlr itself. */
  | { type: 'system'; id: string; name: string };

const setting = (actor: GivenActor, requestId?: string) => JSON.stringify({ ...actor, request_id: requestId ?? null });

/**
 * Runs `fn` so that every transaction it begins names `actor` (and the request) on its first statement:
 * the setting rides on the transaction's BEGIN, no round trip of its own (transaction-settings.ts in
 * @tlr/db). The names are looked up only when a registration's trigger asks (tlr_actor()), so a
 * transaction that registers nothing pays for none. Without an actor, what a transaction registers is
 * the system's (a background job).
 */
export function actingAs<T>(actor: GivenActor, requestId: string | undefined, fn: () => Promise<T>): Promise<T> {
  return withTransactionSettings({ 'tlr.actor': setting(actor, requestId) }, fn);
}

/**
 * Names the actor of the transaction `tx` already under way (SET LOCAL: it ends with the transaction),
 * one statement: for a transaction that learns its actor from what it reads (a queued import's sender).
 */
export async function actAs(tx: Db, actor: GivenActor, requestId?: string): Promise<void> {
  await tx.$executeRaw`SELECT set_config('tlr.actor', ${setting(actor, requestId)}, true)`;
}

export const ACTOR_TYPES = ['api_key', 'oauth_application', 'owner', 'staff', 'operator', 'system'] as const;

export const registeredBy = z
  .object({
    type: z.enum(ACTOR_TYPES).meta({
      description:
        'api_key: an API key of the company; oauth_application: a partner app, with `user`, the owner who approved it; owner: the company owner on their pages; ' +
        'staff: tlr support staff; operator: the operator CLI; system: tlr itself (a background job such as automatic bank matching, or a registration made before the control trail)',
    }),
    id: z
      .string()
      .nullable()
      .meta({ description: "The API key's, OAuth application's, owner's or staff user's id; the job's name for system; null for the operator" }),
    name: z
      .string()
      .meta({ description: "The key's name, the application's name, the user's e-mail, or the job's description, as it was when the registration was made" }),
    user: z
      .object({ type: z.literal('user'), id: z.string(), name: z.string() })
      .optional()
      .meta({ description: 'oauth_application only: the owner who approved the application (the grant)' }),
  })
  .meta({ id: 'RegisteredBy', description: 'Who made a registration (the control trail, kontrolspor)' });
export type RegisteredBy = z.infer<typeof registeredBy>;

/** The two fields every registration shows; set by the database, never by a request. */
export const registrationFields = {
  registered_at: timestamp().meta({ description: 'When the registration was made, by the database clock (control trail)' }),
  registered_by: registeredBy,
};

export const registrationView = (row: { registered_at: Date; registered_by: unknown }) => ({
  registered_at: row.registered_at.toISOString(),
  registered_by: row.registered_by as RegisteredBy,
});

/** How automatic bank matching is named in the trail (the job, and the inline round after an import). */
export const AUTOMATIC_MATCHING = 'tlr: automatic bank matching';

/** The transactions of a background job: what they register is tlr's own (`system`), named for the job. */
export const asSystem =
  (run: InTransaction, job: string, name: string): InTransaction =>
  (fn) =>
    actingAs({ type: 'system', id: job, name }, undefined, () => run(fn));
