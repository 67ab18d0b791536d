// What comes back about a document sent: the access point's receipts (`<message id>.receipt.json`) and
// Peppol ApplicationResponses (invoice responses and message-level responses) naming the document's
// UUID, read from the directory transport's inbox and recorded against their message. Other files
// there (incoming invoices) are left for the inbound import.
import { mkdir, readdir, readFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { Db, InTransaction } from '@tlr/db';
import { checkDate } from '../calendar.ts';
import { isUuid } from '../ids.ts';
import { child, children, readXmlDocument, textOf } from '../xml/tree.ts';
import { markAccepted } from './delivery.ts';
import { MAX_EINVOICE_BYTES } from './parse.ts';
import type { EinvoiceStatus } from './schema.ts';

/** What an answer makes of its message, and what is kept of it as last_response. */
export interface EinvoiceAnswer {
  status: Extract<EinvoiceStatus, 'delivered' | 'rejected'>;
  response: Record<string, unknown>;
}
/**
 * Records an answer against its outbound message, found by the ids the answer names (our message id, or
 * the document's UUID). The latest answer stands, and it settles the message: no further attempts. An
 * answer to a message not recorded as sent yet (the access point answered before the attempt's outcome
 * was written, or the worker died in between) means the access point had it, so the invoice becomes
 * sent too (an invoice's own document; never for its credit note). Returns false when no message matches.
 */
export async function recordEinvoiceAnswer(tx: Db, ids: string[], answer: EinvoiceAnswer): Promise<boolean> {
  const [found] = await tx.$queryRaw<{ id: string; company_id: string; invoice_id: string | null; document_kind: string; livemode: boolean }[]>`
    SELECT m.id, m.company_id, m.invoice_id, m.document_kind, c.sandbox_of_id IS NULL AS livemode
    FROM einvoice_messages m JOIN companies c ON c.id = m.company_id
    WHERE (m.id = ANY(${ids.filter(isUuid)}::uuid[]) OR m.document_uuid = ANY(${ids}::text[])) AND m.direction = 'outbound'
    ORDER BY m.created_at DESC LIMIT 1`;
  if (!found) return false;
  // The invoice before the message, as every writer of both takes them.
  if (found.invoice_id) await tx.$queryRaw`SELECT 1 FROM invoices WHERE id = ${found.invoice_id}::uuid FOR UPDATE`;
  const [before] = await tx.$queryRaw<{ status: string }[]>`
    WITH old AS (SELECT id, status FROM einvoice_messages WHERE id = ${found.id}::uuid FOR UPDATE)
    UPDATE einvoice_messages m SET status = ${answer.status}, next_attempt_at = NULL, last_response = ${JSON.stringify(answer.response)}::jsonb,
           last_error = '', updated_at = now()
    FROM old WHERE m.id = old.id
    RETURNING old.status`;
  if (before?.status === 'queued' || before?.status === 'failed') {
    await markAccepted(tx, { companyId: found.company_id, livemode: found.livemode }, found);
  }
  return true;
}

/** An answer read from a file: the ids it names and what it says. */
export interface ReadAnswer {
  ids: string[];
  answer: EinvoiceAnswer;
}

const receipt = z.object({
  status: z.enum(['delivered', 'rejected']),
  response: z.unknown().optional(),
});

/** An answer is small: the policy's bounds of a received document are plenty. */
const LIMITS = { maxBytes: MAX_EINVOICE_BYTES };

/**
 * The response codes of Peppol's invoice responses (UNCL4343 subset) and message-level responses: RE
 * refuses the document; AB (received), IP, UQ, CA, AP and PD all mean it reached its receiver.
 */
const REJECTING_CODES = new Set(['RE']);

/**
 * An ApplicationResponse, as an answer about the documents it references; null for any other document.
 * Read under the safe-XML policy; a refusal is thrown as an Error with the reason (the file goes to refused/).
 */
export function parseApplicationResponse(xml: string, file: string): ReadAnswer | null {
  const doc = readXmlDocument(xml, LIMITS, (e) => new Error(`not an answer this service reads: ${e.message}`, { cause: e }));
  if (doc.name !== 'ApplicationResponse') return null;
  const response = child(doc, 'DocumentResponse');
  const answered = child(response, 'Response');
  const code = textOf(child(answered, 'ResponseCode'));
  const references = children(response, 'DocumentReference')
    .flatMap((r) => [textOf(child(r, 'ID')), textOf(child(r, 'UUID'))])
    .filter(Boolean);
  if (!code || !references.length)
    throw new Error('an ApplicationResponse needs DocumentResponse/Response/ResponseCode and DocumentResponse/DocumentReference/ID');
  const issueDate = textOf(child(doc, 'IssueDate'));
  const badDate = issueDate ? checkDate(issueDate) : undefined;
  if (badDate) throw new Error(`the ApplicationResponse's IssueDate "${issueDate}" ${badDate}`);
  const description = [
    ...children(answered, 'Description').map(textOf),
    ...children(answered, 'Status').flatMap((s) => children(s, 'StatusReason').map(textOf)),
  ]
    .filter(Boolean)
    .join(' ');
  return {
    ids: references,
    answer: {
      status: REJECTING_CODES.has(code) ? 'rejected' : 'delivered',
      response: { source: 'application_response', file, id: textOf(child(doc, 'ID')), issue_date: issueDate, code, description },
    },
  };
}

type Node = Record<string, unknown>;

/** A receipt file of the access point, `<message id>.receipt.json`: `{ "status": "delivered" | "rejected", "response": ... }`. */
export function parseReceipt(text: string, file: string): ReadAnswer {
  const parsed = receipt.safeParse(JSON.parse(text));
  if (!parsed.success) throw new Error('a receipt is {"status": "delivered" | "rejected", "response": ...}');
  const given = parsed.data.response;
  const details = given && typeof given === 'object' && !Array.isArray(given) ? (given as Node) : given === undefined ? {} : { detail: given };
  return { ids: [file.slice(0, -'.receipt.json'.length)], answer: { status: parsed.data.status, response: { ...details, source: 'receipt', file } } };
}

/** What the inbox reader did: answers recorded, documents imported, and files it could not use (moved aside, named in the log). */
export interface InboxRound {
  recorded: number;
  imported: { file: string; messageId: string }[];
  refused: { file: string; reason: string }[];
}

/** Imports an incoming document (inbound.ts importFromInbox): its message id, or a refusal thrown with the reason. */
export type ImportDocument = (xml: string) => Promise<string>;

/**
 * Reads the inbox once: every receipt and ApplicationResponse is recorded against its message, and
 * every other XML file (an invoice or credit note received) is imported by `importDocument`; each is
 * then moved to `processed/`, and one that cannot be read, matches no message or is refused goes to
 * `refused/`. The access point must write files atomically (whole, under their final name), as the
 * outbox is written; hidden files are skipped. Several readers at once record a file twice at worst
 * (the same answer; an import is made once) and move it once.
 */
export async function readEinvoiceInbox(run: InTransaction, inbox: string, importDocument?: ImportDocument): Promise<InboxRound> {
  const round: InboxRound = { recorded: 0, imported: [], refused: [] };
  let names: string[];
  try {
    names = (await readdir(inbox, { withFileTypes: true })).filter((e) => e.isFile() && !e.name.startsWith('.')).map((e) => e.name);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    await mkdir(inbox, { recursive: true });
    return round;
  }
  for (const name of names.sort()) {
    const isReceipt = name.endsWith('.receipt.json');
    if (!isReceipt && !name.toLowerCase().endsWith('.xml')) continue;
    let answer: ReadAnswer | null;
    let text: string;
    try {
      text = await readFile(join(inbox, name), 'utf8');
      answer = isReceipt ? parseReceipt(text, name) : parseApplicationResponse(text, name);
      if (!answer && importDocument) {
        // Not an answer: an invoice or credit note received.
        round.imported.push({ file: name, messageId: await importDocument(text) });
        await moveTo(inbox, 'processed', name);
        continue;
      }
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') continue; // another reader took it
      await moveTo(inbox, 'refused', name);
      round.refused.push({ file: name, reason: (e as Error).message });
      continue;
    }
    if (!answer) continue; // no importer (a process without object storage): left for one that has
    const found = await run((tx) => recordEinvoiceAnswer(tx, answer.ids, answer.answer));
    await moveTo(inbox, found ? 'processed' : 'refused', name);
    if (found) round.recorded += 1;
    else round.refused.push({ file: name, reason: 'it names no e-invoice sent from here' });
  }
  return round;
}

async function moveTo(inbox: string, folder: string, name: string): Promise<void> {
  await mkdir(join(inbox, folder), { recursive: true });
  await rename(join(inbox, name), join(inbox, folder, name)).catch((e: NodeJS.ErrnoException) => {
    if (e.code !== 'ENOENT') throw e;
  });
}
