// The safe-XML policy on real documents (the e-invoice examples in the repository, the SAF-T fixture,
// and the official reference set of ../shared/reference: Peppol, OIOUBL and CII examples, their rules,
// the SAF-T schema, Skattestyrelsen's samples) and on hostile ones generated here. No database.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../errors.ts';
import { XmlPaths, XmlReader, XmlRefusal, xmlRefused, type XmlLimits, type XmlProblem } from './reader.ts';
import { child, children, descendants, readXmlDocument, readXmlDocumentYielding, textOf, XML_YIELD_CHARS } from './tree.ts';

const REPO = join(import.meta.dirname, '..', '..', '..', '..');
/** The shared reference folder: beside the checkout (../shared), or the machine's /work/shared. */
const REFERENCE = [join(REPO, '..', 'shared', 'reference'), '/work/shared/reference'].find(existsSync) ?? join(REPO, '..', 'shared', 'reference');
const XML_FILE = /\.(xml|xsd|xsl|xslt|sch|wsdl)$/;

function files(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((f) => join(dir, f))
    .filter((f) => XML_FILE.test(f) && statSync(f).isFile());
}

/** Start tags counted without a parser: markup in comments, CDATA and processing instructions removed first. */
const startTags = (xml: string) => xml.replace(/<!--[\s\S]*?-->|<!\[CDATA\[[\s\S]*?\]\]>|<\?[\s\S]*?\?>/g, '').match(/<[A-Za-z_]/g)?.length ?? 0;

const refusal = (xml: string | Uint8Array, limits: Partial<XmlLimits> = {}): XmlProblem & { message: string } => {
  try {
    readXmlDocument(xml, { maxBytes: 1024 * 1024, ...limits });
  } catch (e) {
    if (e instanceof XmlRefusal) return { ...e.problem, message: e.message };
    throw e;
  }
  throw new Error('accepted');
};

describe('real documents', () => {
  it('reads every official document whole: each element, decoded text, local names and namespaces', () => {
    const all = [
      ...files(join(REPO, 'packages', 'domain', 'src', 'einvoice', 'examples')),
      join(REPO, 'apps', 'server', 'test', 'fixtures', 'saft-economic.xml'),
      ...files(REFERENCE),
    ];
    // The reference set: 144 files (examples, rules, schemas, samples).
    expect(all.length).toBeGreaterThan(150);
    let utf16 = 0;
    for (const file of all) {
      const bytes = readFileSync(file);
      let source: string | Buffer = bytes;
      if (bytes[0] === 0xff && bytes[1] === 0xfe) {
        // Skattestyrelsen's WSDLs are UTF-16: the policy reads UTF-8 bytes only; as text they read like any other.
        expect(refusal(bytes, { maxBytes: 16 * 1024 * 1024 }).rule, file).toBe('encoding');
        source = new TextDecoder('utf-16le').decode(bytes);
        utf16++;
      }
      const root = readXmlDocument(source, { maxBytes: 16 * 1024 * 1024 });
      expect([...descendants(root)].length, file).toBe(startTags(typeof source === 'string' ? source : bytes.toString('utf8')));
    }
    expect(utf16).toBe(3);
    const oioubl = readXmlDocument(readFileSync(join(REFERENCE, 'einvoice', 'oioubl', 'examples', 'OIOUBL_Invoice_v2p2.xml')), { maxBytes: 1024 * 1024 });
    expect([oioubl.name, oioubl.uri]).toEqual(['Invoice', 'urn:oasis:names:specification:ubl:schema:xsd:Invoice-2']);
    expect(textOf(child(oioubl, 'CustomizationID'))).toBe('OIOUBL-2.1');
    expect(child(oioubl, 'CustomizationID')!.uri).toBe('urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2');
    expect(children(oioubl, 'InvoiceLine').length).toBeGreaterThan(0);
    const saft = readXmlDocument(readFileSync(join(REPO, 'apps', 'server', 'test', 'fixtures', 'saft-economic.xml')), { maxBytes: 16 * 1024 * 1024 });
    expect(saft.name).toBe('AuditFile');
  });

  it('decodes the predefined entities and character references: Jensen &amp; Søn ApS is Jensen & Søn ApS', () => {
    const root = readXmlDocument('<a x="&quot;1&quot; &lt; 2"><n>Jensen &amp; S&#248;n ApS</n><c><![CDATA[a &amp; b]]></c><m>&#x41;&apos;&gt;</m></a>', {
      maxBytes: 1000,
    });
    expect(textOf(child(root, 'n'))).toBe('Jensen & Søn ApS');
    expect(textOf(child(root, 'c'))).toBe('a &amp; b');
    expect(textOf(child(root, 'm'))).toBe("A'>");
    expect(root.attributes.x).toBe('"1" < 2');
  });

  it('gives each start tag its line, and keeps an element of text split by comments and CDATA whole', () => {
    const root = readXmlDocument('<?xml version="1.0"?>\n<a>\n  <b>one<!-- c -->two<![CDATA[three]]></b>\n</a>', { maxBytes: 1000 });
    expect(child(root, 'b')).toMatchObject({ line: 3, text: 'onetwothree' });
  });
});

describe('hostile documents', () => {
  it('refuses a DOCTYPE in every form: an internal entity, entity expansion, an external DTD', () => {
    for (const xml of [
      '<!DOCTYPE a [<!ENTITY e "x">]><a>&e;</a>',
      '<?xml version="1.0"?><!DOCTYPE a [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;&a;">]><a>&b;</a>',
      '<!DOCTYPE a SYSTEM "http://127.0.0.1:9/x.dtd"><a/>',
      '<!DOCTYPE a PUBLIC "-//x//y" "file:///etc/passwd"><a/>',
    ]) {
      expect(refusal(xml), xml).toMatchObject({ rule: 'doctype', line: 1, message: expect.stringMatching(/declares a document type/) });
    }
    // An entity no DOCTYPE declares is not well-formed, never looked up.
    expect(refusal('<a>&e;</a>')).toMatchObject({ rule: 'syntax', message: expect.stringMatching(/undefined entity/) });
  });

  it('refuses NUL and control characters by name, also as a character reference', () => {
    expect(refusal('<a>\n<b>x\u0000y</b></a>')).toEqual({
      rule: 'character',
      line: 2,
      column: 5,
      message: 'line 2, column 5: it contains the character U+0000, which XML does not allow',
    });
    expect(refusal('<a>\u001b</a>')).toMatchObject({ rule: 'character', message: expect.stringMatching(/U\+001B/) });
    expect(refusal('<a>&#0;</a>')).toMatchObject({ rule: 'syntax' });
  });

  it('bounds nesting while reading: 30,000 levels are refused at the limit, fast', () => {
    const started = performance.now();
    const deep = '<a>'.repeat(30_000) + '</a>'.repeat(30_000);
    expect(refusal(deep)).toMatchObject({ rule: 'depth', limit: 64, line: 1, column: 65 * 3 });
    expect(performance.now() - started).toBeLessThan(1000);
    expect(() => readXmlDocument('<a>'.repeat(64) + '</a>'.repeat(64), { maxBytes: 1000 })).not.toThrow();
    expect(refusal('<a>'.repeat(11) + '</a>'.repeat(11), { maxDepth: 10 })).toMatchObject({ rule: 'depth', limit: 10 });
  });

  it('bounds a text, an attribute, a tag and a comment while reading, never holding more than the limit and a slice', () => {
    const limits = { maxBytes: 64 * 1024 * 1024, maxToken: 1000 };
    let held = 0;
    // A huge text streamed in chunks is refused within the first slice past the limit, not at its end.
    const reader = new XmlReader({ close: (e) => (held = Math.max(held, e.text.length)) }, limits);
    reader.write('<a>');
    let written = 0;
    const chunk = 'x'.repeat(16 * 1024);
    const refused = (() => {
      try {
        for (; written < 32 * 1024 * 1024; written += chunk.length) reader.write(chunk);
      } catch (e) {
        return e as XmlRefusal;
      }
    })();
    expect(refused?.problem).toMatchObject({ rule: 'token', limit: 1000 });
    expect(written).toBeLessThan(128 * 1024);
    expect(held).toBe(0);
    expect(refusal(`<a b="${'x'.repeat(5000)}"/>`, { maxToken: 1000 })).toMatchObject({ rule: 'token' });
    expect(refusal(`<a><!--${'x'.repeat(5000)}--></a>`, { maxToken: 1000 })).toMatchObject({ rule: 'token' });
    // Text of one element arriving in many pieces (between comments) is one piece.
    expect(refusal(`<a>${'xxxxxxxxxx<!---->'.repeat(200)}</a>`, { maxToken: 1000 })).toMatchObject({ rule: 'token' });
    expect(() => readXmlDocument(`<a>${'x'.repeat(1000)}</a>`, { maxBytes: 10_000, maxToken: 1000 })).not.toThrow();
  });

  it('bounds the size while reading, in UTF-8 bytes', () => {
    expect(refusal(`<a>${'ø'.repeat(600)}</a>`, { maxBytes: 1024 })).toMatchObject({
      rule: 'size',
      limit: 1024,
      message: 'the document is larger than 1024 bytes',
    });
    expect(refusal(`<a>${'x'.repeat(2 * 1024 * 1024)}</a>`, { maxBytes: 1024 * 1024, maxToken: 8 * 1024 * 1024 })).toMatchObject({
      message: 'the document is larger than 1 MB',
    });
  });

  it('refuses bytes that are not UTF-8, and what is not well-formed, with the line and column', () => {
    expect(refusal(Buffer.from('<a>Søren</a>', 'latin1'))).toMatchObject({ rule: 'encoding' });
    expect(refusal('<a>\n<b></a>')).toMatchObject({ rule: 'syntax', line: 2 });
    expect(refusal('<a b="1" b="2"/>')).toMatchObject({ rule: 'syntax', message: expect.stringMatching(/duplicate attribute: b/) });
    expect(refusal('')).toMatchObject({ rule: 'syntax' });
    expect(refusal('<a/><b/>')).toMatchObject({ rule: 'syntax' });
  });

  it('turns a refusal into the reader’s own problem, the same shape everywhere', () => {
    const r = new XmlRefusal({ rule: 'depth', limit: 64, line: 3, column: 9 }, 'elements are nested deeper than 64 levels');
    const e = xmlRefused(r, 'bank_file_invalid', 'The statement is refused: ');
    expect(e).toBeInstanceOf(DomainError);
    expect([e.code, e.field, e.message, e.extensions.xml]).toEqual([
      'bank_file_invalid',
      'body',
      'The statement is refused: line 3, column 9: elements are nested deeper than 64 levels.',
      { rule: 'depth', limit: 64, line: 3, column: 9 },
    ]);
  });
});

describe('readXmlDocumentYielding', () => {
  it('reads a large document as readXmlDocument does, giving the event loop a turn between slices', async () => {
    // 3,000 elements of 200 characters each (some 630,000 characters: 4 or more slices of 131,072), with
    // 'ø' and an emoji (a surrogate pair) so that a slice's end may fall anywhere in a character.
    const item = (i: number) => `<Item n="${i}">${'ø😀x'.repeat(50)}</Item>`;
    const xml = `<Root xmlns="urn:x">${Array.from({ length: 3_000 }, (_, i) => item(i)).join('')}</Root>`;
    expect(xml.length).toBeGreaterThan(4 * XML_YIELD_CHARS);
    const limits = { maxBytes: 4 * 1024 * 1024 };
    // A timer due at once fires only when the reader gives the event loop a turn.
    let ticks = 0;
    const timer = setInterval(() => ticks++, 0);
    const read = await readXmlDocumentYielding(xml, limits).finally(() => clearInterval(timer));
    expect(ticks).toBeGreaterThan(0);
    expect(read).toEqual(readXmlDocument(xml, limits));
    expect(children(read, 'Item')).toHaveLength(3_000);
    expect(textOf(children(read, 'Item')[2_999])).toBe('ø😀x'.repeat(50));
  });

  it('refuses as readXmlDocument does, wherever the fault lies', async () => {
    const filler = `<A>${'x'.repeat(2 * XML_YIELD_CHARS)}</A>`;
    for (const xml of [`<!DOCTYPE r><r/>`, `<r>${filler}\u0000</r>`, `<r>${filler}<b></r>`]) {
      const problem = refusal(xml, { maxToken: 4 * XML_YIELD_CHARS });
      const yielding = await readXmlDocumentYielding(xml, { maxBytes: 1024 * 1024, maxToken: 4 * XML_YIELD_CHARS }).then(
        () => undefined,
        (e: XmlRefusal) => ({ ...e.problem, message: e.message }),
      );
      expect(yielding).toEqual(problem);
    }
  });
});

describe('XmlPaths', () => {
  it('keeps the paths asked for below an anchor, and none of a branch that leads nowhere', () => {
    const paths = new XmlPaths(['Refs/EndToEndId', 'Amt']);
    expect([paths.enter('Refs'), paths.enter('EndToEndId')]).toEqual(['Refs', 'Refs/EndToEndId']);
    expect([paths.leave(), paths.leave()]).toEqual(['Refs/EndToEndId', 'Refs']);
    expect([paths.enter('Other'), paths.enter('Amt'), paths.leave(), paths.leave()]).toEqual([null, null, null, null]);
    expect(paths.enter('Amt')).toBe('Amt');
    const all = new XmlPaths();
    expect([all.enter('Address'), all.enter('City')]).toEqual(['Address', 'Address/City']);
  });
});
