// The official OIOUBL 2.1 schematron (package v1.17.2, as the Danish Business Authority publishes it,
// compiled to XSLT 2.0: packages/domain/src/einvoice/rules/oioubl/), run by SaxonJS on a document the
// tests made. The package's report is its own `<Schematron>` element (not SVRL): one `<Error>` per broken
// rule, its `<Description>` starting with the rule id (`[F-INV133] PayableAmount is ...`), and `<Warning>`s.
// A document is valid when there is no `<Error>`. The stylesheet is compiled (SEF) once per machine and
// kept in the same cache as the validation module's (the hash of the file names the copy).
import { execFile } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { access, mkdir, readFile, rename } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { child, readXmlDocument, textOf } from '@tlr/domain/xml/tree';

const DOMAIN = join(import.meta.dirname, '..', '..', '..', 'packages', 'domain');
const RULES = join(DOMAIN, 'src', 'einvoice', 'rules', 'oioubl');
// xslt3 and saxon-js are the domain package's dependencies.
const require = createRequire(join(DOMAIN, 'package.json'));
const CACHE = join(tmpdir(), 'tlr-einvoice-sef');

interface SaxonJSApi {
  getResource(options: { text: string; type: 'xml' }): Promise<unknown>;
  transform(options: { stylesheetInternal: object; sourceNode: unknown; destination: 'serialized' }, mode: 'async'): Promise<{ principalResult: string }>;
}

export interface OioublFailure {
  id: string;
  flag: 'error' | 'warning';
  text: string;
}

const compiled = new Map<string, Promise<object>>();

async function compile(kind: 'Invoice' | 'CreditNote'): Promise<object> {
  const xsl = join(RULES, `OIOUBL_${kind}_Schematron.xsl`);
  const hash = createHash('sha256')
    .update(require('xslt3/package.json').version as string)
    .update(await readFile(xsl))
    .digest('hex')
    .slice(0, 24);
  const file = join(CACHE, `test-oioubl-${kind}-${hash}.sef.json`);
  const exists = await access(file).then(
    () => true,
    () => false,
  );
  if (!exists) {
    await mkdir(CACHE, { recursive: true });
    const temp = join(CACHE, `.test-oioubl-${randomUUID()}.sef.json`);
    await promisify(execFile)(process.execPath, [require.resolve('xslt3'), `-xsl:${xsl}`, `-export:${temp}`, '-nogo'], { maxBuffer: 16 * 2 ** 20 });
    await rename(temp, file);
  }
  return JSON.parse(await readFile(file, 'utf8')) as object;
}

/** The `<Error>`s and `<Warning>`s the official OIOUBL schematron reports on an Invoice or CreditNote. */
export async function oioublSchematron(xml: string): Promise<OioublFailure[]> {
  const kind = /<CreditNote[\s>]/.test(xml.slice(0, 500)) ? 'CreditNote' : 'Invoice';
  let stylesheet = compiled.get(kind);
  if (!stylesheet) compiled.set(kind, (stylesheet = compile(kind)));
  const saxon = require('saxon-js') as SaxonJSApi;
  const source = await saxon.getResource({ text: xml, type: 'xml' });
  const { principalResult } = await saxon.transform({ stylesheetInternal: await stylesheet, sourceNode: source, destination: 'serialized' }, 'async');
  // The report quotes the document: read under the safe-XML policy like any XML.
  return readXmlDocument(principalResult, { maxBytes: 64 * 2 ** 20 }).children.flatMap((e): OioublFailure[] => {
    if (e.name !== 'Error' && e.name !== 'Warning') return [];
    const description = textOf(child(e, 'Description')).replace(/\s+/g, ' ');
    const m = /^\[([^\]]+)\]\s*(.*)$/.exec(description);
    return [{ id: m ? m[1]! : 'OIOUBL', flag: e.name === 'Error' ? 'error' : 'warning', text: m ? m[2]! : description }];
  });
}

/** Only the `<Error>`s: what makes a document invalid. */
export async function oioublErrors(xml: string): Promise<OioublFailure[]> {
  return (await oioublSchematron(xml)).filter((f) => f.flag === 'error');
}
