// Hostile files on every upload route (issue 40, Order 23), through HTTP against PostgreSQL: each file is
// generated here as it is sent (nothing large is committed) and gets a 4xx naming the rule and the
// bound, never a 500 nor a crash, and no staged file is left behind. Bounds: docs/uploads.md.
import { readFileSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSaftImport } from '@tlr/domain';
import { idem, newCompany, newKey, ok, testDb, useCompany } from './helpers.ts';

// The first e-invoice of a process loads the official rules into a worker (seconds on a busy machine).
const t = useCompany({ name: 'Fjendtlige Filer ApS', cvr: '12345674', env: { REQUEST_TIMEOUT_MS: '120000' } });

const EINVOICE = readFileSync(join(import.meta.dirname, '../../../packages/domain/src/einvoice/examples/base-example.xml'), 'utf8');
const SAFT = readFileSync(join(import.meta.dirname, 'fixtures', 'saft-economic.xml'), 'utf8');
const MiB = 1024 * 1024;

interface Answer {
  status: number;
  body: { code?: string; field?: string; detail?: string; line?: number; xml?: { rule: string; limit?: number } };
}

/** POSTs a body made as it is sent: the parts of `body` written one by one, waiting for the socket to drain. */
function send(path: string, type: string, body: Iterable<string | Buffer>): Promise<Answer> {
  const url = new URL(`${t.svc.url}/api/v1${path}`);
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { 'X-API-Key': t.key, 'Content-Type': type, ...idem().header } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, body: text ? (JSON.parse(text) as Answer['body']) : {} }));
    });
    // The server may answer and close before the whole body is sent.
    req.on('error', (e: NodeJS.ErrnoException) => (['EPIPE', 'ECONNRESET'].includes(e.code ?? '') ? undefined : reject(e)));
    const parts = body[Symbol.iterator]();
    const more = () => {
      for (;;) {
        if (req.destroyed) return;
        const next = parts.next();
        if (next.done) return void req.end();
        if (!req.write(next.value)) return void req.once('drain', more);
      }
    };
    more();
  });
}

/** `size` bytes of `unit` repeated, in 1 MiB parts (made once). */
function* repeat(unit: string, size: number): Generator<Buffer> {
  const part = Buffer.from(unit.repeat(Math.ceil(MiB / unit.length)).slice(0, MiB));
  let sent = 0;
  for (; sent + part.length <= size; sent += part.length) yield part;
  if (size > sent) yield part.subarray(0, size - sent);
}

// Staged files go to TMPDIR (os.tmpdir() reads it at each call): one of this file's own, to see them.
let staging = '';
const before = process.env.TMPDIR;
let accountId = '';
beforeAll(async () => {
  // The rules' worker starts now, under the machine's TMPDIR, where the compiled rules are kept (validate.ts).
  const warm = await send('/einvoices/inbound', 'application/xml', [EINVOICE]);
  expect(warm.status, JSON.stringify(warm.body)).toBe(201);
  staging = await mkdtemp(join(tmpdir(), 'tlr-hostile-test-'));
  process.env.TMPDIR = staging;
  const account = await t.raw.post<{ data: { id: string } }>('/bank-accounts', { name: 'Drift' });
  expect(account.status, account.text).toBe(201);
  accountId = account.body.data.id;
});
afterAll(async () => {
  process.env.TMPDIR = before;
  await rm(staging, { recursive: true, force: true });
});

const statements = () => `/bank-accounts/${accountId}/statements`;
const CSV_HEAD = 'Dato;Tekst;Beløb;Saldo;Status;Afstemt\n01-03-2026;Løn;100,00;1.100,00;;\n';

describe('bank statement CSV: a line, a field and the text before a line end are bounded while read', () => {
  it('a quoted field of 150 MiB is a 400 naming the line and the bound, and nothing is left staged', async () => {
    const r = await send(statements(), 'text/csv', [CSV_HEAD, '02-03-2026;"', ...repeat('x', 150 * MiB), '";1,00;;;\n']);
    expect([r.status, r.body.code, r.body.line], JSON.stringify(r.body)).toEqual([400, 'bank_file_invalid', 3]);
    expect(r.body.detail).toMatch(/longer than 65536 characters/);
    expect(await readdir(staging)).toEqual([]);
  });

  it('a header of 150 MiB without a line end, and 150 MiB of separators on one line, are 400s naming the bound', async () => {
    const header = await send(statements(), 'text/csv', repeat('Dato', 150 * MiB));
    expect([header.status, header.body.code, header.body.line], JSON.stringify(header.body)).toEqual([400, 'bank_file_invalid', 1]);
    expect(header.body.detail).toMatch(/Line 1, body: the line is longer than 65536 characters/);
    const separators = await send(statements(), 'text/csv', [CSV_HEAD, ...repeat(';', 150 * MiB)]);
    expect([separators.status, separators.body.line], JSON.stringify(separators.body)).toEqual([400, 3]);
    expect(separators.body.detail).toMatch(/longer than 65536 characters/);
    expect(await readdir(staging)).toEqual([]);
  });

  it('a NUL byte in a text is a 400 naming the line, and nothing is imported', async () => {
    const r = await send(statements(), 'text/csv', [CSV_HEAD, '02-03-2026;Geb\u0000yr;-10,00;1.090,00;;\n']);
    expect([r.status, r.body.code, r.body.line], JSON.stringify(r.body)).toEqual([400, 'bank_file_invalid', 3]);
    expect(r.body.detail).toMatch(/control character U\+0000/);
    const lines = await t.raw.get<{ data: unknown[] }>(`/bank-accounts/${accountId}/lines`);
    expect(lines.body.data).toEqual([]);
    expect(await readdir(staging)).toEqual([]);
  });
});

const camt = (entries: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt><GrpHdr><MsgId>1</MsgId></GrpHdr>` +
  `<Stmt><Id>S-${Math.random()}</Id>${entries}</Stmt></BkToCstmrStmt></Document>`;
const entry = (amount: string) =>
  `<Ntry><Amt Ccy="DKK">${amount}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts><BookgDt><Dt>2026-03-01</Dt></BookgDt><AcctSvcrRef>${Math.random()}</AcctSvcrRef></Ntry>`;

describe('bank statement camt.053', () => {
  it('30,000 levels of nesting are refused at the safe-XML bound, at once, and the server answers meanwhile', async () => {
    const deep = camt(`<Ntry>${'<AddtlNtryInf>'.repeat(30_000)}${'</AddtlNtryInf>'.repeat(30_000)}</Ntry>`);
    const started = Date.now();
    const [r, health] = await Promise.all([send(statements(), 'application/xml', [deep]), fetch(`${t.svc.url}/healthz`)]);
    expect([r.status, r.body.code, r.body.xml], JSON.stringify(r.body)).toEqual([
      400,
      'bank_file_invalid',
      { rule: 'depth', limit: 64, line: 1, column: expect.any(Number) },
    ]);
    expect(health.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(await readdir(staging)).toEqual([]);
  });

  it('amounts that each fit but sum beyond the largest amount are a 400 naming the entry, not a 500', async () => {
    const balances =
      '<Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="DKK">0.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-03-01</Dt></Dt></Bal>' +
      '<Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="DKK">0.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-03-01</Dt></Dt></Bal>';
    // eleven of the largest amount: beyond numeric(18,2) as well as beyond what a JSON number carries exactly
    const r = await send(statements(), 'application/xml', [camt(balances + Array.from({ length: 11 }, () => entry('999999999999999.99')).join(''))]);
    expect([r.status, r.body.code, r.body.field, r.body.line], JSON.stringify(r.body)).toEqual([400, 'bank_file_invalid', 'Amt', 2]);
    expect(r.body.detail).toMatch(/come to more than 999999999999999\.99/);
    // a CSV whose stated balance implies an opening beyond the largest amount
    const csv = await send(statements(), 'text/csv', ['Dato;Tekst;Beløb;Saldo;Status;Afstemt\n01-03-2026;Løn;-999999999999999,99;999999999999999,99;;\n']);
    expect([csv.status, csv.body.field], JSON.stringify(csv.body)).toEqual([400, 'balance']);
    expect(csv.body.detail).toMatch(/opening balance is beyond 999999999999999\.99/);
    expect(await readdir(staging)).toEqual([]);
  });
});

describe('received e-invoices', () => {
  it('a percent that is no number is a 400 naming the field, before the rules run; in any other place, the rules name it', async () => {
    const bad = EINVOICE.replaceAll(/<cbc:Percent>[^<]*<\/cbc:Percent>/g, '<cbc:Percent>abc</cbc:Percent>');
    const r = await send('/einvoices/inbound', 'application/xml', [bad]);
    expect([r.status, r.body.code, r.body.field], JSON.stringify(r.body)).toEqual([400, 'invalid_request', 'Percent']);
    expect(r.body.detail).toMatch(/TaxCategory\/Percent "abc" must be a decimal number \(line \d+\)/);
    // An allowance's percent (which only the official rules read, and their stylesheet cannot cast), a quantity: the same.
    for (const [from, to] of [
      [/<cbc:Percent>[^<]*<\/cbc:Percent>/, '<cbc:Percent>abc</cbc:Percent>'],
      [/(<cbc:InvoicedQuantity[^>]*>)[^<]*/, '$11e3'],
    ] as const) {
      const doc = EINVOICE.replace(from, to);
      expect(doc).not.toBe(EINVOICE);
      const other = await send('/einvoices/inbound', 'application/xml', [doc]);
      expect([other.status, other.body.code], JSON.stringify(other.body)).toEqual([400, 'invalid_request']);
      expect(other.body.detail).toMatch(/must be a decimal number/);
    }
    expect(await readdir(staging)).toEqual([]);
  });

  it('an e-invoice nested 10,000 levels deep is a 400 at the safe-XML bound', async () => {
    const deep = EINVOICE.replace('<cbc:Note>', `${'<cbc:Note>'.repeat(10_000)}${'</cbc:Note>'.repeat(9_999)}<cbc:Note>`);
    const r = await send('/einvoices/inbound', 'application/xml', [deep]);
    expect([r.status, r.body.code, r.body.xml?.rule, r.body.xml?.limit], JSON.stringify(r.body)).toEqual([400, 'invalid_request', 'depth', 64]);
    expect(r.body.detail).toMatch(/^Not an e-invoice this service takes: line \d+, column \d+: elements are nested deeper than 64 levels/);
    expect(await readdir(staging)).toEqual([]);
  });
});

describe('SAF-T imports', () => {
  it('a comment and a CDATA section that hold a Transaction tag are read as XML: the import succeeds with the real transactions', async () => {
    const firm = await newKey(t.svc.url, await newCompany('Kommentar ApS', '12345704'));
    const xml = SAFT.replace('<Transaction>', '<!-- <Transaction> an entry taken out </Transaction> --><Transaction>').replace(
      '<Description>Kassekladde</Description>',
      '<Description><![CDATA[Kassekladde <Transaction>]]></Description>',
    );
    const r = await firm.raw.call<{ data: { id: string } }>('POST', '/imports/saft', {
      raw: xml,
      headers: { 'Content-Type': 'application/xml', ...idem().header },
    });
    expect(r.status, r.text).toBe(202);
    await runSaftImport(testDb(), r.body.data.id, { progressEveryBytes: 1 });
    const done = (await ok(firm.api.GET('/imports/{id}', { params: { path: { id: r.body.data.id } } }))).data;
    expect(done, JSON.stringify(done.problem)).toMatchObject({ status: 'succeeded', counts: { transactions: 3 } });
  });
});
