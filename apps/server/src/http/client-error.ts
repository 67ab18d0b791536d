// Requests Node's HTTP parser refuses before Express sees them (headers over 16 KB, a 20 KB URL, bytes
// that are not HTTP) get the same problem+json shape and headers as every other answer, not Node's bare
// status line. Written on the socket, since there is no request object yet.
import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import { problem } from '@tlr/api';
import { responseHeaders } from './request-context.ts';

const REASONS: Record<number, string> = { 400: 'Bad Request', 431: 'Request Header Fields Too Large' };

export function answerClientError(err: Error & { code?: string }, socket: Socket): void {
  if (!socket.writable || err.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const p =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? problem('headers_too_large', 'The request line and headers exceed 16 KB; send long values in the body.')
      : problem(
          'invalid_request',
          `The request is not valid HTTP (${err.code ?? 'parse error'}): a header name or value holds a character HTTP forbids, or the request line is malformed.`,
        );
  const body = JSON.stringify(p);
  const headers = {
    ...responseHeaders(randomUUID()),
    'Content-Type': 'application/problem+json',
    'Content-Length': String(Buffer.byteLength(body)),
    Connection: 'close',
  };
  const head = Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\r\n');
  socket.end(`HTTP/1.1 ${p.status} ${REASONS[p.status]}\r\n${head}\r\n\r\n${body}`);
}
