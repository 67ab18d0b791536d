// The access point behind a small interface (EINVOICE_TRANSPORT): `directory` writes each document
// into the folder an access point such as Oxalis picks files up from, `http` POSTs it to an access
// point's REST endpoint. Either says whether the access point took the document; its later receipts
// and responses come back through the inbox (responses.ts).
import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { registryFileReceivers, type ReceiverDocuments } from './receivers.ts';

export interface OutgoingDocument {
  messageId: string;
  xml: string;
  /** The receiver's Peppol participant id (the document names it too, as its buyer's EndpointID). */
  receiver: string;
  documentUuid: string;
}

/**
 * accepted: the access point has the document; rejected: it refused it, and the same bytes would be
 * refused again; retry: no answer, or one that may change (a 5xx, a full disk).
 */
export type HandOver =
  | { outcome: 'accepted'; response: Record<string, unknown> }
  | { outcome: 'rejected'; error: string; response: Record<string, unknown> }
  | { outcome: 'retry'; error: string; response?: Record<string, unknown> };

export interface EinvoiceTransport {
  readonly kind: 'directory' | 'http';
  send(doc: OutgoingDocument): Promise<HandOver>;
  /** Where the access point leaves its receipts and responses (directory only). */
  readonly inbox?: string;
  /**
   * The documents a receiver takes, as the access point knows them (directory: its registry file); absent
   * when the transport reports no capabilities (http). A customer's einvoice_format auto sends by it.
   */
  readonly receivers?: ReceiverDocuments;
}

const reason = (e: unknown) => (e as NodeJS.ErrnoException).code ?? (e as Error).message;

/**
 * `<message id>.xml` appears in `outbox` whole or not at all: written and flushed under a hidden
 * temporary name in the same folder, then renamed into place (atomic within one file system). An
 * access point that picks up *.xml never reads half a document. Written again after a worker died
 * mid-attempt, it replaces the file it may have left (the same bytes).
 */
export function directoryTransport(outbox: string, inbox: string, receiversFile = join(dirname(outbox), 'receivers.json')): EinvoiceTransport {
  return {
    kind: 'directory',
    inbox,
    receivers: registryFileReceivers(receiversFile),
    async send(doc) {
      const name = `${doc.messageId}.xml`;
      const temp = join(outbox, `.${name}.${randomBytes(6).toString('hex')}.tmp`);
      try {
        await mkdir(outbox, { recursive: true });
        const file = await open(temp, 'wx', 0o640);
        try {
          await file.writeFile(doc.xml, 'utf8');
          await file.sync();
        } finally {
          await file.close();
        }
        await rename(temp, join(outbox, name));
      } catch (e) {
        await rm(temp, { force: true }).catch(() => {});
        return { outcome: 'retry', error: `cannot write ${name} into ${outbox}: ${reason(e)}` };
      }
      return { outcome: 'accepted', response: { source: 'directory', file: name } };
    },
  };
}

/** 4xx refuse the document for good, except these, which say "not now". */
const TRANSIENT_4XX = new Set([408, 425, 429]);
/** The most of an answer's body kept as last_response. */
const BODY_LIMIT = 2000;

/**
 * POST <url> with the XML, `Authorization: Bearer <token>` when one is configured, and the message id
 * as `Idempotency-Key` (an access point that honours it takes a repeated hand-over once). 2xx: the
 * access point accepted it; 4xx: rejected; anything else, or no answer within `timeoutMs`
 * (EINVOICE_HANDOVER_TIMEOUT_MS): retried.
 * Redirects are not followed (a 3xx is retried, then fails: the URL is wrong).
 */
export function httpTransport(url: string, token: string | undefined, timeoutMs: number): EinvoiceTransport {
  return {
    kind: 'http',
    async send(doc) {
      let res: Response;
      let text: string;
      try {
        res = await fetch(url, {
          method: 'POST',
          headers: {
            'Content-Type': 'application/xml',
            'Idempotency-Key': doc.messageId,
            'User-Agent': 'tlr-einvoice/1',
            ...(token ? { Authorization: `Bearer ${token}` } : {}),
          },
          body: doc.xml,
          redirect: 'manual',
          signal: AbortSignal.timeout(timeoutMs),
        });
        text = (await res.text()).slice(0, BODY_LIMIT);
      } catch (e) {
        const why =
          (e as Error).name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : ((e as { cause?: Error }).cause?.message ?? (e as Error).message);
        return { outcome: 'retry', error: `POST ${url}: ${why}`.slice(0, 500) };
      }
      let body: unknown = text;
      try {
        if (/json/.test(res.headers.get('content-type') ?? '')) body = JSON.parse(text);
      } catch {
        // kept as text
      }
      const response = { source: 'http', status: res.status, body };
      if (res.status >= 200 && res.status < 300) return { outcome: 'accepted', response };
      const error = `the access point answered ${res.status}`;
      if (res.status >= 400 && res.status < 500 && !TRANSIENT_4XX.has(res.status)) return { outcome: 'rejected', error, response };
      return { outcome: 'retry', error, response };
    },
  };
}
