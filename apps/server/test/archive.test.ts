// GET /exports/archive (the leaving archive) through HTTP: the zip is unpacked here and checked,
// the SAF-T entry against the Danish XSD, every voucher's bytes against what was uploaded, the manifest's
// checksums against the bytes; unsafe and repeated names, scopes, another company, the sandbox, a
// document gone from the store, and an output that stops taking bytes.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { beforeAll, describe, expect, it } from 'vitest';
import { fromBuffer, type Entry, type ZipFile } from 'yauzl';
import { archiveEntryName, exportArchive, SinkClosedError, today, wholeBookPeriod, type Scope } from '@tlr/domain';
import { bodyOf, idem, testDb, twoLinePosting, useCompany, type Api } from './helpers.ts';
import { validateSaft } from './saft-schema.ts';

const t = useCompany({ name: 'Arkiv & Søn ApS', cvr: '27182828' });
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** The entries of a zip, by path, and their order. */
async function unzip(zip: Buffer): Promise<Map<string, Buffer>> {
  const file = await new Promise<ZipFile>((resolve, reject) =>
    fromBuffer(zip, { lazyEntries: true, strictFileNames: true, validateEntrySizes: true }, (err, z) => (err ? reject(err) : resolve(z))),
  );
  const entries = new Map<string, Buffer>();
  await new Promise<void>((resolve, reject) => {
    file.on('error', reject);
    file.on('end', resolve);
    file.on('entry', (entry: Entry) => {
      if (entries.has(entry.fileName)) return reject(new Error(`two entries named ${entry.fileName}`));
      file.openReadStream(entry, (err, stream) => {
        if (err) return reject(err);
        const parts: Buffer[] = [];
        stream.on('data', (b: Buffer) => parts.push(b));
        stream.on('error', reject);
        stream.on('end', () => {
          entries.set(entry.fileName, Buffer.concat(parts));
          file.readEntry();
        });
      });
    });
    file.readEntry();
  });
  return entries;
}

/** GET /exports/archive with `c`: the response and its body. */
async function archive(c: Api) {
  const r = await c.GET('/exports/archive', { parseAs: 'arrayBuffer' });
  return { response: r.response, body: Buffer.from(r.data ?? (await r.response.arrayBuffer())) };
}

async function upload(c: Api, filename: string, bytes: Buffer, mime_type = 'application/pdf') {
  const r = await c.POST('/vouchers', { params: idem(), body: { filename, content_base64: bytes.toString('base64'), mime_type } });
  return bodyOf(201, r).data.id;
}

interface ManifestEntry {
  path: string | null;
  kind: string;
  size?: number;
  sha256?: string;
  voucher_id?: string;
  filename?: string;
  error?: string;
  recorded_sha256?: string;
}
interface Manifest {
  format: string;
  company: { id: string; name: string; cvr: string };
  period: { from: string; to: string };
  entries: ManifestEntry[];
  vouchers: number;
  missing: number;
  altered: number;
}

describe('the archive of a company', () => {
  const uploaded = new Map<string, { filename: string; bytes: Buffer }>();
  let entries: Map<string, Buffer>;
  let manifest: Manifest;
  let response: Response;
  let foreignId: string;

  beforeAll(async () => {
    const docs: [string, Buffer][] = [
      ['faktura.pdf', Buffer.from('%PDF-1.4 first faktura')],
      ['faktura.pdf', Buffer.from('%PDF-1.4 second faktura, same name')],
      ['Kvittering æøå.pdf', Buffer.from('%PDF-1.4 kvittering')],
      ['..', randomBytes(3000)],
      ['kontrakt: "endelig"?.pdf. ', randomBytes(70_000)],
    ];
    for (const [filename, bytes] of docs) uploaded.set(await upload(t.api, filename, bytes), { filename, bytes });
    const first = [...uploaded.keys()][0]!;
    bodyOf(
      201,
      await t.api.POST('/transactions', { params: idem(), body: { ...twoLinePosting(today(), '6470', '1010', '125.00', 'Kontantsalg'), voucher_id: first } }),
    );
    const other = await t.another('Konkurrent ApS');
    foreignId = await upload(other.api, 'faktura.pdf', Buffer.from('%PDF-1.4 not yours'));
    ({ response, body: entries } = await archive(t.api).then(async (a) => ({ response: a.response, body: await unzip(a.body) })));
    manifest = JSON.parse(entries.get('manifest.json')!.toString('utf8')) as Manifest;
  });

  it('answers a zip attachment named after the company and the period', () => {
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/zip');
    const { from, to } = manifest.period;
    expect(response.headers.get('content-disposition')).toBe(`attachment; filename="archive-27182828-${from}-${to}.zip"`);
  });

  it('holds the SAF-T file of the whole book, valid against the Danish SAF-T schema', async () => {
    const saft = [...entries.keys()].filter((p) => p.startsWith('saft/'));
    expect(saft).toEqual([`saft/saft-27182828-${manifest.period.from}-${manifest.period.to}.xml`]);
    const xml = entries.get(saft[0]!)!.toString('utf8');
    expect(await validateSaft(xml)).toEqual({ valid: true, errors: [] });
    expect(xml).toContain('<Description>Kontantsalg</Description>');
    // The posting documents the first voucher: its SourceDocumentID is the voucher's folder.
    const first = [...uploaded.keys()][0]!;
    expect(xml).toContain(`<SourceDocumentID>${first.replace(/-/g, '')}</SourceDocumentID>`);
  });

  it('"every voucher under its original file name": the bytes uploaded, one folder per voucher, unsafe characters replaced', () => {
    const vouchers = [...entries.keys()].filter((p) => p.startsWith('vouchers/'));
    expect(vouchers).toHaveLength(uploaded.size);
    for (const [id, { filename, bytes }] of uploaded) {
      const path = `vouchers/${id.replace(/-/g, '')}/${archiveEntryName(filename)}`;
      expect(entries.get(path), path).toEqual(bytes);
    }
    expect(vouchers.filter((p) => p.endsWith('/faktura.pdf'))).toHaveLength(2);
    expect(vouchers.some((p) => p.endsWith('/Kvittering æøå.pdf'))).toBe(true);
    // ".." cannot climb out; ':', '"', '?' and a trailing ". " are what unzip tools refuse.
    expect(vouchers.some((p) => p.endsWith('/_'))).toBe(true);
    expect(vouchers.some((p) => p.endsWith('/kontrakt_ _endelig__.pdf'))).toBe(true);
    for (const p of entries.keys()) expect(p.split('/')).not.toContain('..');
  });

  it('has a manifest whose sizes and SHA-256 are those of the entries, with the company and the period', () => {
    expect(manifest.format).toBe('tlr-archive/1');
    expect(manifest.company).toEqual({ id: t.company.companyId, name: 'Arkiv & Søn ApS', cvr: '27182828' });
    expect(manifest.period.from <= today() && today() <= manifest.period.to).toBe(true);
    expect(manifest.vouchers).toBe(uploaded.size);
    expect(manifest.missing).toBe(0);
    expect(manifest.entries.map((e) => e.path).sort()).toEqual([...entries.keys()].filter((p) => p !== 'manifest.json' && p !== 'SHA256SUMS').sort());
    for (const e of manifest.entries) {
      const bytes = entries.get(e.path!)!;
      expect(e.size).toBe(bytes.length);
      expect(e.sha256).toBe(sha256(bytes));
      if (e.kind === 'voucher') expect(e.filename).toBe(uploaded.get(e.voucher_id!)!.filename);
    }
    // SHA256SUMS is what `sha256sum -c` reads.
    const sums = entries.get('SHA256SUMS')!.toString('utf8').trim().split('\n');
    expect(sums).toEqual(manifest.entries.map((e) => `${e.sha256}  ${e.path}`));
  });

  it("never holds another company's vouchers", () => {
    expect(manifest.entries.some((e) => e.voucher_id === foreignId)).toBe(false);
    expect([...entries.keys()].some((p) => p.includes(foreignId.replace(/-/g, '')))).toBe(false);
    expect([...entries.values()].some((b) => b.includes('not yours'))).toBe(false);
  });
});

describe('refusals and other books', () => {
  it('"scopes exports:read and vouchers:read": a key missing either gets 403 problem+json', async () => {
    for (const scopes of [['exports:read'], ['vouchers:read', 'vouchers:write']] satisfies Scope[][]) {
      const { api } = await t.newKey(scopes);
      const r = await api.GET('/exports/archive', { parseAs: 'text' });
      expect(r.response.status, scopes.join(' ')).toBe(403);
      expect(r.response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    }
  });

  it('refuses a parameter it does not take by name (the archive is always the whole book)', async () => {
    const r = await t.raw.call('GET', '/exports/archive?from=2026-01-01');
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.body)).toContain('from');
  });

  it('a sandbox key archives the sandbox, and nothing of the live books', async () => {
    const sandbox = await t.newKey(undefined, 'test');
    const id = await upload(sandbox.api, 'sandkasse.pdf', Buffer.from('%PDF-1.4 sandbox'));
    const zip = await unzip((await archive(sandbox.api)).body);
    const m = JSON.parse(zip.get('manifest.json')!.toString('utf8')) as Manifest;
    expect(m.company.id).toBe(sandbox.companyId);
    expect(m.company.id).not.toBe(t.company.companyId);
    expect(m.entries.filter((e) => e.kind === 'voucher').map((e) => e.voucher_id)).toEqual([id]);
    expect(zip.get(`vouchers/${id.replace(/-/g, '')}/sandkasse.pdf`)!.toString()).toBe('%PDF-1.4 sandbox');
  });

  it('a voucher gone from the store is listed with the error, one changed since upload is archived as stored and flagged; the rest is archived', async () => {
    const other = await t.another('Bortkommet ApS');
    const kept = await upload(other.api, 'kept.pdf', Buffer.from('kept'));
    const lost = await upload(other.api, 'lost.pdf', Buffer.from('lost'));
    const changed = await upload(other.api, 'changed.pdf', Buffer.from('as uploaded'));
    const keyOf = async (id: string) =>
      (await testDb().pool.query<{ storage_key: string }>('SELECT storage_key FROM vouchers WHERE id = $1', [id])).rows[0]!.storage_key;
    await t.svc.store!.delete(await keyOf(lost));
    const dir = await mkdtemp(join(tmpdir(), 'archive-test-'));
    await writeFile(join(dir, 'other'), 'changed since');
    await t.svc.store!.putFile(await keyOf(changed), join(dir, 'other'), { size: 13, contentType: 'application/pdf', sha256: '' });
    await rm(dir, { recursive: true });
    const zip = await unzip((await archive(other.api)).body);
    const m = JSON.parse(zip.get('manifest.json')!.toString('utf8')) as Manifest;
    expect(m).toMatchObject({ vouchers: 2, missing: 1, altered: 1 });
    expect(m.entries.find((e) => e.voucher_id === lost)).toMatchObject({ path: null, error: 'the stored document was not found' });
    expect(m.entries.find((e) => e.voucher_id === changed)).toMatchObject({
      sha256: sha256(Buffer.from('changed since')),
      recorded_sha256: sha256(Buffer.from('as uploaded')),
      error: 'the stored bytes differ from those uploaded',
    });
    expect(zip.get(`vouchers/${changed.replace(/-/g, '')}/changed.pdf`)!.toString()).toBe('changed since');
    expect(zip.get(`vouchers/${kept.replace(/-/g, '')}/kept.pdf`)!.toString()).toBe('kept');
  });
});

describe('streaming', () => {
  it('"a concurrency limit like the SAF-T export\'s": a third archive while two clients stall is 503 with Retry-After; clients that disconnect free their places', async () => {
    const big = await t.another('Store Bilag ApS');
    // More than the loopback socket buffers hold, so an archive whose client does not read stays open.
    for (let i = 0; i < 4; i++) await upload(big.api, `scan-${i}.jpg`, randomBytes(4 * 1024 * 1024), 'image/jpeg');
    const url = `${t.svc.url}/api/v1/exports/archive`;
    const headers = { 'X-API-Key': big.key };
    const stalled = [new AbortController(), new AbortController()];
    const open = await Promise.all(stalled.map((c) => fetch(url, { headers, signal: c.signal })));
    expect(open.map((r) => r.status)).toEqual([200, 200]);
    const busy = await fetch(url, { headers });
    expect(busy.status).toBe(503);
    expect(busy.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(((await busy.json()) as { detail: string }).detail).toContain('2 archives are already being written');
    for (const c of stalled) c.abort();
    // The server notices the disconnects, stops both, and takes the next one.
    await expect
      .poll(async () => await fetch(url, { method: 'GET', headers }).then(async (r) => (await r.arrayBuffer(), r.status)), { timeout: 10_000 })
      .toBe(200);
  });
});

describe('exportArchive', () => {
  it('gives up with SinkClosedError when the output stops taking bytes (the stall timeout)', async () => {
    const stuck = new Writable({ highWaterMark: 1024, write: () => {} });
    const started = Date.now();
    const run = exportArchive(testDb().pool, t.svc.store!, t.company.companyId, stuck, { stallTimeoutMs: 300 });
    await expect(run).rejects.toBeInstanceOf(SinkClosedError);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('the whole book runs from the first fiscal year (or earlier first posting) to the end of the year of today or the last posting', () => {
    const c = { fiscal_year_start_month: 7, first_year: null, first_posting: null, last_posting: null };
    expect(wholeBookPeriod(c, '2026-11-27')).toEqual({ from: '2026-07-01', to: '2027-06-30' });
    expect(wholeBookPeriod({ ...c, first_year: '2024-07-01', first_posting: '2023-01-05' }, '2026-11-27')).toEqual({ from: '2022-07-01', to: '2027-06-30' });
    expect(wholeBookPeriod({ ...c, first_year: '2024-03-01', first_posting: '2024-08-01', last_posting: '2028-01-01' }, '2026-11-27')).toEqual({
      from: '2024-03-01',
      to: '2028-06-30',
    });
  });
});
