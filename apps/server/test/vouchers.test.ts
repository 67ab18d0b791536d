// Vouchers (bilag) and expenses through HTTP against PostgreSQL and the filesystem store. Contract:
// Resources > Voucher, Expense; Voucher endpoints ("Upload body", "Upload failures", "Delete refusals");
// Limits ("Voucher size: at most 10 MB decoded", "Voucher retention: five years from the end of the
// financial year concerned"); Events (voucher.created carries id and filename; voucher.deleted id).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import PDFDocument from 'pdfkit';
import { describe, expect, it } from 'vitest';
import { createCaller } from '@tlr/api';
import { addDays, today, type Scope } from '@tlr/domain';
import { bodyOf, countRows, idem, ok, testDb, useCompany, type Api, type CompanyFixture } from './helpers.ts';
import { operationOf, servedDocument } from './openapi-document.ts';

const t = useCompany({ name: 'Bilagsfirma ApS' });
const day = (offset = 0) => addDays(today(), offset);
const year = Number(day().slice(0, 4));
/** Clients of a new key of the company: each test its own, so no test runs into another's rate limit. */
const keyed = (scopes?: readonly Scope[], mode?: 'live' | 'test') => t.newKey(scopes, mode);
const b64 = (s: string | Buffer) => Buffer.from(s).toString('base64');
const ops = () => createCaller(t.svc.db, { type: 'operator' }, { store: t.svc.store! }).internal;
const path = (id: string) => ({ params: { path: { id } } });

type Upload = { filename: string; content_base64: string; mime_type?: string };
const upload = (c: Api, body: Upload, key?: string) => c.POST('/vouchers', { params: idem(key), body });
/** The id of a new voucher. */
const uploaded = async (c: Api, body: Upload) => (await ok(upload(c, body))).data.id;

/** An upload the document refuses (a malformed body, a wrong type, a missing field): through the untyped client. */
const uploadRaw = (c: CompanyFixture['raw'], body: object | string, headers: Record<string, string> = {}) =>
  c.call('POST', '/vouchers', {
    ...(typeof body === 'string' ? { raw: body } : { body }),
    headers: { 'Content-Type': 'application/json', ...idem().header, ...headers },
  });

/** A voucher's stored bytes. */
const content = (c: Api, id: string) => c.GET('/vouchers/{id}/content', { ...path(id), parseAs: 'arrayBuffer' });

function pdfWith(text: string): Promise<Buffer> {
  const doc = new PDFDocument();
  const parts: Buffer[] = [];
  doc.on('data', (b: Buffer) => parts.push(b));
  const done = new Promise<Buffer>((r) => doc.on('end', () => r(Buffer.concat(parts))));
  doc.text(text);
  doc.end();
  return done;
}

/** The number of this company's vouchers named `filename`. */
async function vouchersNamed(filename: string) {
  const { rows } = await testDb().pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM vouchers WHERE company_id = $1 AND filename = $2`, [
    t.company.companyId,
    filename,
  ]);
  return rows[0]?.n;
}

describe('POST /vouchers', () => {
  it('stores the document and answers exactly id, filename, mime_type, file_size, status pending; a replay creates nothing', async () => {
    const { api: c } = await keyed();
    const key = `v-${crypto.randomUUID()}`;
    const body = { filename: 'Kvittering æøå.pdf', content_base64: b64('%PDF-1.4 hej'), mime_type: 'application/pdf' };
    const r = await upload(c, body, key);
    const voucher = bodyOf(201, r).data;
    expect(Object.keys(voucher).sort()).toEqual(['file_size', 'filename', 'id', 'mime_type', 'status']);
    expect(voucher).toMatchObject({ filename: 'Kvittering æøå.pdf', mime_type: 'application/pdf', file_size: 12, status: 'pending' });
    const again = await upload(c, body, key);
    expect(again.response.status).toBe(201);
    expect(again.response.headers.get('x-idempotency-replayed')).toBe('true');
    expect(again.data).toEqual(r.data);
    expect(await vouchersNamed('Kvittering æøå.pdf')).toBe(1);
    const events = await testDb().prisma.outboxEvent.findMany({
      where: { company_id: t.company.companyId, type: 'voucher.created', data: { path: ['id'], equals: voucher.id } },
    });
    expect(events.map((e) => e.data)).toEqual([{ id: voucher.id, filename: 'Kvittering æøå.pdf' }]);
  });

  it('defaults mime_type to application/octet-stream and trims whitespace around the base64', async () => {
    const r = await upload((await keyed()).api, { filename: 'a.bin', content_base64: ` \n${b64('abc')}\r\n ` });
    expect(bodyOf(201, r).data).toMatchObject({ mime_type: 'application/octet-stream', file_size: 3 });
  });

  it('refuses every broken upload with 400 invalid_request naming the field and the rule', async () => {
    const { raw } = await keyed();
    const cases: [object | string, string, RegExp][] = [
      [{ content_base64: b64('x') }, 'filename', /required/],
      [{ filename: '   ', content_base64: b64('x') }, 'filename', /blank/],
      [{ filename: 'a.pdf' }, 'content_base64', /required/],
      [{ filename: 'a.pdf', content_base64: '' }, 'content_base64', /empty/],
      [{ filename: 'a.pdf', content_base64: '   ' }, 'content_base64', /empty/],
      [{ filename: 'a.pdf', content_base64: 'a-_q' }, 'content_base64', /base64url/],
      [{ filename: 'a.pdf', content_base64: `${b64('hello world')}\n${b64('hello world')}` }, 'content_base64', /line breaks/],
      [{ filename: 'a.pdf', content_base64: 'aGVsbG8' }, 'content_base64', /multiple of 4/],
      [{ filename: 'a.pdf', content_base64: 'aGVs!G8=' }, 'content_base64', /alphabet/],
      [{ filename: 'a.pdf', content_base64: 5 }, 'content_base64', /must be a string/],
      [{ filename: 'a.pdf', content_base64: b64('x'), mime_type: 'pdf' }, 'mime_type', /MIME type/],
      [{ filename: 'a.pdf', content_base64: b64('x'), size: 1 }, 'size', /not a field/],
      ['[1]', 'body', /JSON object/],
      ['{"filename":"a.pdf",', 'body', /not valid JSON/],
      ['', 'body', /empty/],
    ];
    for (const [body, field, rule] of cases) {
      const r = await uploadRaw(raw, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(r.body, JSON.stringify(body)).toMatchObject({ code: 'invalid_request', field });
      expect(r.body.detail, JSON.stringify(body)).toMatch(rule);
    }
    const wrongType = await uploadRaw(raw, JSON.stringify({ filename: 'a', content_base64: 'eA==' }), { 'Content-Type': 'text/plain' });
    expect(wrongType.status).toBe(415);
    const noKey = await raw.call('POST', '/vouchers', { body: { filename: 'a', content_base64: 'eA==' } });
    expect(noKey.status).toBe(400);
    expect(noKey.body.field).toBe('Idempotency-Key');
    expect(await vouchersNamed('a.pdf')).toBe(0);
  });

  it('refuses a file name with an invisible character, naming filename, the character and its position, and stores nothing (decision 178)', async () => {
    const fresh = await t.another('Navnefirma ApS');
    const cases: [string, string][] = [
      // Shown as "fakturaexe.pdf" by anything that honours the right-to-left override.
      ['faktura\u202Efdp.exe', 'U+202E (character 8)'],
      ['bilag\u200B.pdf', 'U+200B (character 6)'],
    ];
    for (const [filename, named] of cases) {
      const r = await upload(fresh.api, { filename, content_base64: b64('<html><script>alert(1)</script></html>'), mime_type: 'text/html' });
      expect(r.response.status, filename).toBe(400);
      expect(r.response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(r.error, filename).toMatchObject({ code: 'invalid_request', field: 'filename' });
      expect(r.error?.detail, filename).toBe(
        `filename: must not contain the invisible character ${named}: format characters such as bidirectional controls and zero-width spaces, and line or paragraph separators, can make a name read as another`,
      );
    }
    // The company has no voucher at all, and nothing of it reached the store.
    expect((await ok(fresh.api.GET('/vouchers'))).data).toEqual([]);
    expect(await countRows('SELECT count(*)::int AS n FROM vouchers WHERE company_id = $1', [fresh.company.companyId])).toBe(0);
    expect(await countRows('SELECT count(*)::int AS n FROM stored_object_intents WHERE company_id = $1', [fresh.company.companyId])).toBe(0);
    expect(existsSync(join(t.svc.storageDir!, fresh.company.companyId))).toBe(false);
  });

  it('accepts 10,000,000 bytes and refuses 10 MiB + 1 byte', async () => {
    const { api: c } = await keyed();
    const big = await upload(c, { filename: 'stor.bin', content_base64: Buffer.alloc(10_000_000, 65).toString('base64') });
    expect(bodyOf(201, big).data.file_size).toBe(10_000_000);
    const over = await upload(c, { filename: 'for-stor.bin', content_base64: Buffer.alloc(10 * 1024 * 1024 + 1, 66).toString('base64') });
    expect(over.response.status).toBe(400);
    expect(over.error).toMatchObject({ code: 'invalid_request', field: 'content_base64' });
    expect(over.error?.detail).toMatch(/10 MB/);
  });

  it('needs both vouchers:read and vouchers:write', async () => {
    for (const scopes of [['vouchers:read'], ['vouchers:write']] as const) {
      const { api: c } = await keyed(scopes);
      expect((await upload(c, { filename: 'a.txt', content_base64: b64('x') })).response.status).toBe(403);
      expect((await c.GET('/vouchers')).response.status).toBe(403);
    }
  });
});

describe('GET /vouchers, /vouchers/{id}, /vouchers/{id}/content', () => {
  it('shows a voucher with "" for unset references and dates, never null', async () => {
    const { api: c } = await keyed();
    const id = await uploaded(c, { filename: 'faktura.txt', content_base64: b64('Faktura'), mime_type: 'text/plain' });
    const got = (await ok(c.GET('/vouchers/{id}', path(id)))).data;
    expect(got).toEqual({
      id,
      filename: 'faktura.txt',
      mime_type: 'text/plain',
      file_size: 7,
      status: 'pending',
      expense_id: '',
      transaction_id: '',
      uploaded_at: expect.any(String),
      retention_until: '',
      // The control trail: who uploaded it, and when by the database clock.
      registered_at: expect.any(String),
      registered_by: { type: 'api_key', id: expect.any(String), name: expect.any(String) },
    });
    expect(new Date(got.uploaded_at).toISOString()).toBe(got.uploaded_at);
    const list = await ok(c.GET('/vouchers', { params: { query: { search: 'faktura.txt' } } }));
    expect(list.data).toEqual([got]);
  });

  it('downloads the exact bytes with the mime type and an RFC 6266 attachment name', async () => {
    const { api: c } = await keyed();
    const bytes = Buffer.from(Array.from({ length: 3000 }, (_, i) => i % 256));
    const id = await uploaded(c, { filename: 'Kvittering æøå.pdf', content_base64: bytes.toString('base64'), mime_type: 'application/pdf' });
    const res = await content(c, id);
    expect(res.response.status).toBe(200);
    expect(res.response.headers.get('content-type')).toBe('application/pdf');
    expect(res.response.headers.get('content-disposition')).toBe(
      `attachment; filename="Kvittering __a.pdf"; filename*=UTF-8''Kvittering%20%C3%A6%C3%B8%C3%A5.pdf`,
    );
    expect(res.response.headers.get('content-length')).toBe('3000');
    expect(Buffer.from(bodyOf(200, res))).toEqual(bytes);
    expect((await content(c, crypto.randomUUID())).response.status).toBe(404);
  });

  it('a name stored before decision 178 keeps its metadata, and its download shows no invisible character', async () => {
    const { api: c } = await keyed();
    const id = await uploaded(c, { filename: 'faktura.pdf', content_base64: b64('%PDF-1.4'), mime_type: 'application/pdf' });
    // As a voucher stored before the rule has it.
    await testDb().pool.query(`UPDATE vouchers SET filename = $2 WHERE id = $1`, [id, 'faktura\u202Efdp.exe\u200B']);
    expect((await ok(c.GET('/vouchers/{id}', path(id)))).data.filename).toBe('faktura\u202Efdp.exe\u200B');
    const res = await content(c, id);
    expect(res.response.status).toBe(200);
    expect(res.response.headers.get('content-disposition')).toBe(`attachment; filename="faktura_fdp.exe_"; filename*=UTF-8''faktura_fdp.exe_`);
    expect(Buffer.from(bodyOf(200, res)).toString()).toBe('%PDF-1.4');
  });

  it('every download (voucher, invoice PDF, SAF-T) carries Content-Security-Policy: sandbox (decision 179)', async () => {
    const { api: c } = await keyed();
    const id = await uploaded(c, {
      filename: 'side.svg',
      content_base64: b64('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'),
      mime_type: 'image/svg+xml',
    });
    const voucher = await content(c, id);
    expect(voucher.response.status).toBe(200);
    expect(voucher.response.headers.get('content-type')).toBe('image/svg+xml');
    const customer = (await ok(c.POST('/customers', { params: idem(), body: { name: 'Sandkasse Kunde ApS' } }))).data.id;
    const invoice = await ok(
      c.POST('/invoices', {
        params: idem(),
        body: { customer_id: customer, issue_date: day(), due_date: day(14), lines: [{ description: 'Arbejde', quantity: 1, unit_price: 100 }] },
      }),
    );
    const pdf = await c.GET('/invoices/{id}/pdf', { params: { path: { id: invoice.data.id } }, parseAs: 'arrayBuffer' });
    expect(pdf.response.status).toBe(200);
    const saft = await c.GET('/exports/saft', { parseAs: 'text' });
    expect(saft.response.status).toBe(200);
    for (const r of [voucher, pdf, saft]) expect(r.response.headers.get('content-security-policy'), r.response.url).toBe('sandbox');
    // The document declares it on each of them.
    const doc = await servedDocument(t.svc.url);
    for (const op of ['/vouchers/{id}/content', '/invoices/{id}/pdf', '/exports/saft'])
      expect(operationOf(doc, op, 'get').responses['200']?.headers?.['Content-Security-Policy'], op).toMatchObject({
        description: expect.stringMatching(/^sandbox: /),
      });
  });

  it('refuses a download whose stored bytes no longer match their SHA-256 (cut short, never passed as whole)', async () => {
    const { api: c } = await keyed();
    const id = await uploaded(c, { filename: 'x.txt', content_base64: b64('original content') });
    await testDb().pool.query(`UPDATE vouchers SET sha256 = repeat('0', 64) WHERE id = $1`, [id]);
    // Small bodies are held whole before the check, so the connection may drop before the headers.
    const outcome = await content(c, id).then(
      () => 'whole',
      () => 'cut',
    );
    expect(outcome).toBe('cut');
    await testDb().pool.query(`UPDATE vouchers SET sha256 = encode(sha256(convert_to('original content', 'UTF8')), 'hex') WHERE id = $1`, [id]);
    expect(Buffer.from(await ok(content(c, id))).toString()).toBe('original content');
  });

  it('sorts by upload_date (default), original_filename and file_size; filters by status; hides other companies', async () => {
    const other = await t.another('Anden ApS');
    for (const [name, size] of [
      ['b.txt', 3],
      ['a.txt', 1],
      ['c.txt', 2],
    ] as const)
      await uploaded(other.api, { filename: name, content_base64: b64('x'.repeat(size)) });
    type Query = { sort?: 'original_filename' | 'file_size'; order?: 'asc' | 'desc'; status?: 'completed' };
    const names = async (query: Query) => (await ok(other.api.GET('/vouchers', { params: { query } }))).data.map((v) => v.filename);
    expect(await names({})).toEqual(['c.txt', 'a.txt', 'b.txt']); // newest first
    expect(await names({ sort: 'original_filename', order: 'asc' })).toEqual(['a.txt', 'b.txt', 'c.txt']);
    expect(await names({ sort: 'file_size', order: 'desc' })).toEqual(['b.txt', 'c.txt', 'a.txt']);
    expect(await names({ status: 'completed' })).toEqual([]);
    // A status the document does not know: the untyped client.
    expect((await other.raw.get('/vouchers?status=done')).status).toBe(400);
    expect((await ok((await keyed()).api.GET('/vouchers', { params: { query: { search: 'b.txt' } } }))).data).toEqual([]);
  });
});

describe('processing', () => {
  it('completes pending vouchers, finds the supplier by CVR in a PDF, and makes it searchable', async () => {
    const { api: c } = await t.another('Proces ApS');
    await ok(c.POST('/suppliers', { params: idem(), body: { name: 'Papirgrossisten A/S', cvr: '87654362' } }));
    const pdf = await pdfWith('Faktura\nCVR 87 65 43 62\nDato 03.11.2026\nKopipapir 500 ark  245,00 kr');
    const id = await uploaded(c, { filename: 'scan-0042.pdf', content_base64: pdf.toString('base64'), mime_type: 'application/pdf' });
    const blank = await uploaded(c, { filename: 'billede.jpg', content_base64: b64('\xff\xd8\xff not really a jpeg'), mime_type: 'image/jpeg' });
    // A day the calendar refuses is no date of the document's (JavaScript would read it as 3 March).
    const impossible = (await pdfWith('Faktura\nDato 31.02.2026')).toString('base64');
    const noDate = await uploaded(c, { filename: 'scan-0043.pdf', content_base64: impossible, mime_type: 'application/pdf' });
    expect((await ops().processVouchers({})).completed).toBeGreaterThanOrEqual(3);
    expect((await ok(c.GET('/vouchers/{id}', path(id)))).data.status).toBe('completed');
    expect((await ok(c.GET('/vouchers/{id}', path(blank)))).data.status).toBe('completed');
    expect((await ok(c.GET('/vouchers', { params: { query: { search: 'papirgrossisten' } } }))).data.map((v) => v.id)).toEqual([id]);
    const { rows } = await testDb().pool.query(`SELECT display_name, vendor FROM vouchers WHERE id = $1`, [id]);
    expect(rows[0]).toEqual({ display_name: 'Papirgrossisten A/S 2026-11-03', vendor: 'Papirgrossisten A/S' });
    const undated = await testDb().pool.query(`SELECT display_name FROM vouchers WHERE id = $1`, [noDate]);
    expect(undated.rows[0]).toEqual({ display_name: 'scan-0043' });
  });
});

describe('attachment, retention and deletion', () => {
  it('deletes an unattached voucher and its stored object; voucher.deleted carries the id', async () => {
    const { api: c } = await keyed();
    const id = await uploaded(c, { filename: 'slet.pdf', content_base64: b64('x') });
    const { rows } = await testDb().pool.query<{ storage_key: string }>(`SELECT storage_key FROM vouchers WHERE id = $1`, [id]);
    const storageKey = rows[0]?.storage_key ?? '';
    const file = join(t.svc.storageDir!, storageKey);
    expect(storageKey).toBe(`${t.company.companyId}/${id}.pdf`);
    expect(existsSync(file)).toBe(true);
    const del = await c.DELETE('/vouchers/{id}', path(id));
    expect(del.response.status).toBe(200);
    expect(del.data).toEqual({ data: { id, deleted: true } });
    expect(existsSync(file)).toBe(false);
    expect((await c.GET('/vouchers/{id}', path(id))).response.status).toBe(404);
    const events = await testDb().prisma.outboxEvent.findMany({
      where: { company_id: t.company.companyId, type: 'voucher.deleted', data: { path: ['id'], equals: id } },
    });
    expect(events.map((e) => e.data)).toEqual([{ id }]);
  });

  it('attaches to an expense (expense_id), refuses deleting it, and frees it when the draft expense goes', async () => {
    const { api: c } = await keyed();
    const id = await uploaded(c, { filename: 'bilag.pdf', content_base64: b64('x') });
    const exp = await c.POST('/expenses', {
      params: idem(),
      body: { voucher_id: id, date: day(), description: 'Kontorartikler', amount: 125, vat_amount: 25 },
    });
    const expense = bodyOf(201, exp).data;
    expect((await ok(c.GET('/vouchers/{id}', path(id)))).data.expense_id).toBe(expense.id);
    const refused = await c.DELETE('/vouchers/{id}', path(id));
    expect(refused.response.status).toBe(400);
    expect(refused.error).toMatchObject({ code: 'invalid_request', field: 'expense_id' });
    const twice = await c.POST('/expenses', { params: idem(), body: { voucher_id: id, date: day(), amount: 10 } });
    expect(twice.response.status).toBe(400);
    expect(twice.error?.field).toBe('voucher_id');
    expect((await c.DELETE('/expenses/{id}', path(expense.id))).response.status).toBe(200);
    expect((await ok(c.GET('/vouchers/{id}', path(id)))).data.expense_id).toBe('');
  });

  it("refuses another company's voucher and a sandbox voucher on a live expense, creating nothing", async () => {
    const { api: c } = await keyed();
    const other = await t.another('Fremmed ApS');
    const foreign = await uploaded(other.api, { filename: 'f.pdf', content_base64: b64('x') });
    const sandbox = await uploaded((await keyed(undefined, 'test')).api, { filename: 's.pdf', content_base64: b64('x') });
    for (const voucher of [foreign, sandbox]) {
      const before = await testDb().prisma.expense.count({ where: { company_id: t.company.companyId } });
      const r = await c.POST('/expenses', { params: idem(), body: { voucher_id: voucher, date: day(), amount: 100, description: 'fremmed' } });
      expect(r.response.status).toBe(400);
      expect(r.error).toMatchObject({ code: 'invalid_request', field: 'voucher_id' });
      expect(await testDb().prisma.expense.count({ where: { company_id: t.company.companyId } })).toBe(before);
      const posting = await c.POST('/transactions', {
        params: idem(),
        body: {
          date: day(),
          voucher_id: voucher,
          lines: [
            { account_number: '2810', debit: 1 },
            { account_number: '6470', credit: 1 },
          ],
        },
      });
      expect(posting.response.status).toBe(400);
      expect(posting.error?.field).toBe('voucher_id');
    }
    expect((await testDb().pool.query(`SELECT expense_id, transaction_id FROM vouchers WHERE id = ANY($1)`, [[foreign, sandbox]])).rows).toEqual([
      { expense_id: null, transaction_id: null },
      { expense_id: null, transaction_id: null },
    ]);
  });

  it('a voucher that documents a posting records transaction_id and is kept five years after the end of the financial year', async () => {
    const { api: c } = await keyed();
    const id = await uploaded(c, { filename: 'husleje.pdf', content_base64: b64('x') });
    const r = await c.POST('/transactions', {
      params: idem(),
      body: {
        date: day(),
        description: 'Husleje',
        voucher_id: id,
        lines: [
          { account_number: '2030', debit: 8000 },
          { account_number: '6470', credit: 8000 },
        ],
      },
    });
    const posting = bodyOf(201, r).data;
    expect(posting.voucher_id).toBe(id);
    const v = (await ok(c.GET('/vouchers/{id}', path(id)))).data;
    expect(v).toMatchObject({ transaction_id: posting.id, retention_until: `${year + 5}-12-31` });
    const refused = await c.DELETE('/vouchers/{id}', path(id));
    expect(refused.response.status).toBe(400);
    expect(refused.error?.field).toBe('transaction_id');
    // Under retention alone (the link cleared by hand here), still refused.
    await testDb().pool.query(`UPDATE vouchers SET transaction_id = NULL WHERE id = $1`, [id]);
    const kept = await c.DELETE('/vouchers/{id}', path(id));
    expect(kept.response.status).toBe(400);
    expect(kept.error?.field).toBe('retention_until');
  });
});

describe('expenses', () => {
  /** The posting an expense names (posted_transaction_id, payment_transaction_id); none fails the test. */
  async function postingOf(c: Api, id: string | null) {
    if (id === null) throw new Error('expected the id of a posting, got null');
    return (await ok(c.GET('/transactions/{id}', path(id)))).data;
  }

  it('creates a draft, validates VAT against the amount, books with a posting and retention, pays and refuses edits', async () => {
    const { api: c } = await keyed();
    const supplier = (await ok(c.POST('/suppliers', { params: idem(), body: { name: 'Kontorland ApS' } }))).data.id;
    const voucher = await uploaded(c, { filename: 'kontor.pdf', content_base64: b64('x') });
    const tooMuchVat = await c.POST('/expenses', { params: idem(), body: { supplier_id: supplier, date: day(), amount: 125, vat_amount: 25.01 } });
    expect(tooMuchVat.response.status).toBe(400);
    expect(tooMuchVat.error?.field).toBe('vat_amount');
    const draft = await c.POST('/expenses', {
      params: idem(),
      body: {
        supplier_id: supplier,
        voucher_id: voucher,
        date: day(),
        due_date: day(30),
        description: 'Kontorartikler',
        amount: 1250,
        vat_amount: 250,
        account_number: '2450',
      },
    });
    const expense = bodyOf(201, draft).data;
    expect(expense).toMatchObject({
      status: 'draft',
      amount: 1250,
      vat_amount: 250,
      net_amount: 1000,
      account_number: '2450',
      supplier_id: supplier,
      voucher_id: voucher,
      posted_transaction_id: null,
    });
    const id = expense.id;
    const described = await ok(c.PUT('/expenses/{id}', { ...path(id), body: { description: 'Kontorartikler, november' } }));
    expect(described.data.description).toBe('Kontorartikler, november');

    const booked = bodyOf(200, await c.PUT('/expenses/{id}/status', { ...path(id), body: { status: 'booked' } })).data;
    const posting = await postingOf(c, booked.posted_transaction_id);
    expect(posting.lines.map((l) => [l.account_number, l.debit, l.credit, l.vat_code])).toEqual([
      ['2450', 1000, 0, 'K25'],
      ['7740', 250, 0, 'K25'],
      ['7440', 0, 1250, ''],
    ]);
    expect(posting).toMatchObject({ voucher_id: voucher, date: day() });
    expect((await ok(c.GET('/vouchers/{id}', path(voucher)))).data).toMatchObject({
      expense_id: id,
      transaction_id: posting.id,
      retention_until: `${year + 5}-12-31`,
    });

    for (const r of [await c.PUT('/expenses/{id}', { ...path(id), body: { amount: 1 } }), await c.DELETE('/expenses/{id}', path(id))]) {
      expect(r.response.status).toBe(409);
      expect(r.error).toMatchObject({ code: 'expense_not_draft', current_status: 'booked' });
    }
    const paid = (await ok(c.PUT('/expenses/{id}/status', { ...path(id), body: { status: 'paid', date: day() } }))).data;
    expect(paid).toMatchObject({ status: 'paid', paid_date: day() });
    const payment = await postingOf(c, paid.payment_transaction_id);
    expect(payment.lines.map((l) => [l.account_number, l.debit, l.credit])).toEqual([
      ['7440', 1250, 0],
      ['6470', 0, 1250],
    ]);
    const again = await c.PUT('/expenses/{id}/status', { ...path(id), body: { status: 'cancelled' } });
    expect(again.response.status).toBe(409);
    expect(again.error).toMatchObject({ code: 'invalid_transition', current_status: 'paid', allowed_statuses: [] });
  });

  it('books at once with book: true, and cancelling reverses the posting', async () => {
    const { api: c } = await keyed();
    const r = await c.POST('/expenses', { params: idem(), body: { date: day(), description: 'Taxa', amount: 200, vat_amount: 0, book: true } });
    const expense = bodyOf(201, r).data;
    expect(expense.status).toBe('booked');
    const cancelled = await c.PUT('/expenses/{id}/status', { ...path(expense.id), body: { status: 'cancelled' } });
    expect(cancelled.data?.data.status).toBe('cancelled');
    const original = await postingOf(c, expense.posted_transaction_id);
    expect(original.reversed_by_transaction_id).toEqual(expect.any(String));
    const events = await testDb().prisma.outboxEvent.findMany({
      where: { company_id: t.company.companyId, data: { path: ['id'], equals: expense.id } },
      orderBy: { created_at: 'asc' },
    });
    expect(events.map((e) => [e.type, e.data])).toEqual([
      ['expense.created', expect.objectContaining({ status: 'draft' })],
      ['expense.updated', expect.objectContaining({ status: 'booked' })],
      ['expense.updated', expect.objectContaining({ status: 'cancelled' })],
    ]);
  });

  it('lists with sort created_at, date, amount and the status filter', async () => {
    const { api: c, raw } = await t.another('Udgiftsliste ApS');
    for (const [date, amount] of [
      [day(-2), 300],
      [day(-5), 100],
      [day(-1), 200],
    ] as const)
      await ok(c.POST('/expenses', { params: idem(), body: { date, amount } }));
    type Query = { sort?: 'date' | 'amount'; order?: 'asc' | 'desc'; status?: 'booked' };
    const amounts = async (query: Query) => (await ok(c.GET('/expenses', { params: { query } }))).data.map((e) => e.amount);
    expect(await amounts({})).toEqual([200, 100, 300]);
    expect(await amounts({ sort: 'date', order: 'asc' })).toEqual([100, 300, 200]);
    expect(await amounts({ sort: 'amount', order: 'desc' })).toEqual([300, 200, 100]);
    expect(await amounts({ status: 'booked' })).toEqual([]);
    // A sort field the document does not allow: the untyped client.
    expect((await raw.get('/expenses?sort=vendor')).status).toBe(400);
  });
});
