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
import { Decimal, roundOere, shareOut, sumAmounts } from '../money.ts';
import { learnedItemAccounts } from '../expenses/lines.ts';
import { mainAccountOf, vatCategoryAccount, type AccountSource, type ExpenseLineKind, type NewExpenseLine } from '../expenses/line-rules.ts';
import { REVERSE_CHARGE_CODES } from '../expenses/expense-rows.ts';
import { groupVat } from '../vat/arithmetic.ts';
import { vatCodesOf } from '../vat/treatments.ts';
import { supplierSchemas } from '../suppliers/schema.ts';
import { suppliers } from '../suppliers/suppliers.ts';
import { checkFilename, checkMimeType, DEFAULT_MIME_TYPE } from '../vouchers/rules.ts';
import { stageBytes, uploadVouchers, type StagedContent, type VoucherStore } from '../vouchers/vouchers.ts';
import { queueInvoiceResponse } from './invoice-responses.ts';
import { parseEinvoiceYielding, type InboundDocument, type InboundParty } from './parse.ts';
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
  'oioubl-reminder': 'OIOUBL 2.1 (schematron 1.17.2)',
};

/**
 * Reads and checks a received document: hostile or malformed XML, another root or namespace (400
 * invalid_request, parse.ts), then the official rules of its format (Peppol BIS 3: CEN EN 16931 and
 * Peppol; OIOUBL: the OIOUBL schematron 1.17.2), and on an OIOUBL document the amounts' decimals and
 * currency as Peppol's rules check them: any fatal failure (an OIOUBL `<Error>`) is 400
 * einvoice_invalid listing every one.
 */
export async function prepareInbound(xml: string, pdf?: Uint8Array, opts: { long?: boolean } = {}): Promise<PreparedInbound> {
  // Read a slice at a time (decision 687): a 10,000-line document held the event loop for 0.6 s (3–4.5 s under load).
  const document = await parseEinvoiceYielding(xml);
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

/** The draft expense's body, checked by the expenses' own schema: a field it refuses names the document's. */
function expenseBody(d: InboundDocument, supplierId: string, voucherId: string, accountNumber: string, buyersVat: Decimal | undefined) {
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
    ...(d.vat.isZero() ? (buyersVat ? { vat_amount: buyersVat.toFixed(2) } : {}) : { vat_amount: roundOere(d.vat.times(sign)).toFixed(2) }),
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

export { ACCOUNT_SOURCES, type AccountSource } from '../expenses/line-rules.ts';

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

/** What "the same item" of a supplier is: its seller's item id, else its description (case-folded); a document's allowance, charge or duty by its reason or name. */
const itemKey = (l: InboundDocument['lines'][number]) => (l.itemId ? `id:${l.itemId}` : `name:${l.description.trim().toLowerCase()}`);

/**
 * A line of the document as the expense takes it, before its account (decision 681): each of its lines;
 * each allowance and charge on the document as a whole (not on a line), a line of its own deducted or
 * added; each tax other than VAT (an excise duty), a line of its own as part of the cost. Amounts as the
 * document states them (a credit note's positive; signed by expenseLines).
 */
interface DocumentLine {
  kind: ExpenseLineKind;
  /** The document's line, for the message's own record of its lines; null for the others. */
  line: InboundDocument['lines'][number] | null;
  description: string;
  itemKey: string;
  net: Decimal;
  vatCategory: string;
  vatRate: Decimal | null;
}

function documentLines(d: InboundDocument): DocumentLine[] {
  const byName = (prefix: string, name: string) => `${prefix}:${name.trim().toLowerCase()}`;
  return [
    ...d.lines.map((l) => ({
      kind: 'item' as const,
      line: l,
      description: l.description,
      itemKey: itemKey(l),
      net: l.net,
      vatCategory: l.vatCategory,
      vatRate: l.vatRate,
    })),
    ...d.allowanceCharges.map((a) => {
      const kind = a.charge ? ('charge' as const) : ('allowance' as const);
      const description = a.reason || (a.charge ? 'Gebyr' : 'Rabat');
      return {
        kind,
        line: null,
        description,
        itemKey: byName(kind, description),
        net: a.charge ? a.amount : a.amount.negated(),
        vatCategory: a.vatCategory,
        vatRate: a.vatRate,
      };
    }),
    ...d.taxes.map((t) => {
      const description = t.name || t.scheme || 'Afgift';
      return {
        kind: 'duty' as const,
        line: null,
        description,
        itemKey: byName('duty', t.scheme || description),
        net: t.amount,
        vatCategory: '',
        vatRate: null,
      };
    }),
  ];
}

/** Categories under which a line carries no VAT of the supplier's (zero-rated, exempt, reverse charge, outside the scope). */
const NO_VAT_CATEGORIES = new Set(['Z', 'E', 'O', 'AE', 'K', 'G']);

/**
 * The account each line is proposed to (decision 682): the account this supplier's same item was last
 * booked to (supplier_item_accounts, which booking writes); else the supplier's default account (its
 * `default_account_number`); else the default for the line's VAT category (ledger/default-accounts.ts's
 * expense account: every category's purchases cost there until a person picks another). Only an active
 * expense account is proposed: one deactivated since is passed over.
 */
async function proposeAccounts(db: Db, scope: CompanyScope, supplierId: string, lines: readonly DocumentLine[]): Promise<[string, AccountSource][]> {
  const learned = await learnedItemAccounts(db, scope, supplierId, [...new Set(lines.map((l) => l.itemKey))]);
  const [supplierDefault] = await db.$queryRaw<{ account_number: string }[]>`
    SELECT a.account_number FROM suppliers s
    JOIN accounts a ON a.company_id = s.company_id AND a.account_number = s.default_account_number AND a.active AND a.type = 'expense'
    WHERE s.id = ${supplierId}::uuid AND s.company_id = ${scope.companyId}::uuid`;
  return lines.map((l) => {
    const item = learned.get(l.itemKey);
    if (item) return [item, 'supplier_item'];
    if (supplierDefault) return [supplierDefault.account_number, 'supplier_default'];
    return [vatCategoryAccount(l.vatCategory), 'vat_category'];
  });
}

/** The message's own record of the document's lines, each with the account proposed for it. */
function storedLines(lines: readonly DocumentLine[], proposals: readonly [string, AccountSource][]): StoredLine[] {
  const text = (v: Decimal | null) => (v === null ? null : v.toString());
  return lines.flatMap((dl, i) => {
    const l = dl.line;
    if (!l) return [];
    const [account_number, account_source] = proposals[i]!;
    return [
      {
        id: l.id,
        description: l.description,
        item_id: l.itemId,
        item_key: dl.itemKey,
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
      },
    ];
  });
}

/**
 * The draft expense's lines (decision 681), signed as the expense (a credit note's negative):
 *   VAT code: a line charged VAT takes the document's code (K25, or KDELVIS for foreign VAT); one
 *     charged none, in a document with VAT, K0; in a document without VAT, the code its own category
 *     gives (inboundTreatment: EUV, EUY, KOMV, UY, K0);
 *   VAT: the document's own, per VAT group (category and rate of its breakdown): the lines' stated VAT
 *     when they state it and it adds up, else the group's VAT shared over its lines by their net amounts;
 *     under reverse charge none here (the expense's, the buyer's own, is shared out when it is made);
 *   a last line `difference` (no VAT) when the document's total says more than its lines and VAT (a
 *     sender's rounding, amounts of more than two decimals), so that the lines always add up to the expense.
 */
function expenseLines(d: InboundDocument, lines: readonly DocumentLine[], proposals: readonly [string, AccountSource][], code: string): NewExpenseLine[] {
  const sign = d.kind === 'credit_note' ? -1 : 1;
  const zero = new Decimal(0);
  const charged = (l: DocumentLine) => (l.vatRate ? l.vatRate.greaterThan(0) : !NO_VAT_CATEGORIES.has(l.vatCategory) && l.kind !== 'duty');
  const withVat = !d.vat.isZero();
  const codeOf = (l: DocumentLine) => {
    if (withVat) return charged(l) ? code : 'K0';
    if (l.kind === 'duty') return 'K0';
    return inboundTreatment({ vat: zero, breakdown: [{ category: l.vatCategory, rate: zero, taxable: zero, tax: zero }], supplier: d.supplier }).code;
  };
  const codes = lines.map(codeOf);
  // The document's VAT per group, over the group's lines. Without VAT, the buyer's own under reverse charge
  // is left open (null) on the lines under a reverse-charge code, to be shared out when the expense is made.
  const vat: (Decimal | null)[] = lines.map((_, i) => (withVat || !REVERSE_CHARGE_CODES.has(codes[i]!) ? zero : null));
  if (withVat) {
    const sameRate = (a: Decimal | null, b: Decimal) => (a ?? zero).equals(b);
    for (const b of d.breakdown) {
      const members = lines.map((l, i) => (l.kind !== 'duty' && l.vatCategory === b.category && sameRate(l.vatRate, b.rate) ? i : -1)).filter((i) => i >= 0);
      if (!members.length) continue;
      const stated = members.map((i) => lines[i]!.line?.vat ?? null);
      const shares =
        stated.every((v) => v !== null) && sumAmounts(stated as Decimal[]).equals(b.tax)
          ? (stated as Decimal[])
          : shareOut(
              b.tax,
              members.map((i) => lines[i]!.net),
            );
      members.forEach((i, k) => (vat[i] = vat[i]!.plus(shares[k]!)));
    }
  }
  const made: NewExpenseLine[] = lines.map((l, i) => ({
    kind: l.kind,
    description: l.description,
    item_id: l.line?.itemId ?? '',
    item_key: l.itemKey,
    quantity: l.line?.quantity ?? new Decimal(1),
    unit: l.line?.unit ?? '',
    unit_price: l.line?.price ?? null,
    allowance_amount: roundOere(sumAmounts((l.line?.allowances ?? []).filter((a) => !a.charge).map((a) => a.amount))),
    charge_amount: roundOere(sumAmounts((l.line?.allowances ?? []).filter((a) => a.charge).map((a) => a.amount))),
    net_amount: roundOere(l.net.times(sign)),
    vat_code: codes[i]!,
    vat_rate: l.vatRate,
    vat_amount: vat[i] === null ? null : roundOere(vat[i]!.times(sign)),
    account_number: proposals[i]![0],
    account_source: proposals[i]![1],
  }));
  // What the expense's amount holds beyond the lines' nets and the supplier's VAT (none under reverse charge).
  const beyond = roundOere(d.gross.times(sign))
    .minus(roundOere(d.vat.times(sign)))
    .minus(sumAmounts(made.map((l) => l.net_amount)));
  if (!beyond.isZero()) {
    made.push({
      kind: 'difference',
      description: 'Difference til dokumentets total',
      item_id: '',
      item_key: '',
      quantity: new Decimal(1),
      unit: '',
      unit_price: null,
      allowance_amount: zero,
      charge_amount: zero,
      net_amount: beyond,
      vat_code: 'K0',
      vat_rate: null,
      vat_amount: zero,
      account_number: vatCategoryAccount(''),
      account_source: 'vat_category',
    });
  }
  return made;
}

/**
 * The VAT the buyer computes under reverse charge, when the document's lines mix the reverse-charge code
 * with others (an exempt line beside an EU service): the code's rate on the lines under it alone, not on
 * the whole amount. Undefined otherwise: the expense's own default then applies (expenseVat).
 */
async function reverseChargeVat(db: Db, scope: CompanyScope, lines: readonly NewExpenseLine[], code: string): Promise<Decimal | undefined> {
  if (!REVERSE_CHARGE_CODES.has(code) || lines.every((l) => l.vat_code === code)) return undefined;
  const rate = (await vatCodesOf(db, scope, [code])).get(code)?.rate;
  if (!rate) return undefined;
  return groupVat(sumAmounts(lines.filter((l) => l.vat_code === code).map((l) => l.net_amount)), rate);
}

// ---------------------------------------------------------------------------------------------------
// The import

/** A file name a voucher takes: the document's own when the vouchers' rule allows it. */
const fileName = (wanted: string, fallback: string) => (wanted && !checkFilename(wanted) ? wanted : fallback);

/** A file of the document to keep as a voucher: its bytes, name and type. */
interface DocumentFile {
  bytes: Uint8Array;
  filename: string;
  mimeType: string;
}

/** Stores the document's files as vouchers, in order, in one batch of writes (decision 497). */
async function storeVouchers(db: Db, outside: Db, store: VoucherStore, scope: CompanyScope, files: readonly DocumentFile[]) {
  const staged: StagedContent[] = [];
  try {
    for (const f of files) staged.push(await stageBytes(f.bytes));
    return await uploadVouchers(
      db,
      outside,
      store,
      scope,
      files.map((f, i) => ({ filename: f.filename, mime_type: checkMimeType(f.mimeType) ? DEFAULT_MIME_TYPE : f.mimeType, content: staged[i]! })),
    );
  } finally {
    for (const content of staged) await content.discard();
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
  // A Factur-X / ZUGFeRD PDF is the voucher the expense carries (what a person reads); its XML is kept beside it.
  const [xmlVoucher, ...others] = await storeVouchers(db, outside, store, scope, [
    { bytes: Buffer.from(p.xml, 'utf8'), filename: `${base}.xml`, mimeType: 'application/xml' },
    ...(p.pdf ? [{ bytes: p.pdf, filename: `${base}.pdf`, mimeType: 'application/pdf' }] : []),
    ...d.attachments.flatMap((a, i) =>
      a.content.length ? [{ bytes: a.content, filename: fileName(a.filename, `${base}-bilag-${i + 1}`), mimeType: a.mimeType }] : [],
    ),
  ]);
  const voucher = p.pdf ? others.shift()! : xmlVoucher!;
  const attachments = [...(p.pdf ? [xmlVoucher!.id] : []), ...others.map((v) => v.id)];
  // The VAT is the document's, which its official rules accepted: tlr's own cap only warns (decision 633).
  const warnings = p.warnings.map((w) => ({ id: w.id, text: w.text }));
  // The document's lines, each with the account proposed for it, become the draft's own (decisions 681, 682).
  const documentRows = documentLines(d);
  const proposals = await proposeAccounts(db, scope, supplier.id, documentRows);
  const t = inboundTreatment(d);
  const draftLines = expenseLines(d, documentRows, proposals, t.code);
  const account = mainAccountOf(
    draftLines.map((l) => ({ account: l.account_number, net: l.net_amount })),
    DEFAULT_ACCOUNTS.expense,
  );
  const body = expenseBody(d, supplier.id, voucher.id, account, await reverseChargeVat(db, scope, draftLines, t.code));
  const expense = await createExpense(db, scope, body, (why) => warnings.push({ id: 'TLR-VAT-RATE', text: why }), draftLines);
  const lines = storedLines(documentRows, proposals);
  const created = await db.einvoiceMessage.create({
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
      lines: [],
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
  // The lines as one JSON text (decision 689): Prisma's Json mapping walked a 10,000-line document's
  // in one stretch of the main thread (185–540 ms); JSON.stringify takes a tenth of that.
  await db.$executeRaw`UPDATE einvoice_messages SET lines = ${JSON.stringify(lines)}::jsonb WHERE id = ${created.id}::uuid`;
  const row = { ...created, lines: lines as unknown as Prisma.JsonValue };
  // The sender hears that the document arrived, through the transport it came by.
  await queueInvoiceResponse(db, scope, row, 'received');
  return einvoiceMessageView(row);
}

/**
 * A PDF that carries no e-invoice (no Factur-X / ZUGFeRD XML): stored as a voucher of the company, for a
 * person to key in; nothing is read from it and no expense is made. Answers the voucher's id.
 */
export async function storePdfWithoutInvoice(db: Db, outside: Db, store: VoucherStore, scope: CompanyScope, pdf: Uint8Array): Promise<string> {
  return (await storeVouchers(db, outside, store, scope, [{ bytes: pdf, filename: 'e-faktura.pdf', mimeType: 'application/pdf' }]))[0]!.id;
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
  const prefix = { credit_note: 'kreditnota', application_response: 'svar', reminder: 'rykker' }[row.document_kind] ?? 'faktura';
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
