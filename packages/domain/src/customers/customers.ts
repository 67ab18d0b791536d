// Customers (debitorer): master data for invoicing, with lookup by CVR, Peppol id, e-mail or telephone number.
import type { Db, Customer } from '@tlr/db';
import type { CompanyScope } from '../context.ts';
import { invalidRequest, notFound } from '../errors.ts';
import { normalizeCvr } from '../identifiers/cvr.ts';
import { normalizePeppolId } from '../identifiers/peppol-id.ts';
import { definedOnly, masterData, viewOf } from '../master-data.ts';
import { normaliseEmail, normalisePhone } from './rules.ts';
import { customerSchemas, type CustomerInput, type CustomerUpdate, type CustomerView } from './schema.ts';

const customerView = viewOf(customerSchemas.resource);

function withLookupKeys(input: CustomerUpdate) {
  return definedOnly({
    ...input,
    lookup_email: input.email === undefined ? undefined : normaliseEmail(input.email),
    lookup_phone: input.phone === undefined ? undefined : normalisePhone(input.phone),
  });
}

export const customers = masterData<Customer, CustomerView, CustomerInput, CustomerUpdate>({
  noun: 'customer',
  delegate: (db) => db.customer,
  toRow: withLookupKeys,
  toPatch: withLookupKeys,
  view: customerView,
  list: {
    sort: { name: 'name', created_at: 'created_at', email: 'email' },
    defaultSort: 'name',
    search: ['name', 'email'],
    dateColumn: 'created_at',
    dateDescription: 'creation date',
  },
});

export interface CustomerLookup {
  cvr?: string | undefined;
  peppol_id?: string | undefined;
  email?: string | undefined;
  phone?: string | undefined;
  /** Any of the four: matches a CVR number, a Peppol id, an e-mail address or a telephone number. */
  q?: string | undefined;
}

/** The oldest live customer matching exactly one given criterion (cvr, peppol_id, email, phone or q). */
export async function lookupCustomer(db: Db, scope: CompanyScope, query: CustomerLookup): Promise<CustomerView> {
  const given = (['cvr', 'peppol_id', 'email', 'phone', 'q'] as const).filter((k) => query[k] !== undefined && query[k] !== '');
  if (given.length !== 1) throw invalidRequest('Give exactly one of the query parameters cvr, peppol_id, email, phone or q.', given[1] ?? 'cvr');
  const key = given[0]!;
  const value = query[key]!.trim();
  const byCvr = { cvr: normalizeCvr(value) };
  const byPeppolId = { peppol_id: normalizePeppolId(value) };
  const byEmail = { lookup_email: normaliseEmail(value) };
  const byPhone = { lookup_phone: normalisePhone(value) };
  const where = {
    cvr: byCvr,
    peppol_id: byPeppolId,
    email: byEmail,
    phone: byPhone,
    q: { OR: [byCvr, byPeppolId, byEmail, ...(byPhone.lookup_phone ? [byPhone] : [])] },
  }[key];
  if (key === 'phone' && !byPhone.lookup_phone) throw invalidRequest('The phone parameter has no digits.', 'phone');
  const row = await db.customer.findFirst({
    where: { company_id: scope.companyId, deleted_at: null, ...where },
    orderBy: [{ created_at: 'asc' }, { id: 'asc' }],
  });
  if (!row) throw notFound(`customer with that ${key === 'q' ? 'CVR, Peppol id, e-mail or telephone number' : key}`);
  return customerView(row);
}
