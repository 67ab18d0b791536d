// Vouchers (bilag) and expenses through HTTP against PostgreSQL and the filesystem store. Contract:
// Resources > Voucher, Expense; Voucher endpoints ("Upload body", "Upload failures", "Delete refusals");
// Limits ("Voucher size: at most 10 MB decoded", "Voucher retention: five years from the end of the
// financial year concerned"); Events (voucher.created carries id and filename; voucher.deleted id).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import PDFDocument from 'pdfkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCaller } from '@tlr/api';
import { addDays, today } from '@tlr/domain';
import { client, newCompany, startTestService, testDb } from './helpers.ts';
import type { Service } from '../src/service.ts';

let svc: Service;
let company: Awaited<ReturnType<typeof newCompany>>;
const day = (offset = 0) => addDays(today(), offset);
const year = Number(day().slice(0, 4));
const api = async (scopes?: Parameters<typeof company.key>[0], mode?: 'live' | 'test') => client(svc.url, (await company.key(scopes, mode)).key);
const b64 = (s: string | Buffer) => Buffer.from(s).toString('base64');
const ops = () => createCaller(svc.db, { type: 'operator' }, { store: svc.store! }).internal;

async function upload(c: Awaited<ReturnType<typeof api>>, body: object | string, headers: Record<string, string> = {}) {
  return c.call('POST', '/vouchers', {
    ...(typeof body === 'string' ? { raw: body } : { body }),
    headers: { 'Content-Type': 'application/json', 'Idempotency-Key': `v-${crypto.randomUUID()}`, ...headers },
  });
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

beforeAll(async () => {
  svc = await startTestService();
  company = await newCompany('Bilagsfirma ApS');
});
afterAll(() => svc?.stop());

describe('POST /vouchers', () => {
  it('stores the document and answers exactly id, filename, mime_type, file_size, status pending; a replay creates nothing', async () => {
    const c = await api();
    const key = `v-${crypto.randomUUID()}`;
    const r = await upload(
      c,
      { filename: 'Kvittering æøå.pdf', content_base64: b64('%PDF-1.4 hej'), mime_type: 'application/pdf' },
      { 'Idempotency-Key': key },
    );
    expect(r.status).toBe(201);
    expect(Object.keys(r.body.data).sort()).toEqual(['file_size', 'filename', 'id', 'mime_type', 'status']);
    expect(r.body.data).toMatchObject({ filename: 'Kvittering æøå.pdf', mime_type: 'application/pdf', file_size: 12, status: 'pending' });
    const again = await upload(
      c,
      { filename: 'Kvittering æøå.pdf', content_base64: b64('%PDF-1.4 hej'), mime_type: 'application/pdf' },
      { 'Idempotency-Key': key },
    );
    expect(again.status).toBe(201);
    expect(again.headers.get('x-idempotency-replayed')).toBe('true');
    expect(again.body).toEqual(r.body);
    const { rows } = await testDb().pool.query(`SELECT count(*)::int AS n FROM vouchers WHERE company_id = $1 AND filename = 'Kvittering æøå.pdf'`, [
      company.companyId,
    ]);
    expect(rows[0].n).toBe(1);
    const events = await testDb().prisma.outboxEvent.findMany({
      where: { company_id: company.companyId, type: 'voucher.created', data: { path: ['id'], equals: r.body.data.id } },
    });
    expect(events.map((e) => e.data)).toEqual([{ id: r.body.data.id, filename: 'Kvittering æøå.pdf' }]);
  });

  it('defaults mime_type to application/octet-stream and trims whitespace around the base64', async () => {
    const r = await upload(await api(), { filename: 'a.bin', content_base64: ` \n${b64('abc')}\r\n ` });
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({ mime_type: 'application/octet-stream', file_size: 3 });
  });

  it('refuses every broken upload with 400 invalid_request naming the field and the rule', async () => {
    const c = await api();
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
      const r = await upload(c, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(r.body, JSON.stringify(body)).toMatchObject({ code: 'invalid_request', field });
      expect(r.body.detail, JSON.stringify(body)).toMatch(rule);
    }
    const wrongType = await upload(c, JSON.stringify({ filename: 'a', content_base64: 'eA==' }), { 'Content-Type': 'text/plain' });
    expect(wrongType.status).toBe(415);
    const noKey = await c.call('POST', '/vouchers', { body: { filename: 'a', content_base64: 'eA==' } });
    expect(noKey.status).toBe(400);
    expect(noKey.body.field).toBe('Idempotency-Key');
    const { rows } = await testDb().pool.query(`SELECT count(*)::int AS n FROM vouchers WHERE company_id = $1 AND filename = 'a.pdf'`, [company.companyId]);
    expect(rows[0].n).toBe(0);
  });

  it('accepts 10,000,000 bytes and refuses 10 MiB + 1 byte', async () => {
    const c = await api();
    const big = await upload(c, { filename: 'stor.bin', content_base64: Buffer.alloc(10_000_000, 65).toString('base64') });
    expect(big.status).toBe(201);
    expect(big.body.data.file_size).toBe(10_000_000);
    const over = await upload(c, { filename: 'for-stor.bin', content_base64: Buffer.alloc(10 * 1024 * 1024 + 1, 66).toString('base64') });
    expect(over.status).toBe(400);
    expect(over.body).toMatchObject({ code: 'invalid_request', field: 'content_base64' });
    expect(over.body.detail).toMatch(/10 MB/);
  });

  it('needs both vouchers:read and vouchers:write', async () => {
    for (const scopes of [['vouchers:read'], ['vouchers:write']] as const) {
      const c = await api(scopes);
      expect((await upload(c, { filename: 'a.txt', content_base64: b64('x') })).status).toBe(403);
      expect((await c.get('/vouchers')).status).toBe(403);
    }
  });
});

describe('GET /vouchers, /vouchers/{id}, /vouchers/{id}/content', () => {
  it('shows a voucher with "" for unset references and dates, never null', async () => {
    const c = await api();
    const id = (await upload(c, { filename: 'faktura.txt', content_base64: b64('Faktura'), mime_type: 'text/plain' })).body.data.id;
    const got = (await c.get(`/vouchers/${id}`)).body.data;
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
    });
    expect(new Date(got.uploaded_at).toISOString()).toBe(got.uploaded_at);
    const list = (await c.get(`/vouchers?search=faktura.txt`)).body;
    expect(list.data).toEqual([got]);
  });

  it('downloads the exact bytes with the mime type and an RFC 6266 attachment name', async () => {
    const c = await api();
    const bytes = Buffer.from(Array.from({ length: 3000 }, (_, i) => i % 256));
    const id = (await upload(c, { filename: 'Kvittering æøå.pdf', content_base64: bytes.toString('base64'), mime_type: 'application/pdf' })).body.data.id;
    const key = (await company.key()).key;
    const res = await fetch(`${svc.url}/api/v1/vouchers/${id}/content`, { headers: { 'X-API-Key': key } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="Kvittering __a.pdf"; filename*=UTF-8''Kvittering%20%C3%A6%C3%B8%C3%A5.pdf`);
    expect(res.headers.get('content-length')).toBe('3000');
    expect(Buffer.from(await res.arrayBuffer())).toEqual(bytes);
    const missing = await fetch(`${svc.url}/api/v1/vouchers/${crypto.randomUUID()}/content`, { headers: { 'X-API-Key': key } });
    expect(missing.status).toBe(404);
  });

  it('refuses a download whose stored bytes no longer match their SHA-256 (cut short, never passed as whole)', async () => {
    const c = await api();
    const id = (await upload(c, { filename: 'x.txt', content_base64: b64('original content') })).body.data.id;
    await testDb().pool.query(`UPDATE vouchers SET sha256 = repeat('0', 64) WHERE id = $1`, [id]);
    const key = (await company.key()).key;
    // Small bodies are held whole before the check, so the connection may drop before the headers.
    const outcome = await fetch(`${svc.url}/api/v1/vouchers/${id}/content`, { headers: { 'X-API-Key': key } })
      .then((res) => res.arrayBuffer())
      .then(
        () => 'whole',
        () => 'cut',
      );
    expect(outcome).toBe('cut');
    await testDb().pool.query(`UPDATE vouchers SET sha256 = encode(sha256(convert_to('original content', 'UTF8')), 'hex') WHERE id = $1`, [id]);
    expect(Buffer.from(await (await fetch(`${svc.url}/api/v1/vouchers/${id}/content`, { headers: { 'X-API-Key': key } })).arrayBuffer()).toString()).toBe(
      'original content',
    );
  });

  it('sorts by upload_date (default), original_filename and file_size; filters by status; hides other companies', async () => {
    const other = await newCompany('Anden ApS');
    const oc = client(svc.url, (await other.key()).key);
    for (const [name, size] of [
      ['b.txt', 3],
      ['a.txt', 1],
      ['c.txt', 2],
    ] as const)
      await upload(oc, { filename: name, content_base64: b64('x'.repeat(size)) });
    const names = async (q: string) => (await oc.get(`/vouchers?${q}`)).body.data.map((v: any) => v.filename);
    expect(await names('')).toEqual(['c.txt', 'a.txt', 'b.txt']); // newest first
    expect(await names('sort=original_filename&order=asc')).toEqual(['a.txt', 'b.txt', 'c.txt']);
    expect(await names('sort=file_size&order=desc')).toEqual(['b.txt', 'c.txt', 'a.txt']);
    expect(await names('status=completed')).toEqual([]);
    expect((await oc.get('/vouchers?status=done')).status).toBe(400);
    expect((await (await api()).get('/vouchers?search=b.txt')).body.data).toEqual([]);
  });
});

describe('processing', () => {
  it('completes pending vouchers, finds the supplier by CVR in a PDF, and makes it searchable', async () => {
    const firm = await newCompany('Proces ApS');
    const c = client(svc.url, (await firm.key()).key);
    await c.post('/suppliers', { name: 'Papirgrossisten A/S', cvr: '87654362' });
    const pdf = await pdfWith('Faktura\nCVR 87 65 43 62\nDato 03.11.2026\nKopipapir 500 ark  245,00 kr');
    const id = (await upload(c, { filename: 'scan-0042.pdf', content_base64: pdf.toString('base64'), mime_type: 'application/pdf' })).body.data.id;
    const blank = (await upload(c, { filename: 'billede.jpg', content_base64: b64('\xff\xd8\xff not really a jpeg'), mime_type: 'image/jpeg' })).body.data.id;
    expect((await ops().processVouchers({})).completed).toBeGreaterThanOrEqual(2);
    expect((await c.get(`/vouchers/${id}`)).body.data.status).toBe('completed');
    expect((await c.get(`/vouchers/${blank}`)).body.data.status).toBe('completed');
    expect((await c.get('/vouchers?search=papirgrossisten')).body.data.map((v: any) => v.id)).toEqual([id]);
    const { rows } = await testDb().pool.query(`SELECT display_name, vendor FROM vouchers WHERE id = $1`, [id]);
    expect(rows[0]).toEqual({ display_name: 'Papirgrossisten A/S 2026-11-03', vendor: 'Papirgrossisten A/S' });
  });
});

describe('attachment, retention and deletion', () => {
  it('deletes an unattached voucher and its stored object; voucher.deleted carries the id', async () => {
    const c = await api();
    const id = (await upload(c, { filename: 'slet.pdf', content_base64: b64('x') })).body.data.id;
    const { rows } = await testDb().pool.query(`SELECT storage_key FROM vouchers WHERE id = $1`, [id]);
    const file = join(svc.storageDir!, rows[0].storage_key);
    expect(rows[0].storage_key).toBe(`${company.companyId}/${id}.pdf`);
    expect(existsSync(file)).toBe(true);
    const del = await c.del(`/vouchers/${id}`);
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ data: { id, deleted: true } });
    expect(existsSync(file)).toBe(false);
    expect((await c.get(`/vouchers/${id}`)).status).toBe(404);
    const events = await testDb().prisma.outboxEvent.findMany({
      where: { company_id: company.companyId, type: 'voucher.deleted', data: { path: ['id'], equals: id } },
    });
    expect(events.map((e) => e.data)).toEqual([{ id }]);
  });

  it('attaches to an expense (expense_id), refuses deleting it, and frees it when the draft expense goes', async () => {
    const c = await api();
    const id = (await upload(c, { filename: 'bilag.pdf', content_base64: b64('x') })).body.data.id;
    const exp = await c.post('/expenses', { voucher_id: id, date: day(), description: 'Kontorartikler', amount: 125, vat_amount: 25 });
    expect(exp.status).toBe(201);
    expect((await c.get(`/vouchers/${id}`)).body.data.expense_id).toBe(exp.body.data.id);
    const refused = await c.del(`/vouchers/${id}`);
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: 'invalid_request', field: 'expense_id' });
    const twice = await c.post('/expenses', { voucher_id: id, date: day(), amount: 10 });
    expect(twice.status).toBe(400);
    expect(twice.body.field).toBe('voucher_id');
    expect((await c.del(`/expenses/${exp.body.data.id}`)).status).toBe(200);
    expect((await c.get(`/vouchers/${id}`)).body.data.expense_id).toBe('');
  });

  it("refuses another company's voucher and a sandbox voucher on a live expense, creating nothing", async () => {
    const c = await api();
    const other = await newCompany('Fremmed ApS');
    const foreign = (await upload(client(svc.url, (await other.key()).key), { filename: 'f.pdf', content_base64: b64('x') })).body.data.id;
    const sandbox = (await upload(await api(undefined, 'test'), { filename: 's.pdf', content_base64: b64('x') })).body.data.id;
    for (const voucher of [foreign, sandbox]) {
      const before = await testDb().prisma.expense.count({ where: { company_id: company.companyId } });
      const r = await c.post('/expenses', { voucher_id: voucher, date: day(), amount: 100, description: 'fremmed' });
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ code: 'invalid_request', field: 'voucher_id' });
      expect(await testDb().prisma.expense.count({ where: { company_id: company.companyId } })).toBe(before);
      const t = await c.post('/transactions', {
        date: day(),
        voucher_id: voucher,
        lines: [
          { account_number: '2810', debit: 1 },
          { account_number: '6470', credit: 1 },
        ],
      });
      expect(t.status).toBe(400);
      expect(t.body.field).toBe('voucher_id');
    }
    expect((await testDb().pool.query(`SELECT expense_id, transaction_id FROM vouchers WHERE id = ANY($1)`, [[foreign, sandbox]])).rows).toEqual([
      { expense_id: null, transaction_id: null },
      { expense_id: null, transaction_id: null },
    ]);
  });

  it('a voucher that documents a posting records transaction_id and is kept five years after the end of the financial year', async () => {
    const c = await api();
    const id = (await upload(c, { filename: 'husleje.pdf', content_base64: b64('x') })).body.data.id;
    const t = await c.post('/transactions', {
      date: day(),
      description: 'Husleje',
      voucher_id: id,
      lines: [
        { account_number: '2030', debit: 8000 },
        { account_number: '6470', credit: 8000 },
      ],
    });
    expect(t.status).toBe(201);
    expect(t.body.data.voucher_id).toBe(id);
    const v = (await c.get(`/vouchers/${id}`)).body.data;
    expect(v).toMatchObject({ transaction_id: t.body.data.id, retention_until: `${year + 5}-12-31` });
    const refused = await c.del(`/vouchers/${id}`);
    expect(refused.status).toBe(400);
    expect(refused.body.field).toBe('transaction_id');
    // Under retention alone (the link cleared by hand here), still refused.
    await testDb().pool.query(`UPDATE vouchers SET transaction_id = NULL WHERE id = $1`, [id]);
    const kept = await c.del(`/vouchers/${id}`);
    expect(kept.status).toBe(400);
    expect(kept.body.field).toBe('retention_until');
  });
});

describe('expenses', () => {
  it('creates a draft, validates VAT against the amount, books with a posting and retention, pays and refuses edits', async () => {
    const c = await api();
    const supplier = (await c.post('/suppliers', { name: 'Kontorland ApS' })).body.data.id;
    const voucher = (await upload(c, { filename: 'kontor.pdf', content_base64: b64('x') })).body.data.id;
    const tooMuchVat = await c.post('/expenses', { supplier_id: supplier, date: day(), amount: 125, vat_amount: 25.01 });
    expect(tooMuchVat.status).toBe(400);
    expect(tooMuchVat.body.field).toBe('vat_amount');
    const draft = await c.post('/expenses', {
      supplier_id: supplier,
      voucher_id: voucher,
      date: day(),
      due_date: day(30),
      description: 'Kontorartikler',
      amount: 1250,
      vat_amount: 250,
      account_number: '2450',
    });
    expect(draft.status).toBe(201);
    expect(draft.body.data).toMatchObject({
      status: 'draft',
      amount: 1250,
      vat_amount: 250,
      net_amount: 1000,
      account_number: '2450',
      supplier_id: supplier,
      voucher_id: voucher,
      posted_transaction_id: null,
    });
    const id = draft.body.data.id;
    expect((await c.put(`/expenses/${id}`, { description: 'Kontorartikler, november' })).body.data.description).toBe('Kontorartikler, november');

    const booked = await c.put(`/expenses/${id}/status`, { status: 'booked' });
    expect(booked.status).toBe(200);
    const posting = (await c.get(`/transactions/${booked.body.data.posted_transaction_id}`)).body.data;
    expect(posting.lines.map((l: any) => [l.account_number, l.debit, l.credit, l.vat_code])).toEqual([
      ['2450', 1000, 0, 'K25'],
      ['7740', 250, 0, 'K25'],
      ['7440', 0, 1250, ''],
    ]);
    expect(posting).toMatchObject({ voucher_id: voucher, date: day() });
    expect((await c.get(`/vouchers/${voucher}`)).body.data).toMatchObject({ expense_id: id, transaction_id: posting.id, retention_until: `${year + 5}-12-31` });

    for (const r of [await c.put(`/expenses/${id}`, { amount: 1 }), await c.del(`/expenses/${id}`)]) {
      expect(r.status).toBe(409);
      expect(r.body).toMatchObject({ code: 'expense_not_draft', current_status: 'booked' });
    }
    const paid = await c.put(`/expenses/${id}/status`, { status: 'paid', date: day() });
    expect(paid.body.data).toMatchObject({ status: 'paid', paid_date: day() });
    const payment = (await c.get(`/transactions/${paid.body.data.payment_transaction_id}`)).body.data;
    expect(payment.lines.map((l: any) => [l.account_number, l.debit, l.credit])).toEqual([
      ['7440', 1250, 0],
      ['6470', 0, 1250],
    ]);
    const again = await c.put(`/expenses/${id}/status`, { status: 'cancelled' });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: 'invalid_transition', current_status: 'paid', allowed_statuses: [] });
  });

  it('books at once with book: true, and cancelling reverses the posting', async () => {
    const c = await api();
    const r = await c.post('/expenses', { date: day(), description: 'Taxa', amount: 200, vat_amount: 0, book: true });
    expect(r.status).toBe(201);
    expect(r.body.data.status).toBe('booked');
    const cancelled = await c.put(`/expenses/${r.body.data.id}/status`, { status: 'cancelled' });
    expect(cancelled.body.data.status).toBe('cancelled');
    const original = (await c.get(`/transactions/${r.body.data.posted_transaction_id}`)).body.data;
    expect(original.reversed_by_transaction_id).toEqual(expect.any(String));
    const events = await testDb().prisma.outboxEvent.findMany({
      where: { company_id: company.companyId, data: { path: ['id'], equals: r.body.data.id } },
      orderBy: { created_at: 'asc' },
    });
    expect(events.map((e) => [e.type, (e.data as any).status])).toEqual([
      ['expense.created', 'draft'],
      ['expense.updated', 'booked'],
      ['expense.updated', 'cancelled'],
    ]);
  });

  it('lists with sort created_at, date, amount and the status filter', async () => {
    const firm = await newCompany('Udgiftsliste ApS');
    const c = client(svc.url, (await firm.key()).key);
    for (const [d, amount] of [
      [day(-2), 300],
      [day(-5), 100],
      [day(-1), 200],
    ] as const)
      await c.post('/expenses', { date: d, amount });
    const amounts = async (q: string) => (await c.get(`/expenses?${q}`)).body.data.map((e: any) => e.amount);
    expect(await amounts('')).toEqual([200, 100, 300]);
    expect(await amounts('sort=date&order=asc')).toEqual([100, 300, 200]);
    expect(await amounts('sort=amount&order=desc')).toEqual([300, 200, 100]);
    expect(await amounts('status=booked')).toEqual([]);
    expect((await c.get('/expenses?sort=vendor')).status).toBe(400);
  });
});
