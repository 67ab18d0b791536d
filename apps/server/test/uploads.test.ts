// The one HTTP shell of the four uploads (vouchers, bank statements, SAF-T imports, received e-invoices),
// through HTTP against PostgreSQL: the same order of refusals on every route (the scopes before a byte
// is read, then the content type, then the size from Content-Length and while reading), the same
// answer headers (an Idempotency-Key replay), and no staged file left behind on any path.
import { readFileSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { idem, useCompany } from './helpers.ts';

// The first e-invoice of a process loads the official rules into a worker (seconds on a busy machine).
const t = useCompany({ name: 'Upload ApS', cvr: '12345674', env: { REQUEST_TIMEOUT_MS: '120000' } });

const EINVOICE = readFileSync(join(import.meta.dirname, '../../../packages/domain/src/einvoice/examples/base-example.xml'), 'utf8');
const SAFT = readFileSync(join(import.meta.dirname, 'fixtures', 'saft-economic.xml'), 'utf8');
const camt = (entryCurrency = 'DKK') =>
  `<?xml version="1.0" encoding="UTF-8"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt><GrpHdr><MsgId>1</MsgId></GrpHdr>` +
  `<Stmt><Id>S-${Math.random()}</Id><Ntry><Amt Ccy="${entryCurrency}">100.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts><BookgDt><Dt>2026-03-01</Dt></BookgDt></Ntry></Stmt></BkToCstmrStmt></Document>`;

interface Route {
  name: string;
  path: () => string;
  type: string;
  limit: number;
  /** A key with every scope but one the route needs. */
  lacking: string;
  body: () => string;
  status: number;
  /** A body the procedure refuses after it was staged. */
  refused: { body: string; code: string };
}

let bankAccountId = '';
const ROUTES: Route[] = [
  {
    name: 'vouchers',
    path: () => '/vouchers',
    type: 'application/json',
    limit: 14 * 1024 * 1024 + 64 * 1024,
    lacking: 'vouchers:write',
    body: () => JSON.stringify({ filename: 'kvittering.pdf', content_base64: Buffer.from(`%PDF-1.4 ${Math.random()}`).toString('base64') }),
    status: 201,
    refused: { body: JSON.stringify({ filename: 'a/b.pdf', content_base64: 'JVBERi0xLjQK' }), code: 'invalid_request' },
  },
  {
    name: 'bank statements',
    path: () => `/bank-accounts/${bankAccountId}/statements`,
    type: 'application/xml',
    limit: 200 * 1024 * 1024,
    lacking: 'transactions:write',
    body: () => camt(),
    status: 201,
    refused: { body: camt('EUR'), code: 'bank_file_invalid' },
  },
  {
    name: 'SAF-T imports',
    path: () => '/imports/saft',
    type: 'application/xml',
    limit: 1024 * 1024 * 1024,
    lacking: 'accounts:write',
    body: () => SAFT.replace('<AuditFileDateCreated>', `<!-- ${Math.random()} --><AuditFileDateCreated>`),
    status: 202,
    refused: { body: '', code: 'saft_file_invalid' },
  },
  {
    name: 'received e-invoices',
    path: () => '/einvoices/inbound',
    type: 'application/xml',
    // 32 MB: a document above 10 MB is imported by a job (decision 491).
    limit: 32 * 1024 * 1024,
    lacking: 'vouchers:write',
    body: () => EINVOICE.replace('<cbc:ID>Snippet1</cbc:ID>', `<cbc:ID>U-${Math.random()}</cbc:ID>`),
    status: 201,
    refused: {
      body: EINVOICE.replace(
        '<cbc:PayableAmount currencyID="EUR">1656.25</cbc:PayableAmount>',
        '<cbc:PayableAmount currencyID="EUR">1000.00</cbc:PayableAmount>',
      ),
      code: 'einvoice_invalid',
    },
  },
];

// Staged files go to TMPDIR (os.tmpdir() reads it at each call): one of this file's own, to see them.
let staging = '';
beforeAll(async () => {
  // The rules' worker starts now, under the machine's TMPDIR, where the compiled rules are kept (validate.ts).
  const warm = await send('/einvoices/inbound', { 'Content-Type': 'application/xml' }, EINVOICE);
  expect(warm.status, JSON.stringify(warm.body)).toBe(201);
  staging = await mkdtemp(join(tmpdir(), 'tlr-upload-test-'));
  // Stubbed, so that the end puts back exactly what was (unset included): the worker process runs other files after this one.
  vi.stubEnv('TMPDIR', staging);
  const account = await t.raw.post<{ data: { id: string } }>('/bank-accounts', { name: 'Drift' });
  expect(account.status, account.text).toBe(201);
  bankAccountId = account.body.data.id;
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await rm(staging, { recursive: true, force: true });
});

/** A raw request: headers as given (a Content-Length that is a lie included), the body streamed in chunks. */
function send(
  path: string,
  headers: Record<string, string>,
  body: { bytes: number } | string | undefined,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: { code?: string; field?: string; detail?: string } }> {
  const url = new URL(`${t.svc.url}/api/v1${path}`);
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { 'X-API-Key': t.key, ...idem().header, ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text ? (JSON.parse(text) as object) : {} }));
    });
    // The server may answer and close before the body is sent: that is the point.
    req.on('error', (e: NodeJS.ErrnoException) => (['EPIPE', 'ECONNRESET'].includes(e.code ?? '') ? undefined : reject(e)));
    if (typeof body === 'string') req.end(body);
    else if (body) {
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      let sent = 0;
      const more = () => {
        while (sent < body.bytes && !req.destroyed) {
          sent += chunk.length;
          if (!req.write(chunk)) return void req.once('drain', more);
        }
        req.end();
      };
      more();
    } else req.flushHeaders();
  });
}

describe('every upload route refuses the same way, before it reads what it refuses', () => {
  for (const route of ROUTES) {
    it(`${route.name}: the scopes first, then the content type, then the size`, async () => {
      const { key } = await t.newKey(
        ['customers:read', 'expenses:write', 'vouchers:read', 'transactions:read', 'transactions:write', 'accounts:write', 'vouchers:write'].filter(
          (s) => s !== route.lacking,
        ) as never,
      );
      // A key that may not upload is refused before anything else, whatever it sends.
      const forbidden = await send(route.path(), { 'Content-Type': 'text/plain', 'X-API-Key': key }, 'x');
      expect([forbidden.status, forbidden.body.code], route.name).toEqual([403, 'forbidden']);
      expect(forbidden.body.detail).toContain(route.lacking);

      const wrongType = await send(route.path(), { 'Content-Type': 'text/plain' }, 'x');
      expect([wrongType.status, wrongType.body.code, wrongType.body.field, wrongType.headers.connection]).toEqual([
        415,
        'unsupported_media_type',
        'Content-Type',
        'close',
      ]);
      expect(wrongType.body.detail).toContain('(it was "text/plain")');

      // Content-Length over the limit: refused at once, nothing of the body read.
      const declared = await send(route.path(), { 'Content-Type': route.type, 'Content-Length': String(route.limit + 1) }, undefined);
      expect([declared.status, declared.body.code, declared.body.field, declared.headers.connection]).toEqual([413, 'payload_too_large', 'body', 'close']);
      expect(declared.body.detail).toMatch(new RegExp(`exceeds ${route.limit} bytes \\(`));
      expect(await readdir(staging)).toEqual([]);
    });
  }

  for (const route of ROUTES.filter((r) => r.limit <= 16 * 1024 * 1024)) {
    it(`${route.name}: a body past the limit without Content-Length is refused while read, in the same words, and nothing is left staged`, async () => {
      const declared = await send(route.path(), { 'Content-Type': route.type, 'Content-Length': String(route.limit + 1) }, undefined);
      const streamed = await send(route.path(), { 'Content-Type': route.type, 'Transfer-Encoding': 'chunked' }, { bytes: route.limit + 128 * 1024 });
      expect([streamed.status, streamed.body.code, streamed.body.field, streamed.body.detail]).toEqual([
        413,
        'payload_too_large',
        'body',
        declared.body.detail,
      ]);
      expect(await readdir(staging)).toEqual([]);
    });
  }
});

describe('what every upload route answers, and that it leaves no staged file', () => {
  for (const route of ROUTES) {
    it(`${route.name}: its status, the replay of an Idempotency-Key, and a refusal after staging; the staged file removed each time`, async () => {
      const key = idem().header;
      const body = route.body();
      const first = await send(route.path(), { 'Content-Type': route.type, ...key }, body);
      expect(first.status, JSON.stringify(first.body)).toBe(route.status);
      expect(await readdir(staging)).toEqual([]);
      const replay = await send(route.path(), { 'Content-Type': route.type, ...key }, body);
      expect([replay.status, replay.headers['x-idempotency-replayed']]).toEqual([route.status, 'true']);
      expect(await readdir(staging)).toEqual([]);
      const refused = await send(route.path(), { 'Content-Type': route.type }, route.refused.body);
      expect([refused.status, refused.body.code], JSON.stringify(refused.body)).toEqual([400, route.refused.code]);
      expect(await readdir(staging)).toEqual([]);
    });
  }
});
