// Receiving e-invoices: POST /einvoices/inbound and the transport's inbox folder both come here. A
// document is first read and checked against the official rules (prepareInbound, outside any
// transaction: the rules take ~100 ms of CPU), then imported in the caller's one transaction
// (importEinvoice): its XML and embedded attachments become vouchers, its supplier is found or made,
// and a draft expense carries it, with the message that records the document. A refusal stores nothing.
import type { Db, InTransaction, Prisma } from '@tlr/db';
import { fromDate, toDate } from '../calendar.ts';
import type { CompanyScope } from '../context.ts';
import { DomainError, invalidRequest, notFound } from '../errors.ts';
import { createExpense } from '../expenses/create-expense.ts';
import { expenseCreate } from '../expenses/schema.ts';
import { newId } from '../ids.ts';
import { checkPeppolId, normalizePeppolId } from '../identifiers/peppol-id.ts';
import { isEuCountry } from '../identifiers/vat-number.ts';
import { listPage, type ListDelegate, type ListParams, type ListSpec, type Page } from '../lists/list.ts';
import { DEFAULT_ACCOUNTS } from '../ledger/default-accounts.ts';
import { Decimal, roundOere } from '../money.ts';
import { supplierSchemas } from '../suppliers/schema.ts';
import { suppliers } from '../suppliers/suppliers.ts';
import { checkFilename, checkMimeType, DEFAULT_MIME_TYPE } from '../vouchers/rules.ts';
import { stageBytes, uploadVoucher, type VoucherStore } from '../vouchers/vouchers.ts';
import { queueInvoiceResponse } from './invoice-responses.ts';
import { parseEinvoice, type InboundDocument, type InboundParty } from './parse.ts';
import type { EinvoiceDirection, EinvoiceMessageView, EinvoiceStatus } from './schema.ts';
import { validateEinvoice, type RuleFailure, type RuleSet } from './validate.ts';
import { einvoiceMessageView, type EinvoiceMessageHead } from './views.ts';

/** A received document that has passed the rules, ready to import. */
export interface PreparedInbound {
  xml: string;
  /** A Factur-X / ZUGFeRD PDF the XML was taken from: kept as the expense's voucher. */
  pdf?: Uint8Array | undefined;
  document: InboundDocument;
  /** The rules' warnings (not fatal): kept with the message. */
  warnings: RuleFailure[];
}

/** The official rules a document is checked under, by its format and kind. */
function ruleSetOf(d: InboundDocument): RuleSet {
  if (d.format === 'peppol-bis3') return 'peppol';
  if (d.format === 'en16931-ubl') return 'cen-ubl';
  if (d.format === 'en16931-cii') return 'cen-cii';
  return d.kind === 'credit_note' ? 'oioubl-credit-note' : 'oioubl-invoice';
}

const RULES_NAMED: Record<RuleSet, string> = {
  peppol: 'CEN EN 16931 and Peppol BIS Billing 3.0',
  'cen-ubl': 'CEN EN 16931 (UBL)',
  'cen-cii': 'CEN EN 16931 (CII)',
  'oioubl-invoice': 'OIOUBL 2.1 (schematron 1.17.2)',
  'oioubl-credit-note': 'OIOUBL 2.1 (schematron 1.17.2)',
  'oioubl-application-response': 'OIOUBL 2.1 (schematron 1.17.2)',
};

/**
 * Reads and checks a received document: hostile or malformed XML, another root or namespace (400
 * invalid_request, parse.ts), then the official rules of its format (Peppol BIS 3: CEN EN 16931 and
 * Peppol; OIOUBL: the OIOUBL schematron 1.17.2), and on an OIOUBL document the amounts' decimals and
 * currency as Peppol's rules check them: any fatal failure (an OIOUBL `<Error>`) is 400
 * einvoice_invalid listing every one.
 */
export async function prepareInbound(xml: string, pdf?: Uint8Array, opts: { long?: boolean } = {}): Promise<PreparedInbound> {
  const document = parseEinvoice(xml);
  const set = ruleSetOf(document);
  // A long document (decision 491) is checked in the pool's lane for long documents, with its longer bound.
  const official = await validateEinvoice(xml, set, opts);
  // The official rules check a Peppol document's amounts themselves (UBL-DT-01, PEPPOL-EN16931-R051); an
  // OIOUBL document gets the same checks from the reading.
  const fatal = [...(set === 'peppol' ? [] : document.amountFailures), ...official.fatal];
  if (fatal.length) {
    const ids = [...new Set(fatal.map((f) => f.id))];
    throw new DomainError(
      'einvoice_invalid',
      `The document breaks ${fatal.length === 1 ? 'a rule' : `${fatal.length} rules`} of ${RULES_NAMED[set]}: ${ids.join(', ')}. ${fatal[0]!.id}: ${fatal[0]!.text}`.slice(
        0,
        2000,
      ),
      'body',
      { failures: fatal.map((f) => ({ id: f.id, text: f.text, location: f.location })) },
    );
  }
  return { xml, document, warnings: official.warnings, ...(pdf ? { pdf } : {}) };
}

// ---------------------------------------------------------------------------------------------------
// The supplier

const ifValid = <K extends keyof typeof supplierSchemas.create.shape>(field: K, value: string) => {
  if (!value) return undefined;
  const parsed = supplierSchemas.create.shape[field].safeParse(value);
  return parsed.success ? (parsed.data as string) : undefined;
};

/**
 * The supplier of a document: the company's live supplier with its Peppol id, else with its CVR, else
 * with its VAT number. By its name (case-insensitive) only when the document names none of these (none
 * that a supplier can hold: an id that fails its check, as in several official examples, is no
 * identifier), and then only a supplier without any identifier: a supplier is never merged with one
 * that another identifier names (a foreign seller is not the Danish supplier of the same name).
 * Otherwise a new one, with what the document says of it that passes the suppliers' own field rules.
 */
async function supplierOf(db: Db, scope: CompanyScope, p: InboundParty): Promise<{ id: string; name: string }> {
  const live = { company_id: scope.companyId, deleted_at: null };
  const peppolId = p.endpoint && !checkPeppolId(p.endpoint) ? normalizePeppolId(p.endpoint) : '';
  const cvr = ifValid('cvr', p.cvr) ?? '';
  const vatNumber = ifValid('vat_number', p.vatNumber) ?? '';
  const select = { id: true, name: true } as const;
  const first = (where: Prisma.SupplierWhereInput) => db.supplier.findFirst({ where: { ...live, ...where }, select, orderBy: { created_at: 'asc' } });
  const found =
    (peppolId && (await first({ peppol_id: peppolId }))) ||
    (cvr && (await first({ cvr }))) ||
    (vatNumber && (await first({ vat_number: vatNumber }))) ||
    (!peppolId && !cvr && !vatNumber && p.name ? await first({ name: { equals: p.name, mode: 'insensitive' }, peppol_id: '', cvr: '', vat_number: '' }) : null);
  if (found) return found;
  const name = ifValid('name', p.name.slice(0, 200)) ?? (peppolId ? `Peppol ${peppolId}` : 'Ukendt leverandør');
  const created = await suppliers.create(db, scope, {
    name,
    ...(peppolId ? { peppol_id: peppolId } : {}),
    ...(cvr ? { cvr } : {}),
    ...(vatNumber ? { vat_number: vatNumber } : {}),
    ...(ifValid('country', p.country) ? { country: ifValid('country', p.country) } : {}),
  });
  return { id: created.id, name: created.name };
}

// ---------------------------------------------------------------------------------------------------
// The expense

/**
 * The VAT treatment of a received document (the draft's, for a person to check before booking):
 *   VAT charged by a Danish supplier: K25, its VAT as the document states it (mixed rates included);
 *   VAT charged by a foreign supplier: KDELVIS with 0 % deductible, as foreign VAT is no Danish input
 *     VAT (it may be reclaimed abroad): the amount stays whole, the VAT a cost;
 *   no VAT, reverse charge: K (intra-community goods) EUV; AE from the EU EUY, from Denmark KOMV
 *     (§ 46), from elsewhere UY; G (export from a non-EU supplier) UY; E, Z, O: K0.
 */
export function inboundTreatment(d: Pick<InboundDocument, 'vat' | 'breakdown' | 'supplier'>): { code: string; deductible?: number } {
  const danish = d.supplier.country === 'DK' || (!d.supplier.country && (d.supplier.cvr !== '' || d.supplier.vatNumber.startsWith('DK')));
  if (!d.vat.isZero()) return danish ? { code: 'K25' } : { code: 'KDELVIS', deductible: 0 };
  const categories = new Set(d.breakdown.map((b) => b.category));
  if (categories.has('K')) return { code: 'EUV' };
  if (categories.has('AE')) return { code: danish ? 'KOMV' : isEuCountry(d.supplier.country) ? 'EUY' : 'UY' };
  if (categories.has('G')) return { code: 'UY' };
  return { code: 'K0' };
}

/**
 * The draft expense's account, as expenses have one: the account proposed for the largest part of the
 * document's lines (by the sum of their amounts, either sign); the default expense account without lines.
 */
export function expenseAccountOf(lines: readonly Pick<StoredLine, 'account_number' | 'net_amount'>[]): string {
  const share = new Map<string, Decimal>();
  for (const l of lines) share.set(l.account_number, (share.get(l.account_number) ?? new Decimal(0)).plus(new Decimal(l.net_amount).abs()));
  let best: [string, Decimal] | undefined;
  for (const entry of share) if (!best || entry[1].greaterThan(best[1])) best = entry;
  return best?.[0] ?? DEFAULT_ACCOUNTS.expense;
}

/** The draft expense's body, checked by the expenses' own schema: a field it refuses names the document's. */
function expenseBody(d: InboundDocument, supplierId: string, voucherId: string, accountNumber: string) {
  // A credit note credits: its positive amounts are a negative expense.
  const sign = d.kind === 'credit_note' ? -1 : 1;
  const t = inboundTreatment(d);
  // What was paid before, as the document states it (PrepaidAmount): never the payable amount's rounding.
  const prepaid = d.prepaid;
  const body = {
    supplier_id: supplierId,
    voucher_id: voucherId,
    date: d.issueDate,
    due_date: d.dueDate >= d.issueDate ? d.dueDate : d.issueDate,
    description:
      `${d.kind === 'credit_note' ? 'Kreditnota' : 'Faktura'} ${d.number} fra ${d.supplier.name || 'leverandør'}${prepaid.isZero() ? '' : ` (forudbetalt ${prepaid.toFixed(2)} ${d.currency})`}`.slice(
        0,
        500,
      ),
    amount: roundOere(d.gross.times(sign)).toFixed(2),
    // A bill without VAT takes its code's default: none under K0, the buyer's own under reverse charge.
    ...(d.vat.isZero() ? {} : { vat_amount: roundOere(d.vat.times(sign)).toFixed(2) }),
    vat_code: t.code,
    account_number: accountNumber,
    ...(t.deductible === undefined ? {} : { vat_deductible_percent: t.deductible }),
    currency: d.currency,
  };
  const parsed = expenseCreate.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw invalidRequest(`The document's ${issue.path.join('.')} cannot make an expense: ${issue.message}.`, 'body');
  }
  return parsed.data;
}

// ---------------------------------------------------------------------------------------------------
// The lines, each with the account proposed for it

/** Where a line's proposed account comes from, first that applies. */
export const ACCOUNT_SOURCES = ['supplier_item', 'supplier_default', 'vat_category'] as const;
export type AccountSource = (typeof ACCOUNT_SOURCES)[number];

/** A line as the message stores it (jsonb) and the API shows it: amounts as decimal text in the document's currency. */
export interface StoredLine {
  id: string;
  description: string;
  item_id: string;
  /** What "the same item" of this supplier is: its seller's item id, else its description (case-folded). */
  item_key: string;
  quantity: string;
  unit: string;
  price: string | null;
  net_amount: string;
  allowances: { charge: boolean; amount: string; reason: string }[];
  vat_category: string;
  vat_rate: string | null;
  vat_amount: string | null;
  account_number: string;
  account_source: AccountSource;
}

const itemKey = (l: InboundDocument['lines'][number]) => (l.itemId ? `id:${l.itemId}` : `name:${l.description.trim().toLowerCase()}`);

/**
 * The account each line is proposed to: the account this supplier's same item was last booked to (the
 * booked expense of the latest earlier document of the supplier with a line of that item); else the
 * supplier's default account (its `default_account_number`); else the default for the line's VAT
 * category (ledger/default-accounts.ts's expense account: every category's purchases cost there until a
 * person picks another). Only an active expense account is proposed: one deactivated since is passed over.
 */
async function proposeAccounts(db: Db, scope: CompanyScope, supplierId: string, d: InboundDocument): Promise<StoredLine[]> {
  const keys = [...new Set(d.lines.map(itemKey))];
  const byItem = new Map<string, string>();
  if (keys.length) {
    const rows = await db.$queryRaw<{ item_key: string; account_number: string }[]>`
      SELECT DISTINCT ON (l.item_key) l.item_key, a.account_number
      FROM einvoice_messages m
      JOIN expenses e ON e.id = m.expense_id AND e.status IN ('booked', 'paid')
      JOIN accounts a ON a.id = e.account_id AND a.active AND a.type = 'expense'
      CROSS JOIN LATERAL jsonb_to_recordset(m.lines) AS l(item_key text)
      WHERE m.company_id = ${scope.companyId}::uuid AND m.supplier_id = ${supplierId}::uuid AND m.direction = 'inbound'
        AND l.item_key = ANY(${keys}::text[])
      ORDER BY l.item_key, e.date DESC, m.created_at DESC`;
    for (const r of rows) byItem.set(r.item_key, r.account_number);
  }
  const [supplierDefault] = await db.$queryRaw<{ account_number: string }[]>`
    SELECT a.account_number FROM suppliers s
    JOIN accounts a ON a.company_id = s.company_id AND a.account_number = s.default_account_number AND a.active AND a.type = 'expense'
    WHERE s.id = ${supplierId}::uuid AND s.company_id = ${scope.companyId}::uuid`;
  const text = (v: Decimal | null) => (v === null ? null : v.toString());
  return d.lines.map((l) => {
    const key = itemKey(l);
    const item = byItem.get(key);
    const [account_number, account_source]: [string, AccountSource] = item
      ? [item, 'supplier_item']
      : supplierDefault
        ? [supplierDefault.account_number, 'supplier_default']
        : [DEFAULT_ACCOUNTS.expense, 'vat_category'];
    return {
      id: l.id,
      description: l.description,
      item_id: l.itemId,
      item_key: key,
      quantity: l.quantity.toString(),
      unit: l.unit,
      price: text(l.price),
      net_amount: l.net.toFixed(2),
      allowances: l.allowances.map((a) => ({ charge: a.charge, amount: a.amount.toFixed(2), reason: a.reason })),
      vat_category: l.vatCategory,
      vat_rate: text(l.vatRate),
      vat_amount: l.vat === null ? null : l.vat.toFixed(2),
      account_number,
      account_source,
    };
  });
}

// ---------------------------------------------------------------------------------------------------
// The import

/** A file name a voucher takes: the document's own when the vouchers' rule allows it. */
const fileName = (wanted: string, fallback: string) => (wanted && !checkFilename(wanted) ? wanted : fallback);

async function storeVoucher(db: Db, outside: Db, store: VoucherStore, scope: CompanyScope, bytes: Uint8Array, filename: string, mimeType: string) {
  const content = await stageBytes(bytes);
  try {
    return await uploadVoucher(db, outside, store, scope, { filename, mime_type: checkMimeType(mimeType) ? DEFAULT_MIME_TYPE : mimeType, content });
  } finally {
    await content.discard();
  }
}

/**
 * Imports a prepared document into the company, in the caller's transaction: one import per company
 * at a time (a transaction-scoped advisory lock), so that two documents of a new supplier make one
 * supplier and the same document twice makes one import; the second is 409 einvoice_duplicate naming
 * the first. `outside` commits on its own (the vouchers' storage intents).
 */
export async function importEinvoice(db: Db, outside: Db, store: VoucherStore, scope: CompanyScope, p: PreparedInbound): Promise<EinvoiceMessageView> {
  const d = p.document;
  await db.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`einvoice-inbound:${scope.companyId}`}, 0))`;
  const supplier = await supplierOf(db, scope, d.supplier);
  const first = await db.einvoiceMessage.findFirst({
    where: { company_id: scope.companyId, direction: 'inbound', supplier_id: supplier.id, document_kind: d.kind, document_number: d.number },
  });
  if (first) {
    throw new DomainError(
      'einvoice_duplicate',
      `${d.kind === 'credit_note' ? 'Credit note' : 'Invoice'} ${d.number} from ${supplier.name} was imported on ${first.created_at.toISOString()} as e-invoice ${first.id} (expense ${first.expense_id ?? 'deleted'}); it is not imported twice.`,
      undefined,
      { message_id: first.id, imported_at: first.created_at.toISOString(), ...(first.expense_id ? { expense_id: first.expense_id } : {}) },
    );
  }
  const base = fileName(`${d.kind === 'credit_note' ? 'kreditnota' : 'faktura'}-${d.number}`.replace(/[^\p{L}\p{N}._-]+/gu, '_').slice(0, 200), 'e-faktura');
  const xmlVoucher = await storeVoucher(db, outside, store, scope, Buffer.from(p.xml, 'utf8'), `${base}.xml`, 'application/xml');
  const attachments: string[] = [];
  // A Factur-X / ZUGFeRD PDF is the voucher the expense carries (what a person reads); its XML is kept beside it.
  let voucher = xmlVoucher;
  if (p.pdf) {
    voucher = await storeVoucher(db, outside, store, scope, p.pdf, `${base}.pdf`, 'application/pdf');
    attachments.push(xmlVoucher.id);
  }
  for (const [i, a] of d.attachments.entries()) {
    if (!a.content.length) continue;
    const v = await storeVoucher(db, outside, store, scope, a.content, fileName(a.filename, `${base}-bilag-${i + 1}`), a.mimeType);
    attachments.push(v.id);
  }
  // The VAT is the document's, which its official rules accepted: tlr's own cap only warns (decision 633).
  const warnings = p.warnings.map((w) => ({ id: w.id, text: w.text }));
  const lines = await proposeAccounts(db, scope, supplier.id, d);
  const expense = await createExpense(db, scope, expenseBody(d, supplier.id, voucher.id, expenseAccountOf(lines)), (why) =>
    warnings.push({ id: 'TLR-VAT-RATE', text: why }),
  );
  const row = await db.einvoiceMessage.create({
    data: {
      id: newId(),
      company_id: scope.companyId,
      direction: 'inbound',
      document_kind: d.kind,
      document_format: d.format,
      document_number: d.number,
      document_uuid: d.uuid,
      channel: 'peppol',
      receiver_peppol_id: d.buyer.endpoint,
      sender_peppol_id: d.supplier.endpoint,
      counterpart_name: d.supplier.name,
      supplier_id: supplier.id,
      expense_id: expense.id,
      voucher_id: voucher.id,
      attachment_voucher_ids: attachments,
      issue_date: toDate(d.issueDate),
      currency: d.currency,
      net_amount: d.net.toFixed(2),
      vat_amount: d.vat.toFixed(2),
      total_amount: d.gross.toFixed(2),
      payable_amount: d.payable.toFixed(2),
      status: 'received' satisfies EinvoiceStatus,
      last_response: warnings.length ? { source: 'validation', warnings } : undefined,
      lines: lines as unknown as Prisma.InputJsonValue,
      payment_means: d.paymentMeans.map((m) => ({
        code: m.code,
        due_date: m.dueDate,
        card_type: m.cardType,
        payment_id: m.paymentId,
        creditor: m.creditor,
        fi_line: m.fiLine,
        account: m.account,
        branch: m.branch,
      })),
      other_taxes: d.taxes.map((t) => ({ scheme: t.scheme, name: t.name, amount: t.amount.toFixed(2) })),
      document_xml: p.xml,
    },
  });
  // The sender hears that the document arrived, through the transport it came by.
  await queueInvoiceResponse(db, scope, row, 'received');
  return einvoiceMessageView(row);
}

/**
 * A PDF that carries no e-invoice (no Factur-X / ZUGFeRD XML): stored as a voucher of the company, for a
 * person to key in; nothing is read from it and no expense is made. Answers the voucher's id.
 */
export async function storePdfWithoutInvoice(db: Db, outside: Db, store: VoucherStore, scope: CompanyScope, pdf: Uint8Array): Promise<string> {
  return (await storeVoucher(db, outside, store, scope, pdf, 'e-faktura.pdf', 'application/pdf')).id;
}

// ---------------------------------------------------------------------------------------------------
// Reading messages: GET /einvoices, /einvoices/{id}, /einvoices/{id}/xml

export const EINVOICE_LIST = {
  sort: { created_at: 'created_at', issue_date: 'issue_date', document_number: 'document_number' },
  defaultSort: 'created_at',
  search: ['document_number', 'counterpart_name', 'receiver_peppol_id', 'sender_peppol_id'],
  dateColumn: 'created_at',
  dateDescription: 'date the message was made (queued or received)',
  // No status filter: the contract keeps `status` to invoices, expenses and vouchers (direction filters instead).
} satisfies ListSpec;

/** Every column but the document, which a list never reads. */
const WITHOUT_XML = { omit: { document_xml: true } } as const;

export async function listEinvoices(
  db: Db,
  scope: CompanyScope,
  params: ListParams & { direction?: EinvoiceDirection | undefined },
): Promise<Page<EinvoiceMessageView>> {
  const delegate: ListDelegate<EinvoiceMessageHead> = {
    findMany: (args) => db.einvoiceMessage.findMany({ ...args, ...WITHOUT_XML }),
    count: (args) => db.einvoiceMessage.count(args),
  };
  return listPage(
    delegate,
    { company_id: scope.companyId, ...(params.direction ? { direction: params.direction } : {}) },
    params,
    EINVOICE_LIST,
    einvoiceMessageView,
  );
}

export async function getEinvoice(db: Db, scope: CompanyScope, id: string): Promise<EinvoiceMessageView> {
  const row = await db.einvoiceMessage.findFirst({ where: { id, company_id: scope.companyId }, ...WITHOUT_XML });
  if (!row) throw notFound('e-invoice', id);
  return einvoiceMessageView(row);
}

/** The document as it was sent or received, byte for byte as stored. */
export async function einvoiceXml(db: Db, scope: CompanyScope, id: string): Promise<{ xml: string; filename: string }> {
  const row = await db.einvoiceMessage.findFirst({
    where: { id, company_id: scope.companyId },
    select: { document_xml: true, document_number: true, document_kind: true, issue_date: true },
  });
  if (!row) throw notFound('e-invoice', id);
  // ASCII only: the name goes into a plain Content-Disposition filename (a supplier's number may be anything).
  const prefix = { credit_note: 'kreditnota', application_response: 'svar' }[row.document_kind] ?? 'faktura';
  const stem = `${prefix}-${row.document_number}`.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 150);
  return { xml: row.document_xml, filename: `${stem}${row.issue_date ? `-${fromDate(row.issue_date)}` : ''}.xml` };
}

// ---------------------------------------------------------------------------------------------------
// The transport's inbox: documents the access point received for a company here

/**
 * Imports a document the access point left in the inbox into the live company its buyer's endpoint
 * names (the company's own peppol_id, or 0184:<its CVR> when it has none, as it sends by: decision 206).
 * Sandboxes receive nothing from the network. Answers the message id; throws, with a reason for the
 * log, a document that fails the rules or names no company here. One imported already (a worker died
 * between the commit and moving the file, or two workers read it at once) is answered as imported.
 */
export async function importFromInbox(run: InTransaction, pool: Db, store: VoucherStore, xml: string): Promise<string> {
  const prepared = await prepareInbound(xml);
  const buyer = prepared.document.buyer.endpoint;
  const peppolId = buyer && !checkPeppolId(buyer) ? normalizePeppolId(buyer) : '';
  if (!peppolId) throw invalidRequest(`the buyer's endpoint "${buyer}" is no Peppol id this service can address`);
  const cvr = peppolId.startsWith('0184:') ? peppolId.slice(5) : '';
  const companies = await pool.$queryRaw<{ id: string }[]>`
    SELECT id FROM companies WHERE sandbox_of_id IS NULL AND (peppol_id = ${peppolId} OR (peppol_id = '' AND ${cvr} <> '' AND cvr = ${cvr}))`;
  if (companies.length !== 1) {
    throw invalidRequest(`${companies.length ? 'several companies' : 'no company'} here ${companies.length ? 'have' : 'has'} the Peppol id ${peppolId}`);
  }
  const scope: CompanyScope = { companyId: companies[0]!.id, livemode: true };
  try {
    return (await run((tx) => importEinvoice(tx, pool, store, scope, prepared))).id;
  } catch (e) {
    if (e instanceof DomainError && e.code === 'einvoice_duplicate' && e.extensions.message_id) return e.extensions.message_id;
    throw e;
  }
}
