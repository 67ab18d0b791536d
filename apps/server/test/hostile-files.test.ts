// Hostile files on every upload route, through HTTP against PostgreSQL: each file is
// generated here as it is sent (nothing large is committed) and gets a 4xx naming the rule and the
// bound, never a 500 nor a crash, and no staged file is left behind. Bounds: docs/hostile-files.md.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import PDFDocument from 'pdfkit';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { inTransaction } from '@tlr/db';
import { asSystem, AUTOMATIC_MATCHING, autoMatch, MAX_PROCESSING_ATTEMPTS, processPendingVouchers, runSaftImport } from '@tlr/domain';
import { idem, newCompany, newKey, ok, startTestService, testDb, useCompany, waitFor } from './helpers.ts';

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
function send(path: string, type: string, body: Iterable<string | Buffer>, base = t.svc.url): Promise<Answer> {
  const url = new URL(`${base}/api/v1${path}`);
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
let accountId = '';
beforeAll(async () => {
  // The rules' worker starts now, under the machine's TMPDIR, where the compiled rules are kept (validate.ts).
  const warm = await send('/einvoices/inbound', 'application/xml', [EINVOICE]);
  expect(warm.status, JSON.stringify(warm.body)).toBe(201);
  staging = await mkdtemp(join(tmpdir(), 'tlr-hostile-test-'));
  // Stubbed, so that the end puts back exactly what was (unset included): the worker process runs other files after this one.
  vi.stubEnv('TMPDIR', staging);
  const account = await t.raw.post<{ data: { id: string } }>('/bank-accounts', { name: 'Drift' });
  expect(account.status, account.text).toBe(201);
  accountId = account.body.data.id;
});
afterAll(async () => {
  vi.unstubAllEnvs();
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

describe('staged uploads', () => {
  it("a server's start removes what a stopped process left staged, and keeps a running one's", async () => {
    // The id of a process that has ended (a server killed mid-upload), and this one's (a server running).
    const gone = spawnSync(process.execPath, ['-e', '0']).pid;
    await mkdir(join(staging, `tlr-bank-${gone}-killed`));
    await mkdir(join(staging, `tlr-saft-${process.pid}-running`));
    const next = await startTestService();
    try {
      expect(await readdir(staging)).toEqual([`tlr-saft-${process.pid}-running`]);
    } finally {
      await next.stop();
      await rm(join(staging, `tlr-saft-${process.pid}-running`), { recursive: true });
    }
  });
});

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

  it('a document too large to read within the request deadline is a 413 that says so, not a 503 about the database', { timeout: 120_000 }, async () => {
    // A server whose requests may take 0.3 s: reading a 400-line invoice against the official rules takes longer.
    const quick = await startTestService({ REQUEST_TIMEOUT_MS: '300' });
    try {
      const line = /<cac:InvoiceLine>[\s\S]*?<\/cac:InvoiceLine>/.exec(EINVOICE)![0];
      const lines = Array.from({ length: 400 }, (_, i) => line.replace(/<cbc:ID>\d+<\/cbc:ID>/, `<cbc:ID>${i + 1}</cbc:ID>`)).join('\n');
      const long = EINVOICE.replace(/<cac:InvoiceLine>[\s\S]*<\/cac:InvoiceLine>/, lines);
      const r = await send('/einvoices/inbound', 'application/xml', [long], quick.url);
      expect([r.status, r.body.code, r.body.field], JSON.stringify(r.body)).toEqual([413, 'payload_too_large', 'body']);
      expect(r.body.detail).toMatch(
        /^The e-invoice could not be read within 0\.3 seconds, the most a request may take: it is too large to read in one request/,
      );
      // The reading ends by the rules' own time bound at the latest, and its staged copy goes with it.
      await waitFor(async () => (await readdir(staging)).length === 0, 60_000);
    } finally {
      await quick.stop();
    }
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

describe('on two servers sharing one database', () => {
  it('the hostile set, sent to both at once, gets a 4xx or a named failed import for every file; /healthz answers within 1 s; nothing is left staged', async () => {
    const second = await startTestService();
    try {
      const saft = SAFT.replace('<AuditFile', '<!DOCTYPE AuditFile [<!ENTITY name "Jensen">]>\n<AuditFile').replace('<Name>', '<Name>&name;');
      const set: [string, string, () => Iterable<string | Buffer>][] = [
        [statements(), 'text/csv', () => [CSV_HEAD, '02-03-2026;"', ...repeat('x', 8 * MiB), '";1,00;;;\n']],
        [statements(), 'text/csv', () => repeat('Dato', 8 * MiB)],
        [statements(), 'text/csv', () => [CSV_HEAD, ...repeat(';', 8 * MiB)]],
        [statements(), 'text/csv', () => [CSV_HEAD, '02-03-2026;Geb\u0000yr;-10,00;1.090,00;;\n']],
        [statements(), 'application/xml', () => [camt(`<Ntry>${'<AddtlNtryInf>'.repeat(30_000)}${'</AddtlNtryInf>'.repeat(30_000)}</Ntry>`)]],
        [statements(), 'application/xml', () => [camt(Array.from({ length: 11 }, () => entry('999999999999999.99')).join(''))]],
        ['/einvoices/inbound', 'application/xml', () => [EINVOICE.replace(/<cbc:Percent>[^<]*<\/cbc:Percent>/, '<cbc:Percent>abc</cbc:Percent>')]],
        [
          '/einvoices/inbound',
          'application/xml',
          () => [EINVOICE.replace('<cbc:Note>', `${'<cbc:Note>'.repeat(10_000)}${'</cbc:Note>'.repeat(9_999)}<cbc:Note>`)],
        ],
        ['/imports/saft', 'application/xml', () => [saft]],
      ];
      const servers = [t.svc.url, second.url];
      let slowest = 0;
      const unhealthy: number[] = [];
      let sending = true;
      const watch = Promise.all(
        servers.map(async (url) => {
          while (sending) {
            const started = Date.now();
            const r = await fetch(`${url}/healthz`);
            await r.arrayBuffer();
            if (r.status !== 200) unhealthy.push(r.status);
            slowest = Math.max(slowest, Date.now() - started);
            await new Promise((resolve) => setTimeout(resolve, 100));
          }
        }),
      );
      // Every file to each server, all at once.
      const answers = await Promise.all(
        servers.flatMap((url) => set.map(async ([path, type, body]) => ({ path, answer: await send(path, type, body(), url) }))),
      ).finally(() => (sending = false));
      await watch;
      for (const { path, answer } of answers) {
        if (path !== '/imports/saft') expect([400, 413], `${path}: ${answer.status} ${JSON.stringify(answer.body)}`).toContain(answer.status);
      }
      // The SAF-T files are taken (202) and their imports fail by the rule, named.
      const imports = answers.filter((a) => a.path === '/imports/saft').map((a) => a.answer as unknown as { status: number; body: { data: { id: string } } });
      expect(imports.map((i) => i.status)).toEqual([202, 202]);
      for (const { body } of imports) {
        await runSaftImport(testDb(), body.data.id);
        const done = (await ok(t.api.GET('/imports/{id}', { params: { path: { id: body.data.id } } }))).data;
        expect(done).toMatchObject({ status: 'failed', problem: { code: 'saft_file_invalid', detail: expect.stringMatching(/declares a document type/) } });
      }
      expect(unhealthy).toEqual([]);
      expect(slowest).toBeLessThan(1_000);
      expect(await readdir(staging)).toEqual([]);
    } finally {
      await second.stop();
    }
  }, 120_000);
});

/** A PDF whose one content stream inflates to `inflated` bytes (a decompression bomb). */
function bomb(inflated: number): Buffer {
  const data = deflateSync(Buffer.alloc(inflated, 0x20), { level: 9 });
  return Buffer.concat([
    Buffer.from('%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n2 0 obj\n<< /Type /Pages /Kids [3 0 R] /Count 1 >>\nendobj\n'),
    Buffer.from(
      `3 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>\nendobj\n4 0 obj\n<< /Length ${data.length} /Filter /FlateDecode >>\nstream\n`,
    ),
    data,
    Buffer.from('\nendstream\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n'),
  ]);
}

function pdfWith(text: string): Promise<Buffer> {
  const doc = new PDFDocument();
  const parts: Buffer[] = [];
  doc.on('data', (b: Buffer) => parts.push(b));
  const done = new Promise<Buffer>((r) => doc.on('end', () => r(Buffer.concat(parts))));
  doc.text(text);
  doc.end();
  return done;
}

describe('one company cannot stall another', () => {
  /** Voucher processing as the worker runs it: a transaction per step, the job named in the trail. */
  const processVouchers = () => processPendingVouchers(asSystem(inTransaction(t.svc.db), 'process-vouchers', 'tlr: voucher processing'), t.svc.store);
  const voucher = async (raw: typeof t.raw, filename: string, content: Buffer) => {
    const r = await raw.call<{ data: { id: string } }>('POST', '/vouchers', {
      body: { filename, content_base64: content.toString('base64'), mime_type: 'application/pdf' },
      headers: { 'Content-Type': 'application/json', ...idem().header },
    });
    expect(r.status, r.text).toBe(201);
    return r.body.data.id;
  };
  const state = async (id: string) =>
    (
      await testDb().pool.query<{ status: string; vendor: string; processing_attempts: number; failure: string | null }>(
        `SELECT v.status, v.vendor, v.processing_attempts, p.failure FROM vouchers v LEFT JOIN voucher_processing p ON p.voucher_id = v.id WHERE v.id = $1`,
        [id],
      )
    ).rows[0];

  it("while one company sends a PDF bomb and a deep camt.053, another's voucher is processed and its statement imported in their usual time", async () => {
    const other = await t.another('Almindelig Drift ApS');
    await other.raw.post('/suppliers', { name: 'Papirgrossisten A/S', cvr: '87654362' });
    const account = await other.raw.post<{ data: { id: string } }>('/bank-accounts', { name: 'Drift' });
    const statement = () =>
      other.raw.call<{ data: unknown }>('POST', `/bank-accounts/${account.body.data.id}/statements`, {
        raw: camt(entry('125.00')),
        headers: { 'Content-Type': 'application/xml', ...idem().header },
      });
    const ordinary = await pdfWith('Faktura\nCVR 87 65 43 62\nDato 03.11.2026');
    await processVouchers(); // what earlier tests left (a received e-invoice's voucher)
    // The usual time: the other company's voucher and statement alone.
    let started = Date.now();
    const alone = await voucher(other.raw, 'alene.pdf', ordinary);
    expect(await processVouchers()).toBe(1);
    expect((await statement()).status).toBe(201);
    const usual = Date.now() - started;
    expect(await state(alone)).toMatchObject({ status: 'completed', vendor: 'Papirgrossisten A/S', failure: '' });

    // A bomb: 512 MiB of page content compressed into about 0.5 MB.
    const bombId = await voucher(t.raw, 'bombe.pdf', bomb(512 * MiB));
    const theirs = await voucher(other.raw, 'kvittering.pdf', ordinary);
    started = Date.now();
    const deep = camt(`<Ntry>${'<AddtlNtryInf>'.repeat(30_000)}${'</AddtlNtryInf>'.repeat(30_000)}</Ntry>`);
    const [processed, refused, imported] = await Promise.all([processVouchers(), send(statements(), 'application/xml', [deep]), statement()]);
    const took = Date.now() - started;
    expect([processed, refused.status, imported.status]).toEqual([2, 400, 201]);
    expect(await state(theirs)).toMatchObject({ status: 'completed', vendor: 'Papirgrossisten A/S' });
    // The bomb is read once, refused by its bound, and completes with the reason kept: the queue moves on.
    expect(await state(bombId)).toMatchObject({
      status: 'completed',
      processing_attempts: 1,
      failure: expect.stringMatching(/^the document was not read: its compressed streams inflate to more than \d+ MB \(100 times its size/),
    });
    expect(took, `usual ${usual} ms`).toBeLessThan(Math.max(3 * usual, usual + 5_000));
    expect(await processVouchers()).toBe(0);
  }, 120_000);

  it("automatic matching's sweep lets the companies take turns: one company's older lines do not keep another's waiting", async () => {
    const other = await t.another('Ventende Linjer ApS');
    const account = await other.raw.post<{ data: { id: string } }>('/bank-accounts', { name: 'Drift' });
    const rows = Array.from({ length: 30 }, (_, i) => `${String(i + 1).padStart(2, '0')}-01-2026;Indbetaling ${i + 1};1,00;${1001 + i},00;;\n`);
    const ours = await send(statements(), 'text/csv', ['Dato;Tekst;Beløb;Saldo;Status;Afstemt\n', ...rows]);
    expect(ours.status, JSON.stringify(ours.body)).toBe(201);
    const theirs = await other.raw.call('POST', `/bank-accounts/${account.body.data.id}/statements`, {
      raw: 'Dato;Tekst;Beløb;Saldo;Status;Afstemt\n02-03-2026;Kontant;125,00;1.125,00;;\n',
      headers: { 'Content-Type': 'text/csv', ...idem().header },
    });
    expect(theirs.status, theirs.text).toBe(201);
    // As if nothing had looked at them yet (the import's own matching did): the sweep finds both companies' lines.
    const companies = [t.company.companyId, other.company.companyId];
    await testDb().pool.query(`UPDATE bank_lines SET checked_at = NULL, suggestions = '[]' WHERE company_id = ANY($1::uuid[])`, [companies]);
    // A round of 10 lines: by age alone, all ten would be the first company's January lines.
    await autoMatch(asSystem(inTransaction(t.svc.db), 'match-bank-lines', AUTOMATIC_MATCHING), t.svc.db.prisma, { limit: 10 });
    const { rows: seen } = await testDb().pool.query<{ company_id: string; checked: number }>(
      `SELECT company_id, count(*) FILTER (WHERE checked_at IS NOT NULL)::int AS checked FROM bank_lines WHERE company_id = ANY($1::uuid[]) GROUP BY company_id`,
      [companies],
    );
    expect(Object.fromEntries(seen.map((r) => [r.company_id, r.checked]))[other.company.companyId]).toBe(1);
  });

  it("a company imports one SAF-T file at a time, so its files hold one place in the import queue; another company's file is taken meanwhile", async () => {
    const [first, second] = await Promise.all([newCompany('Mange Filer ApS', '12345704'), newCompany('Én Fil ApS', '12345704')]);
    const [many, one] = await Promise.all([newKey(t.svc.url, first), newKey(t.svc.url, second)]);
    const upload = (firm: typeof many, xml: string) =>
      firm.raw.call<{ data: { id: string; status: string } }>('POST', '/imports/saft', {
        raw: xml,
        headers: { 'Content-Type': 'application/xml', ...idem().header },
      });
    // The first file is refused by the job (a DOCTYPE), so that the company's books stay empty for the next.
    const refusedByJob = SAFT.replace('<AuditFile', '<!DOCTYPE AuditFile>\n<AuditFile');
    const queued = await upload(many, refusedByJob);
    expect([queued.status, queued.body.data.status], queued.text).toEqual([202, 'queued']);
    const another = SAFT.replace('<Description>Kassekladde</Description>', '<Description>Kassekladde 2</Description>');
    const refused = await upload(many, another);
    expect([refused.status, refused.body], refused.text).toMatchObject([409, { code: 'conflict', field: 'body' }]);
    expect((refused.body as unknown as { detail: string }).detail).toContain(`import ${queued.body.data.id} is queued: a company imports one file at a time`);
    // The same file again is still that import, and another company's file is taken.
    expect((await upload(many, refusedByJob)).body.data.id).toBe(queued.body.data.id);
    const theirs = await upload(one, SAFT);
    expect(theirs.status).toBe(202);
    // Once the import has ended, the company's next file is taken.
    expect(await runSaftImport(testDb(), queued.body.data.id)).toMatchObject({ status: 'failed' });
    const next = await upload(many, another);
    expect(next.status).toBe(202);
    // Nothing left queued for another file's worker.
    await testDb().pool.query(`DELETE FROM imports WHERE id = ANY($1::uuid[])`, [[theirs.body.data.id, next.body.data.id]]);
  });

  it('a document whose storage fails is retried alone, the others complete; after the last attempt it completes with the reason', async () => {
    await processVouchers();
    const broken = await voucher(t.raw, 'væk.pdf', await pdfWith('Faktura'));
    const fine = await voucher(t.raw, 'her.pdf', await pdfWith('Faktura'));
    const { rows } = await testDb().pool.query<{ storage_key: string }>(`SELECT storage_key FROM vouchers WHERE id = $1`, [broken]);
    await rm(join(t.svc.storageDir!, rows[0]!.storage_key));
    expect(await processVouchers()).toBe(1);
    expect(await state(fine)).toMatchObject({ status: 'completed' });
    expect(await state(broken)).toMatchObject({ status: 'pending', processing_attempts: 1 });
    for (let i = 2; i <= MAX_PROCESSING_ATTEMPTS; i++) await processVouchers();
    expect(await state(broken)).toMatchObject({
      status: 'completed',
      processing_attempts: MAX_PROCESSING_ATTEMPTS,
      failure: expect.stringMatching(new RegExp(`^the document was not read in ${MAX_PROCESSING_ATTEMPTS} attempts; the last: `)),
    });
  });
});
