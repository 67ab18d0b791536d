// Reading a SAF-T file's records as it streams, under the safe-XML policy: the economic fixture's
// records, decoded text, and a hostile file refused by name (an import that fails, never one retried).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DomainError } from '../../errors.ts';
import { readSaft, type SaftRecord } from './reader.ts';

const FIXTURE = readFileSync(join(import.meta.dirname, '..', '..', '..', '..', '..', 'apps', 'server', 'test', 'fixtures', 'saft-economic.xml'), 'utf8');

async function records(xml: string, chunk = 1000): Promise<SaftRecord[]> {
  async function* text() {
    for (let i = 0; i < xml.length; i += chunk) yield xml.slice(i, i + chunk);
  }
  const all: SaftRecord[] = [];
  for await (const batch of readSaft(text())) all.push(...batch);
  return all;
}

describe('readSaft', () => {
  it("reads the fixture's header, chart, parties and transactions in document order", async () => {
    const read = await records(FIXTURE);
    const kinds = new Set(read.map((r) => r.kind));
    expect(read[0]).toMatchObject({ kind: 'header', currency: 'DKK' });
    expect(kinds).toEqual(new Set(['header', 'account', 'customer', 'supplier', 'transaction']));
    const transactions = read.filter((r) => r.kind === 'transaction');
    expect(transactions.length).toBe((FIXTURE.match(/<Transaction>/g) ?? []).length);
    expect(transactions.every((t) => t.lines.length >= 2)).toBe(true);
  });

  it('decodes entities in the texts it keeps, and keeps master data fields by their path', async () => {
    const xml = FIXTURE.replace(/<Supplier>([\s\S]*?)<Name>[^<]*<\/Name>/, '<Supplier>$1<Name>Jensen &amp; S&#248;n ApS</Name>');
    const supplier = (await records(xml)).find((r) => r.kind === 'supplier');
    expect(supplier?.kind === 'supplier' && supplier.fields.get('Name')).toBe('Jensen & Søn ApS');
  });

  it('refuses deep nesting and an entity by the policy, as a SAF-T problem with the line', async () => {
    const failure = (xml: string) =>
      records(xml).then(
        () => undefined,
        (e: DomainError) => ({ code: e.code, line: e.extensions.line, rule: e.extensions.xml?.rule }),
      );
    const deep = FIXTURE.replace('<Header>', `<Header>${'<X>'.repeat(30_000)}${'</X>'.repeat(30_000)}`);
    expect(await failure(deep)).toMatchObject({ code: 'saft_file_invalid', rule: 'depth' });
    expect(await failure(`<!DOCTYPE AuditFile [<!ENTITY e "x">]>${FIXTURE.replace(/^<\?xml[^>]*>/, '')}`)).toEqual({
      code: 'saft_file_invalid',
      line: 1,
      rule: 'doctype',
    });
  });
});
