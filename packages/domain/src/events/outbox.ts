// The events outbox: every create, update and delete records its catalog event here, in the same
// transaction as the change. Delivery (webhooks) reads this table later; nothing is lost on a crash.
import { API_VERSION } from '@tlr/config';
import type { Db } from '@tlr/db';
import type { CompanyScope } from '../context.ts';
import { newId } from '../ids.ts';

export const EVENT_TYPES = [
  'invoice.created',
  'invoice.updated',
  'invoice.deleted',
  'invoice.approved',
  'invoice.sent',
  'invoice.paid',
  'invoice.cancelled',
  'invoice.overdue',
  'customer.created',
  'customer.updated',
  'customer.deleted',
  'product.created',
  'product.updated',
  'product.deleted',
  'expense.created',
  'expense.updated',
  'expense.deleted',
  'supplier.created',
  'supplier.updated',
  'supplier.deleted',
  'transaction.created',
  'voucher.created',
  'voucher.deleted',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export async function recordEvent(db: Db, scope: CompanyScope, type: EventType, data: Record<string, unknown>): Promise<string> {
  const id = newId();
  // JSON.stringify, not Prisma's Json mapping: amounts beyond double precision are raw JSON numbers
  // (money.ts), which jsonb keeps exact as numeric.
  await db.$executeRaw`INSERT INTO outbox_events (id, company_id, type, livemode, api_version, data)
    VALUES (${id}::uuid, ${scope.companyId}::uuid, ${type}, ${scope.livemode}, ${API_VERSION}, ${JSON.stringify(data)}::jsonb)`;
  return id;
}
