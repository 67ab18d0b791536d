// The returns as filed (vat_returns, one row per settlement, immutable: a correction is the next version)
// and the return as the API answers it, filed or as the books stand.
import type { z } from 'zod';
import type { Prisma, Db } from '@tlr/db';
import type { CompanyScope } from '../context.ts';
import { today } from '../calendar.ts';
import { Decimal, amountToJson } from '../money.ts';
import { VAT_RETURN_FIELDS, type ReturnFigures, type VatReturnField } from './codes.ts';
import { filingDeadline, type VatPeriod } from './periods.ts';
import { registrationView } from '../trail/actor.ts';
import type { vatReturnResource } from './schema.ts';

/** The return as the API answers it (vat/schema.ts). */
export type VatReturnView = z.input<typeof vatReturnResource>;
export type FiledVersion = VatReturnView['versions'][number];

export type ReturnRow = Prisma.VatReturnGetPayload<object>;

const asJson = (values: Record<VatReturnField, Decimal>, whole: boolean) =>
  Object.fromEntries(VAT_RETURN_FIELDS.map((f) => [f, whole ? values[f].toNumber() : amountToJson(values[f])])) as Record<VatReturnField, number>;
export const fromJson = (stored: Prisma.JsonValue) =>
  Object.fromEntries(VAT_RETURN_FIELDS.map((f) => [f, new Decimal(String((stored as Record<string, string>)[f] ?? '0'))])) as Record<VatReturnField, Decimal>;
export const toStored = (values: Record<VatReturnField, Decimal>) => Object.fromEntries(VAT_RETURN_FIELDS.map((f) => [f, values[f].toFixed(2)]));

export function returnView(p: VatPeriod, current: ReturnFigures, filed: ReturnRow | undefined): Omit<VatReturnView, 'versions' | 'filing'> {
  const exact = filed ? fromJson(filed.exact) : current.exact;
  return {
    period: p.period,
    frequency: p.frequency,
    start_date: p.start,
    end_date: p.end,
    deadline: filingDeadline(p),
    period_ended: p.end < today(),
    status: filed ? 'settled' : 'open',
    version: filed?.version ?? null,
    settled_at: filed?.settled_at.toISOString() ?? null,
    transaction_id: filed?.transaction_id ?? null,
    fields: filed ? asJson(fromJson(filed.fields), true) : asJson(current.kroner, true),
    exact_fields: asJson(exact, false),
    changed_since_settlement: filed ? VAT_RETURN_FIELDS.some((f) => !exact[f].equals(current.exact[f])) : false,
  };
}

export async function latestFiled(db: Db, scope: CompanyScope, period: string): Promise<ReturnRow | undefined> {
  return (await db.vatReturn.findFirst({ where: { company_id: scope.companyId, period }, orderBy: { version: 'desc' } })) ?? undefined;
}

/** The filed versions of a period, oldest first: what each settlement filed, never changed. */
export async function filedVersions(db: Db, scope: CompanyScope, period: string): Promise<FiledVersion[]> {
  const rows = await db.vatReturn.findMany({ where: { company_id: scope.companyId, period }, orderBy: { version: 'asc' } });
  return rows.map((r) => ({
    version: r.version,
    settled_at: r.settled_at.toISOString(),
    ...registrationView(r),
    transaction_id: r.transaction_id,
    fields: asJson(fromJson(r.fields), true),
    exact_fields: asJson(fromJson(r.exact), false),
  }));
}
