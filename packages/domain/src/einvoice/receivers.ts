// What a receiver takes: the transport's receiver capabilities, and the format `einvoice_format: auto`
// picks from them. The directory transport reads them from a registry file that the access point keeps
// beside its folders (receivers.json: each receiver's Peppol id and the documents it is registered for,
// as an SMP lists a participant's document types); the http transport reports none. A customer whose
// format is auto gets what its receiver takes: one format when it takes one, OIOUBL for a Danish
// receiver that takes both and Peppol BIS 3 for any other, and nothing (a refusal naming the receiver)
// when it takes neither (decisions 691 to 694).
import { readFile } from 'node:fs/promises';
import { DomainError } from '../errors.ts';
import { normalizePeppolId } from '../identifiers/peppol-id.ts';
import type { EinvoiceFormat } from './schema.ts';

/** The documents tlr sends, as `<format>:<kind>`: what a registry entry may list (a format alone stands for all its kinds). */
export const RECEIVER_DOCUMENTS = [
  'peppol-bis3:invoice',
  'peppol-bis3:credit_note',
  'oioubl-2.1:invoice',
  'oioubl-2.1:credit_note',
  'oioubl-2.1:reminder',
] as const;
export type ReceiverDocument = (typeof RECEIVER_DOCUMENTS)[number];
/** The formats `auto` chooses between. */
type SendFormat = Extract<EinvoiceFormat, 'peppol-bis3' | 'oioubl-2.1'>;
type SentKind = 'invoice' | 'credit_note';

/**
 * The documents `receiver` takes, as the transport knows them: a set (empty for a receiver that a
 * registry does not list: like an SMP, the registry is the access point's knowledge of the network),
 * or null when the transport reports no capabilities at all (no registry file; the http transport).
 */
export type ReceiverDocuments = (receiver: string) => Promise<ReadonlySet<ReceiverDocument> | null>;

/**
 * The registry of the directory transport, a JSON file:
 * `{"receivers": {"0088:5790000436101": ["oioubl-2.1"], "0184:29190925": ["peppol-bis3:invoice", "peppol-bis3:credit_note"]}}`.
 * Each key a Peppol participant id (compared normalised), each value the documents it takes: a format
 * (`peppol-bis3`, `oioubl-2.1`: all its documents) or `<format>:<kind>` (RECEIVER_DOCUMENTS). Read at
 * each lookup, so that the access point may rewrite it (whole, by a rename) at any time.
 */
export function registryFileReceivers(file: string): ReceiverDocuments {
  return async (receiver) => {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw unreadable(file, (e as NodeJS.ErrnoException).code ?? (e as Error).message);
    }
    const registry = parseRegistry(text, file);
    return registry.get(normalizePeppolId(receiver)) ?? new Set();
  };
}

const unreadable = (file: string, why: string) =>
  new DomainError(
    'service_unavailable',
    `The e-invoice access point's receiver registry (${file}) cannot be read: ${why}. Nothing was sent; try again once the operator has fixed it.`,
  );

/** The registry's entries, by normalised Peppol id; a file that is not such a registry is refused whole (503), never half read. */
export function parseRegistry(text: string, file = 'receivers.json'): Map<string, ReadonlySet<ReceiverDocument>> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw unreadable(file, `not JSON (${(e as Error).message})`);
  }
  const receivers = (json as { receivers?: unknown } | null)?.receivers;
  if (!receivers || typeof receivers !== 'object' || Array.isArray(receivers)) throw unreadable(file, 'it has no "receivers" object');
  const map = new Map<string, ReadonlySet<ReceiverDocument>>();
  for (const [id, documents] of Object.entries(receivers)) {
    if (!Array.isArray(documents)) throw unreadable(file, `the documents of ${id} are not a list`);
    const set = new Set<ReceiverDocument>();
    for (const d of documents) {
      const expanded = RECEIVER_DOCUMENTS.filter((known) => known === d || known.startsWith(`${String(d)}:`));
      if (!expanded.length)
        throw unreadable(file, `${id} lists ${JSON.stringify(d)}, which is none of ${['peppol-bis3', 'oioubl-2.1', ...RECEIVER_DOCUMENTS].join(', ')}`);
      for (const x of expanded) set.add(x);
    }
    map.set(normalizePeppolId(id), set);
  }
  return map;
}

let lookup: ReceiverDocuments = async () => null;

/** The transport's receiver capabilities, set by the service as it starts (its transport's); returns the one it replaced. */
export function useReceiverDocuments(documents: ReceiverDocuments | undefined): ReceiverDocuments {
  const replaced = lookup;
  lookup = documents ?? (async () => null);
  return replaced;
}

/** The documents `receiver` takes, as the configured transport knows them (null: it reports none). */
export const receiverDocuments: ReceiverDocuments = (receiver) => lookup(receiver);

/**
 * A receiver addressed by a Danish identifier: a CVR number (0184), an SE number (0198), a P-number
 * (0096), a Danish VAT number (9902), or a GLN that GS1 Denmark issued (570 to 579): NemHandel's
 * receivers, for whom OIOUBL is the national format (decision 692).
 */
export function isDanishReceiver(receiver: string): boolean {
  const id = normalizePeppolId(receiver);
  return /^(0184|0198|0096|9902):/.test(id) || /^0088:57\d/.test(id);
}

/**
 * The format `auto` sends a document of `kind` in (decisions 691, 692): Peppol BIS 3 when the transport
 * reports nothing of the receiver (`documents` null); the one format the receiver takes; of two, OIOUBL
 * to a Danish receiver and Peppol BIS 3 to any other; null when it takes neither.
 */
export function autoFormat(receiver: string, documents: ReadonlySet<ReceiverDocument> | null, kind: SentKind): SendFormat | null {
  if (!documents) return 'peppol-bis3';
  const oioubl = documents.has(`oioubl-2.1:${kind}`);
  const peppol = documents.has(`peppol-bis3:${kind}`);
  if (oioubl && peppol) return isDanishReceiver(receiver) ? 'oioubl-2.1' : 'peppol-bis3';
  return oioubl ? 'oioubl-2.1' : peppol ? 'peppol-bis3' : null;
}

const KIND_NAMES: Record<SentKind, string> = { invoice: 'invoices', credit_note: 'credit notes' };

/**
 * Whether a reminder in OIOUBL (the only format tlr sends reminders in) goes to `receiver`: yes when the
 * transport reports nothing of it, else when it is registered for OIOUBL reminders (decision 696).
 */
export async function takesOioublReminders(receiver: string): Promise<boolean> {
  const documents = await receiverDocuments(receiver);
  return !documents || documents.has('oioubl-2.1:reminder');
}

/**
 * The format a document of `kind` goes to `receiver` in, for the customer's `einvoice_format`: peppol
 * and oioubl as asked; auto as the receiver's capabilities say, or 422 einvoice_receiver_unsupported
 * naming the receiver when it takes neither format (decision 693): nothing is queued.
 */
export async function sendFormat(receiver: string, customer: { name: string; einvoice_format?: string }, kind: SentKind): Promise<SendFormat> {
  if (customer.einvoice_format === 'oioubl') return 'oioubl-2.1';
  if (customer.einvoice_format !== 'auto') return 'peppol-bis3';
  const documents = await receiverDocuments(receiver);
  const format = autoFormat(receiver, documents, kind);
  if (format) return format;
  const listed = documents && documents.size ? `it is registered for ${[...documents].join(', ')} only` : 'the registry does not list it';
  throw new DomainError(
    'einvoice_receiver_unsupported',
    `Customer ${customer.name}'s receiver ${receiver} takes neither Peppol BIS Billing 3.0 nor OIOUBL 2.1 ${KIND_NAMES[kind]} by the access point's receiver registry (${listed}). With einvoice_format auto, a document is sent only in a format its receiver takes: nothing was sent. Check the customer's peppol_id, or send the PDF.`,
    'customer_id',
    { receiver },
  );
}
