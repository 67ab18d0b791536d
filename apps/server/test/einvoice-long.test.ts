// A long received e-invoice through HTTP (issue 40, item 3; decision 491): above the lines threshold
// (lowered here to 3 by EINVOICE_ASYNC_LINES, so that a modest document of Peppol's own example stands
// for a 10,000-line one) POST /einvoices/inbound answers 202 with an import, and the import-einvoice job
// (run here as the worker runs it: test services have no worker) validates and imports it as the request
// would have: the expense equal to the document. A document the rules refuse fails naming the rule,
// nothing written; the same document again is the same import; the companies' documents take turns.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { expenseLineBounds, runNextEinvoiceImport } from '@tlr/domain';
import { startBoss } from '@tlr/jobs';
import { registerEinvoiceImportWorker } from '../src/worker.ts';
import { countRows, databaseUrl, idem, ok, testDb, useCompany, waitFor, type client, type Schemas } from './helpers.ts';

const t = useCompany({ name: 'Lang Faktura ApS', cvr: '12345674', env: { EINVOICE_ASYNC_LINES: '3' } });

type Import = Schemas['Import'];
const BASE = readFileSync(join(import.meta.dirname, '../../../packages/domain/src/einvoice/examples/base-example.xml'), 'utf8');

/** Peppol's base example with its first line `lines` times (each line 2,800 EUR) and its totals made to agree, numbered `number`. */
function longInvoice(number: string, lines: number): string {
  const line = /<cac:InvoiceLine>[\s\S]*?<\/cac:InvoiceLine>/.exec(BASE)![0];
  const body = Array.from({ length: lines }, (_, i) => line.replace(/<cbc:ID>\d+<\/cbc:ID>/, `<cbc:ID>${i + 1}</cbc:ID>`)).join('\n');
  const net = 2800 * lines;
  const taxable = net + 25;
  const f = (x: number) => x.toFixed(2);
  return BASE.replace('<cbc:ID>Snippet1</cbc:ID>', `<cbc:ID>${number}</cbc:ID>`)
    .replace(/<cac:InvoiceLine>[\s\S]*<\/cac:InvoiceLine>/, body)
    .replaceAll('>331.25<', `>${f(taxable / 4)}<`)
    .replace('<cbc:TaxableAmount currencyID="EUR">1325<', `<cbc:TaxableAmount currencyID="EUR">${f(taxable)}<`)
    .replace('<cbc:LineExtensionAmount currencyID="EUR">1300<', `<cbc:LineExtensionAmount currencyID="EUR">${f(net)}<`)
    .replace('<cbc:TaxExclusiveAmount currencyID="EUR">1325<', `<cbc:TaxExclusiveAmount currencyID="EUR">${f(taxable)}<`)
    .replaceAll('>1656.25<', `>${f(taxable * 1.25)}<`);
}

type Raw = ReturnType<typeof client>;
const send = (raw: Raw, xml: string) =>
  raw.call<{ data: Import }>('POST', '/einvoices/inbound', { raw: xml, headers: { 'Content-Type': 'application/xml', ...idem().header } });

/** Runs the job until the import is no longer queued or running, and answers it as GET /imports/{id} shows it. */
async function finished(id: string): Promise<Import> {
  for (let i = 0; i < 10; i++) {
    const { data } = await ok(t.api.GET('/imports/{id}', { params: { path: { id } } }));
    if (data.status !== 'queued' && data.status !== 'running') return data;
    await runNextEinvoiceImport(testDb(), t.svc.store);
  }
  throw new Error(`import ${id} did not finish`);
}

const written = (companyId: string) =>
  Promise.all(
    ['vouchers', 'expenses', 'einvoice_messages'].map((table) => countRows(`SELECT count(*)::int AS n FROM ${table} WHERE company_id = $1`, [companyId])),
  );

describe('POST /einvoices/inbound, a long document (decision 491)', () => {
  it('answers 202 with a queued import; the job imports it: the expense equals the document; the same document again is the same import', async () => {
    const xml = longInvoice('LANG-1', 4);
    const r = await send(t.raw, xml);
    expect(r.status, r.text).toBe(202);
    expect(r.headers.get('location')).toBe(`/api/v1/imports/${r.body.data.id}`);
    expect(r.body.data).toMatchObject({ type: 'einvoice', status: 'queued', einvoice_id: null, problem: null });
    // Sent again (another Idempotency-Key) while queued: the same import, nothing more stored.
    const again = await send(t.raw, xml);
    expect([again.status, again.body.data.id]).toEqual([202, r.body.data.id]);

    const done = await finished(r.body.data.id);
    expect(done).toMatchObject({ type: 'einvoice', status: 'succeeded', problem: null, progress: { phase: 'done' } });
    const message = (await ok(t.api.GET('/einvoices/{id}', { params: { path: { id: done.einvoice_id! } } }))).data;
    expect(message).toMatchObject({ direction: 'inbound', document_number: 'LANG-1', net_amount: 11225, vat_amount: 2806.25, total_amount: 14031.25 });
    expect(message.lines).toHaveLength(4);
    const expense = (await ok(t.api.GET('/expenses/{id}', { params: { path: { id: message.expense_id! } } }))).data;
    expect(expense).toMatchObject({ status: 'draft', amount: 14031.25, vat_amount: 2806.25, currency: 'EUR' });
    // The stored pieces of the document are gone; after success the same document is still that import.
    expect(await countRows('SELECT count(*)::int AS n FROM import_file_chunks WHERE import_id = $1', [done.id])).toBe(0);
    const third = await send(t.raw, xml);
    expect([third.status, third.body.data.id, third.body.data.status]).toEqual([202, done.id, 'succeeded']);
  });

  it("the document's embedded attachments become vouchers in its order, their names, bytes and events as one by one (written in one batch: decision 497); its lines written 3 a statement are its lines in order (decision 498)", async () => {
    const files = ['a.pdf', 'b.pdf', 'c.pdf'].map((name, i) => ({ name, bytes: `%PDF-1.4 bilag ${i + 1}` }));
    const attached = files
      .map(
        (f, i) =>
          `<cac:AdditionalDocumentReference><cbc:ID>bilag-${i + 1}</cbc:ID><cac:Attachment><cbc:EmbeddedDocumentBinaryObject mimeCode="application/pdf" filename="${f.name}">${Buffer.from(f.bytes).toString('base64')}</cbc:EmbeddedDocumentBinaryObject></cac:Attachment></cac:AdditionalDocumentReference>`,
      )
      .join('');
    const xml = longInvoice('LANG-BILAG', 4).replace('<cac:AccountingSupplierParty>', `${attached}<cac:AccountingSupplierParty>`);
    const r = await send(t.raw, xml);
    expect(r.status, r.text).toBe(202);
    // 3 rows a statement (the job runs in this process).
    const perInsert = expenseLineBounds.perInsert;
    expenseLineBounds.perInsert = 3;
    const done = await finished(r.body.data.id).finally(() => (expenseLineBounds.perInsert = perInsert));
    expect(done.status).toBe('succeeded');
    const message = (await ok(t.api.GET('/einvoices/{id}', { params: { path: { id: done.einvoice_id! } } }))).data;
    const expense = (await ok(t.api.GET('/expenses/{id}', { params: { path: { id: message.expense_id! } } }))).data;
    // The four lines of 2,800 and the document's charge of 25 as a line of its own (decision 681): 5 rows, in 3 and 2.
    expect(expense.lines.map((l) => [l.position, l.net_amount])).toEqual([...[1, 2, 3, 4].map((n) => [n, 2800]), [5, 25]]);
    const ids = message.links.attachments.map((link) => link.split('/').pop()!);
    expect(ids).toHaveLength(3);
    for (const [i, id] of ids.entries()) {
      expect((await ok(t.api.GET('/vouchers/{id}', { params: { path: { id } } }))).data).toMatchObject({
        filename: files[i]!.name,
        mime_type: 'application/pdf',
      });
      expect((await t.raw.get(`/vouchers/${id}/content`)).text).toBe(files[i]!.bytes);
    }
    // One voucher.created each, the document's XML first and then the attachments in order.
    const xmlVoucher = message.links.voucher!.split('/').pop()!;
    const { rows } = await testDb().pool.query<{ id: string }>(
      `SELECT data->>'id' AS id FROM outbox_events WHERE type = 'voucher.created' AND data->>'id' = ANY($1) ORDER BY sequence`,
      [[xmlVoucher, ...ids]],
    );
    expect(rows.map((row) => row.id)).toEqual([xmlVoucher, ...ids]);
    // Nothing left for the sweeper: every storage intent was taken back with the rows.
    expect(await countRows('SELECT count(*)::int AS n FROM stored_object_intents WHERE company_id = $1', [t.company.companyId])).toBe(0);
  });

  it('a document the official rules refuse: the import fails naming the rule, and nothing is written', async () => {
    const before = await written(t.company.companyId);
    const broken = longInvoice('LANG-2', 4).replace(/(<cbc:LineExtensionAmount currencyID="EUR">)11200\.00</, '$111201.00<');
    expect(broken).toContain('11201.00');
    const r = await send(t.raw, broken);
    expect(r.status, r.text).toBe(202);
    const failed = await finished(r.body.data.id);
    expect(failed).toMatchObject({ status: 'failed', einvoice_id: null, problem: { code: 'einvoice_invalid', status: 400 } });
    expect(failed.problem!.detail).toContain('BR-CO-10');
    expect(failed.problem!.failures!.map((f) => f.id)).toContain('BR-CO-10');
    expect(await written(t.company.companyId)).toEqual(before);
    // What the reading refuses (a DOCTYPE, a number that is none) is refused by the request itself: 400, no import.
    const imports = await countRows('SELECT count(*)::int AS n FROM imports WHERE company_id = $1', [t.company.companyId]);
    const hostile = await send(t.raw, `<!DOCTYPE Invoice [<!ENTITY x "y">]>${longInvoice('LANG-3', 4).replace(/^<\?xml[^>]*\?>/, '')}`);
    expect([hostile.status, (hostile.body as unknown as { code: string }).code], hostile.text).toEqual([400, 'invalid_request']);
    expect(await countRows('SELECT count(*)::int AS n FROM imports WHERE company_id = $1', [t.company.companyId])).toBe(imports);
  });

  it('the companies take turns: another company’s document sent after two of this company’s goes first', async () => {
    const other = await t.another('Anden Modtager ApS');
    const first = (await send(t.raw, longInvoice('TUR-1', 4))).body.data.id;
    const second = (await send(t.raw, longInvoice('TUR-2', 4))).body.data.id;
    const theirs = (await send(other.raw, longInvoice('TUR-3', 4))).body.data.id;
    const order: string[] = [];
    for (let i = 0; i < 3; i++) order.push((await runNextEinvoiceImport(testDb(), t.svc.store)).view!.id);
    // This company was served by the tests above; the other company, never served, goes first though it sent last.
    expect(order).toEqual([theirs, first, second]);
  });
});

describe('the import-einvoice job on a worker', () => {
  it('the job the request sent imports the document through pg-boss; GET /imports/{id} polled to succeeded', async () => {
    // The import-einvoice queue alone: a whole worker on the shared test database would take other files' jobs.
    const worker = await startBoss(databaseUrl(), () => {});
    await registerEinvoiceImportWorker(worker, testDb(), pino({ level: 'silent' }), t.svc.store);
    try {
      const r = await send(t.raw, longInvoice('BOSS-1', 4));
      expect(r.status, r.text).toBe(202);
      const done = await waitFor(async () => {
        // Every half second: a key has 100 requests a minute.
        await new Promise((resolve) => setTimeout(resolve, 500));
        const seen = (await ok(t.api.GET('/imports/{id}', { params: { path: { id: r.body.data.id } } }))).data;
        return seen.status === 'succeeded' || seen.status === 'failed' ? seen : undefined;
      }, 60_000);
      expect(done).toMatchObject({ type: 'einvoice', status: 'succeeded', requested_by: { type: 'api_key' } });
      const message = (await ok(t.api.GET('/einvoices/{id}', { params: { path: { id: done.einvoice_id! } } }))).data;
      expect(message).toMatchObject({ document_number: 'BOSS-1', total_amount: 14031.25 });
    } finally {
      await worker.stop({ graceful: true, timeout: 10_000 });
    }
  }, 90_000);
});
