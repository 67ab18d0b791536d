// The one HTTP shell of an upload whose body is a file (a voucher's JSON, a bank statement, a SAF-T file,
// a received e-invoice), in this order: the scopes, before a byte is read; the content type (415); the
// size limit, from Content-Length before reading and counted while reading (413); the body staged to a
// temporary file (files/staged-upload.ts) before the procedure opens its transaction, whatever the
// client's speed; the procedure's answer with its status and headers (an Idempotency-Key replay
// included); and the staged file removed on every path. A refusal before the body was read to its end
// closes the connection rather than read the rest of a body already refused.
import { problem, requireScopes } from '@tlr/api';
import { bounded, byteSize, UploadTooLarge } from '@tlr/domain';
import { extendDeadline } from './deadline.ts';
import { sendProblem } from './problem-response.ts';
import type { RawCall, RawHandler } from './raw-routes.ts';

export interface UploadRoute<Kind extends string, Staged extends { discard(): Promise<void> }> {
  /** The content types taken, each as the kind of file it is: the first that matches. */
  types: readonly { pattern: RegExp; kind: Kind }[];
  /** The 415 detail: what to send ("Send the SAF-T file as it is, with Content-Type: application/xml"); the type sent is added. */
  send: string;
  /** Bytes of the body. */
  limit: number;
  /** What the body is, for the 413 detail ("The file", "The document"). */
  what: string;
  /** What the limit means, in the 413 detail; default the limit in MB or GB. */
  sizeNote?: string;
  /** The request deadline from the start of reading, for bodies that take long to send and to import; default the common one. */
  deadlineMs?: number;
  /** Writes the (bounded) body to a temporary file. */
  stage(body: AsyncIterable<Uint8Array>, kind: Kind, call: RawCall): Promise<Staged>;
  /** Calls the procedure with what was staged (ctx.upload and the like); its answer is the response body. */
  run(call: RawCall, staged: Staged): Promise<unknown>;
  /** The status when the procedure sets none (an idempotent replay sets its own). */
  status: 200 | 201 | 202;
}

/** Refuses before the body was read: answer, and close the connection rather than read the rest. */
function refuseEarly(call: RawCall, status: 'unsupported_media_type' | 'payload_too_large', detail: string, field: string) {
  call.res.setHeader('Connection', 'close');
  sendProblem(call.res, problem(status, detail, { field }));
}

/** The filename of a Content-Disposition header (RFC 6266: filename*=UTF-8''… before filename="…"), or "". */
export function dispositionName(header: string | undefined): string {
  if (!header) return '';
  const extended = /filename\*\s*=\s*UTF-8''([^;\s]+)/i.exec(header);
  if (extended) {
    try {
      return decodeURIComponent(extended[1]!);
    } catch {
      // Not percent-encoded UTF-8: the plain filename, if any, stands.
    }
  }
  const plain = /filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]+))/i.exec(header);
  return plain ? (plain[1]?.replace(/\\(.)/g, '$1') ?? plain[2] ?? '') : '';
}

export function rawUpload<Kind extends string, Staged extends { discard(): Promise<void> }>(route: UploadRoute<Kind, Staged>): RawHandler {
  const tooLarge = `${route.what} exceeds ${route.limit} bytes (${route.sizeNote ?? byteSize(route.limit)}).`;
  return async (call: RawCall) => {
    const { req, res, ctx } = call;
    // The procedure's own scopes, checked before anything is read: a key that may not upload costs no reading.
    requireScopes(ctx.actor, call.route.meta.scopes ?? []);
    const type = req.get('Content-Type');
    const kind = type ? route.types.find((t) => t.pattern.test(type))?.kind : undefined;
    if (!kind) return refuseEarly(call, 'unsupported_media_type', `${route.send}${type ? ` (it was ${JSON.stringify(type)})` : ''}.`, 'Content-Type');
    if (Number(req.get('Content-Length') ?? 0) > route.limit) return refuseEarly(call, 'payload_too_large', tooLarge, 'body');
    if (route.deadlineMs) extendDeadline(res, route.deadlineMs);
    let staged: Staged;
    try {
      staged = await route.stage(bounded(req, route.limit), kind, call);
    } catch (e) {
      if (e instanceof UploadTooLarge) return refuseEarly(call, 'payload_too_large', tooLarge, 'body');
      // A refusal before the whole body was read: do not keep the connection for the rest of it.
      if (!req.readableEnded) res.setHeader('Connection', 'close');
      throw e;
    }
    let result: unknown;
    try {
      result = await route.run(call, staged);
    } finally {
      // Removed before the answer goes out: a client that has its answer finds nothing left behind.
      await staged.discard();
    }
    res.status(ctx.response.status ?? route.status);
    for (const [name, value] of Object.entries(ctx.response.headers)) res.setHeader(name, value);
    res.json(result);
  };
}
