// The official rules, run for real (no network): Peppol's own examples pass, and documents broken on
// purpose fail with the rule that names the fault.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { validateEinvoice, type ValidationResult } from './validate.ts';

const EXAMPLES = join(import.meta.dirname, 'examples');
const examples = readdirSync(EXAMPLES).filter((f) => f.endsWith('.xml'));
const example = (name: string) => readFileSync(join(EXAMPLES, name), 'utf8');
const ids = (failures: ValidationResult['fatal']) => [...new Set(failures.map((f) => f.id))].sort();

/** base-example.xml between a Danish supplier and a Danish customer, which brings in the DK-R rules. */
const danish = () =>
  example('base-example.xml')
    .replace('<cbc:IdentificationCode>GB</cbc:IdentificationCode>', '<cbc:IdentificationCode>DK</cbc:IdentificationCode>')
    .replace('<cbc:IdentificationCode>SE</cbc:IdentificationCode>', '<cbc:IdentificationCode>DK</cbc:IdentificationCode>');

describe('validateEinvoice', () => {
  // The first call compiles the rules when the machine has no cached SEF yet (tens of seconds).
  beforeAll(() => validateEinvoice(example('base-example.xml')), 600_000);

  it('has the nine examples of the reference folder', () => {
    expect(examples).toHaveLength(9);
  });

  it.each(examples)('%s: no fatal failure', async (name) => {
    const result = await validateEinvoice(example(name));
    expect(result.fatal).toEqual([]);
  });

  it('a wrong PayableAmount is BR-CO-16, fatal, with its text and location', async () => {
    const xml = example('base-example.xml').replace(/(<cbc:PayableAmount currencyID="EUR">)[^<]*/, '$11.00');
    const { fatal } = await validateEinvoice(xml);
    expect(fatal).toEqual([
      {
        id: 'BR-CO-16',
        flag: 'fatal',
        text: expect.stringContaining('Amount due for payment (BT-115)'),
        location: expect.stringContaining('LegalMonetaryTotal'),
      },
    ]);
  });

  it('Danish parties bring in the DK rules: payment means, legal entity scheme, party id scheme', async () => {
    // base-example pays by code 30 (not allowed between Danish parties), gives the supplier's
    // PartyLegalEntity/CompanyID without schemeID 0184 and its PartyIdentification/ID without a scheme.
    const { fatal } = await validateEinvoice(danish());
    expect(ids(fatal)).toEqual(['DK-R-005', 'DK-R-013', 'DK-R-014']);
    expect(fatal.find((f) => f.id === 'DK-R-005')?.text).toMatch(/Payment means codes are allowed: 1, 10, 31, 42/);
  });

  it('a DK rule flagged warning is a warning: an old UNSPSC version', async () => {
    const xml = danish().replace('<cbc:ItemClassificationCode listID="SRV">', '<cbc:ItemClassificationCode listID="TST" listVersionID="18.0101">');
    const { warnings } = await validateEinvoice(xml);
    expect(warnings.map((w) => [w.id, w.flag])).toEqual([['DK-R-003', 'warning']]);
  });

  it('a CVR endpoint id (scheme 0184) that is not 8 digits is PEPPOL-COMMON-R042', async () => {
    const xml = example('base-example.xml').replace(
      '<cbc:EndpointID schemeID="0088">9482348239847239874</cbc:EndpointID>',
      '<cbc:EndpointID schemeID="0184">1234567</cbc:EndpointID>',
    );
    const { fatal } = await validateEinvoice(xml);
    expect(ids(fatal)).toEqual(['PEPPOL-COMMON-R042']);
  });

  it('a document that is not well-formed is refused as invalid_request', async () => {
    await expect(validateEinvoice('<Invoice><cbc:ID>1</Invoice>')).rejects.toMatchObject({ code: 'invalid_request' });
  });

  it('reads no DTD: a declared entity is unknown, so an external one is never fetched', async () => {
    const xxe = '<?xml version="1.0"?><!DOCTYPE Invoice [<!ENTITY x SYSTEM "file:///etc/passwd">]><Invoice>&x;</Invoice>';
    await expect(validateEinvoice(xxe)).rejects.toMatchObject({ code: 'invalid_request', message: expect.stringContaining('unknown entity') });
  });
});
