// The official rules, run for real (no network): Peppol's own examples pass, and documents broken on
// purpose fail with the rule that names the fault. The pool of worker threads gives what one thread
// gives, outlives a worker that dies or hangs, and works under `npm start`'s Node flags and loader.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { RUN_TS } from '../../../../test/run-ts.ts';
import {
  einvoiceValidationPool,
  internStrings,
  oioublFailures,
  setEinvoiceValidationIdleSeconds,
  setEinvoiceValidationThreads,
  validateEinvoice,
  validateEinvoiceHere,
  validationOwner,
  warmEinvoiceValidation,
  type ValidationResult,
} from './validate.ts';

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

  it("a Swedish seller's rule whose context names the seller from the document's root (looked up by a key) still holds on every line", async () => {
    // The seller in Sweden with a Swedish VAT id, and the second line at 20 %: SE-R-006 allows 6, 12 and 25 only.
    const xml = example('base-example.xml')
      .replace('<cbc:IdentificationCode>GB</cbc:IdentificationCode>', '<cbc:IdentificationCode>SE</cbc:IdentificationCode>')
      .replace('<cbc:CompanyID>GB1232434</cbc:CompanyID>', '<cbc:CompanyID>SE123456789701</cbc:CompanyID>');
    const secondLine = xml.lastIndexOf('<cbc:Percent>25.0</cbc:Percent>');
    const twenty = `${xml.slice(0, secondLine)}<cbc:Percent>20.0</cbc:Percent>${xml.slice(secondLine + '<cbc:Percent>25.0</cbc:Percent>'.length)}`;
    expect(ids((await validateEinvoice(xml)).fatal)).not.toContain('SE-R-006');
    const { fatal } = await validateEinvoice(twenty);
    expect(fatal.filter((f) => f.id === 'SE-R-006').map((f) => f.location)).toEqual([expect.stringMatching(/InvoiceLine\[2\]/)]);
  });

  it('rules on the whole document whose paths from the root are looked up by keys (decision 490) still fire: BR-S-02, BR-CO-10, BR-53, UBL-CR-663', async () => {
    const base = example('base-example.xml');
    // The seller's VAT id gone while the lines are standard rated: BR-S-02 asks for it from the root (//cac:ClassifiedTaxCategory, //cac:AccountingSupplierParty).
    expect(ids((await validateEinvoice(base.replace(/<cac:PartyTaxScheme>[\s\S]*?<\/cac:PartyTaxScheme>/, ''))).fatal)).toContain('BR-S-02');
    // The lines' sum (//(cac:InvoiceLine|cac:CreditNoteLine)) no longer the total's.
    expect(
      ids((await validateEinvoice(base.replace('<cbc:LineExtensionAmount currencyID="EUR">1300<', '<cbc:LineExtensionAmount currencyID="EUR">1301<'))).fatal),
    ).toContain('BR-CO-10');
    // A tax currency without its TaxTotal (//cac:TaxTotal).
    const taxCurrency = base.replace(
      '<cbc:DocumentCurrencyCode>EUR</cbc:DocumentCurrencyCode>',
      '<cbc:DocumentCurrencyCode>EUR</cbc:DocumentCurrencyCode><cbc:TaxCurrencyCode>DKK</cbc:TaxCurrencyCode>',
    );
    expect(ids((await validateEinvoice(taxCurrency)).fatal)).toContain('BR-53');
    // An attribute UBL forbids anywhere (//@unitCodeListID): a warning.
    const { warnings } = await validateEinvoice(base.replace('unitCode="', 'unitCodeListID="x" unitCode="'));
    expect(warnings.map((w) => w.id)).toContain('UBL-CR-663');
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

describe('internStrings (decision 493)', () => {
  it('leaves a parsed tree as it was: nested objects and arrays, repeated strings, numbers, null, deeper than the call stack', () => {
    const text = JSON.stringify({ ns: 'xml=~ fn=~', a: [{ ns: 'xml=~ fn=~', n: 1 }, 'xml=~ fn=~', null, [true, 'b']], c: { ns: 'x', d: 'xml=~ fn=~' } });
    expect(internStrings(JSON.parse(text))).toEqual(JSON.parse(text));
    // 20,000 levels: a recursive walk would overflow the stack.
    const deep = '{"c":'.repeat(20_000) + '"x"' + '}'.repeat(20_000);
    let node = internStrings(JSON.parse(deep) as { c: unknown });
    for (let i = 1; i < 20_000; i++) node = node.c as { c: unknown };
    expect(node.c).toBe('x');
  });
});

describe('the pool of validation workers', () => {
  const broken = ['<Invoice><cbc:ID>1</Invoice>', danish(), example('base-example.xml').replace(/(<cbc:PayableAmount currencyID="EUR">)[^<]*/, '$11.00')];
  const documents = [...examples.map(example), ...broken];
  const outcome = (p: Promise<ValidationResult>) =>
    p.then(
      (result) => ({ result }),
      (e: { code?: string; message: string }) => ({ code: e.code, message: e.message }),
    );

  it('validates documents all in flight at once as this thread does one at a time', async () => {
    const alone = [];
    for (const xml of documents) alone.push(await outcome(validateEinvoiceHere(xml)));
    const together = await Promise.all(documents.map((xml) => outcome(validateEinvoice(xml))));
    expect(together).toEqual(alone);
    expect(together.filter((o) => 'result' in o && o.result.fatal.length)).toHaveLength(2);
  }, 300_000);

  it('a worker that dies mid-document: that document fails, the others go on in its replacement', async () => {
    const pending = Array.from({ length: 6 }, () => validateEinvoice(example('base-example.xml')));
    await vi.waitFor(() => expect(einvoiceValidationPool.workers().some((w) => w.busy)).toBe(true));
    const victim = einvoiceValidationPool.workers().find((w) => w.busy)!.worker;
    await victim.terminate();
    const outcomes = await Promise.allSettled(pending);
    const failed = outcomes.flatMap((o) => (o.status === 'rejected' ? [(o.reason as Error).message] : []));
    expect(failed).toEqual([expect.stringMatching(/^the e-invoice validation worker stopped \(exit code 1\) during the document/)]);
    expect(outcomes.filter((o) => o.status === 'fulfilled' && o.value.fatal.length === 0)).toHaveLength(5);
    expect(einvoiceValidationPool.workers().map((w) => w.worker)).not.toContain(victim);
  }, 120_000);

  it("serves the companies in turn: one company's queue of documents does not keep another's waiting", async () => {
    setEinvoiceValidationThreads(1);
    try {
      const done: string[] = [];
      const xml = example('base-example.xml');
      const of = (owner: string, name: string) => validationOwner.run(owner, () => validateEinvoice(xml).then(() => done.push(name)));
      const first = [of('a', 'a1'), of('a', 'a2'), of('a', 'a3'), of('a', 'a4')];
      const other = of('b', 'b1');
      await Promise.all([...first, other]);
      // a1 was taken at once; b1 is next, before the rest of a's.
      expect(done).toEqual(['a1', 'b1', 'a2', 'a3', 'a4']);
    } finally {
      setEinvoiceValidationThreads(undefined);
    }
  }, 120_000);

  it('a document past the time limit fails, and its worker is replaced', async () => {
    const before = einvoiceValidationPool.workers().map((w) => w.worker);
    einvoiceValidationPool.timeoutMs = 1;
    einvoiceValidationPool.loadingMs = 0;
    try {
      await expect(validateEinvoice(example('base-example.xml'))).rejects.toThrow(
        'The document could not be checked against the official rules within 0.001 seconds',
      );
    } finally {
      einvoiceValidationPool.timeoutMs = 30_000;
      einvoiceValidationPool.loadingMs = 300_000;
    }
    expect(before.filter((w) => !einvoiceValidationPool.workers().some((v) => v.worker === w))).toHaveLength(1);
    expect((await validateEinvoice(example('base-example.xml'))).fatal).toEqual([]);
  }, 120_000);

  it("a worker loading SaxonJS and the rules is not held to a document's time limit: a warm-up under a limit of 1 ms completes", async () => {
    setEinvoiceValidationThreads(einvoiceValidationPool.workers().length + 1);
    einvoiceValidationPool.timeoutMs = 1;
    try {
      await warmEinvoiceValidation();
    } finally {
      einvoiceValidationPool.timeoutMs = 30_000;
      setEinvoiceValidationThreads(undefined);
    }
    expect((await validateEinvoice(example('base-example.xml'))).fatal).toEqual([]);
  }, 120_000);

  it('a worker idle past its time stops, except the one with every rule set; a document that waits starts one again (decision 495)', async () => {
    setEinvoiceValidationThreads(2);
    try {
      await warmEinvoiceValidation();
      const full = einvoiceValidationPool.workers().find((w) => w.sets.includes('oioubl-invoice'))!.worker;
      expect(einvoiceValidationPool.holdsEveryRuleSet()).toBe(true);
      const xml = example('base-example.xml');
      // Two at once: the second waits for a worker, and one starts for it (if the pool had only the warm one).
      await Promise.all([validateEinvoice(xml), validateEinvoice(xml)]);
      expect(einvoiceValidationPool.workers()).toHaveLength(2);
      // Idle for 20 ms (0.02 s): the other worker stops, the warm one stays.
      setEinvoiceValidationIdleSeconds(0.02);
      await vi.waitFor(() => expect(einvoiceValidationPool.workers().map((w) => w.worker)).toEqual([full]));
      expect(einvoiceValidationPool.holdsEveryRuleSet()).toBe(true);
      // Kept for good: past its own idle time it is still there, and takes the next document.
      await new Promise((resolve) => setTimeout(resolve, 60));
      expect(einvoiceValidationPool.workers().map((w) => w.worker)).toEqual([full]);
      setEinvoiceValidationIdleSeconds(undefined);
      // Two at once again: a new worker starts, and loads only the rules of the document it is given.
      await Promise.all([validateEinvoice(xml), validateEinvoice(xml)]);
      const workers = einvoiceValidationPool.workers();
      expect(workers).toHaveLength(2);
      expect(workers.find((w) => w.worker !== full)!.sets).toEqual(['peppol']);
    } finally {
      setEinvoiceValidationThreads(undefined);
      setEinvoiceValidationIdleSeconds(undefined);
    }
  }, 300_000);

  it('works in a process run as `npm start` runs the server (its Node flags, TypeScript stripped by Node), which then exits by itself', async () => {
    const root = join(import.meta.dirname, '..', '..', '..', '..');
    const flags = pathToFileURL(join(root, 'scripts', 'server-flags.mjs')).href;
    const { SERVER_NODE_FLAGS } = (await import(flags)) as { SERVER_NODE_FLAGS: string[] };
    const script = join(await mkdtemp(join(tmpdir(), 'tlr-validate-')), 'validate.mjs');
    writeFileSync(
      script,
      `import { readFileSync } from 'node:fs';
      import { validateEinvoice } from ${JSON.stringify(pathToFileURL(join(import.meta.dirname, 'validate.ts')).href)};
      const ok = await validateEinvoice(readFileSync(${JSON.stringify(join(EXAMPLES, 'base-example.xml'))}, 'utf8'));
      const bad = await validateEinvoice('<Invoice>').catch((e) => e.code);
      console.log(JSON.stringify({ fatal: ok.fatal.length, bad }));`,
    );
    try {
      const run = await promisify(execFile)(process.execPath, [...SERVER_NODE_FLAGS, ...RUN_TS, script], { cwd: root, timeout: 120_000 });
      expect(JSON.parse(run.stdout)).toEqual({ fatal: 0, bad: 'invalid_request' });
    } finally {
      rmSync(dirname(script), { recursive: true, force: true });
    }
  }, 150_000);
});

describe('the OIOUBL schematron 1.17.2 and the CEN CII rules, warm from the start', () => {
  const REPO = join(import.meta.dirname, '..', '..', '..', '..');
  const REFERENCE = [join(REPO, '..', 'shared', 'reference'), '/work/shared/reference'].find(existsSync) ?? join(REPO, '..', 'shared', 'reference');
  const read = (...path: string[]) => readFileSync(join(REFERENCE, 'einvoice', ...path), 'utf8');

  it('loads every rule set into the pool before any document (warmEinvoiceValidation), then validates by set', async () => {
    await warmEinvoiceValidation();
    expect(einvoiceValidationPool.workers().length).toBeGreaterThan(0);
    const invoice = read('oioubl', 'examples', 'OIOUBL_Invoice_v2p2.xml');
    expect(await validateEinvoice(invoice, 'oioubl-invoice')).toEqual({ fatal: [], warnings: [] });
    const broken = await validateEinvoice(
      invoice.replace('<cbc:PayableAmount currencyID="DKK">6312.50', '<cbc:PayableAmount currencyID="DKK">1.00'),
      'oioubl-invoice',
    );
    expect(ids(broken.fatal)).toEqual(['F-INV133', 'F-INV134']);
    expect(broken.fatal[0]!.text).toMatch(/^PayableAmount is calculated incorrectly/);
    const credit = read('oioubl', 'examples', 'OIOUBL_CreditNote_v2p2.xml');
    expect((await validateEinvoice(credit, 'oioubl-credit-note')).fatal).toEqual([]);
    expect((await validateEinvoice(read('cii', 'examples', 'CII_example3.xml'), 'cen-cii')).fatal).toEqual([]);
    // One worker holds the OIOUBL rules (decision 492): OIOUBL documents all in flight at once go to it
    // alone; a Peppol document beside them gets a second worker, started for it (decision 495).
    setEinvoiceValidationThreads(2);
    try {
      await warmEinvoiceValidation();
      const results = await Promise.all([
        ...[invoice, invoice, credit].map((doc, i) => validateEinvoice(doc, i < 2 ? 'oioubl-invoice' : 'oioubl-credit-note')),
        validateEinvoice(example('base-example.xml')),
      ]);
      expect(results.map((r) => r.fatal)).toEqual([[], [], [], []]);
      const workers = einvoiceValidationPool.workers();
      expect(workers).toHaveLength(2);
      expect(workers.filter((w) => w.sets.includes('oioubl-invoice'))).toHaveLength(1);
      expect(workers.every((w) => w.sets.includes('peppol'))).toBe(true);
    } finally {
      setEinvoiceValidationThreads(undefined);
    }
  }, 900_000);

  it("reads the OIOUBL package's report: <Error> fatal, <Warning> a warning, the bracketed rule id apart from its text", () => {
    const report = `<Schematron><Information>Checking OIOUBL-2.1 Invoice</Information>
      <Error context="/Invoice"><Pattern>p</Pattern><Description>[F-INV133] PayableAmount is calculated incorrectly</Description><Xpath>/Invoice[1]</Xpath></Error>
      <Warning context="/Invoice"><Pattern>q</Pattern><Description>[W-LIB051]Note is not used</Description><Xpath>/Invoice[1]/Note</Xpath></Warning></Schematron>`;
    expect(oioublFailures(report)).toEqual([
      { id: 'F-INV133', flag: 'fatal', text: 'PayableAmount is calculated incorrectly', location: '/Invoice[1]' },
      { id: 'W-LIB051', flag: 'warning', text: 'Note is not used', location: '/Invoice[1]/Note' },
    ]);
  });
});
