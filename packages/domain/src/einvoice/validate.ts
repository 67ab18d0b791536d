// The official validation of a UBL e-invoice or credit note: the CEN EN 16931 rules and the Peppol BIS
// Billing 3.0 rules (with the Danish DK-R rules), run in-process by SaxonJS, with no network and no Java.
import { execFile } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { XMLParser } from 'fast-xml-parser';
import { invalidRequest } from '../errors.ts';

export interface RuleFailure {
  id: string;
  flag: 'fatal' | 'warning';
  text: string;
  location: string;
}
export interface ValidationResult {
  fatal: RuleFailure[];
  warnings: RuleFailure[];
}

/** The part of SaxonJS's API used here (the package ships no types). */
interface SaxonJSApi {
  getResource(options: { text: string; type: 'xml' }): Promise<unknown>;
  transform(options: { stylesheetInternal: object; sourceNode: unknown; destination: 'serialized' }, mode: 'async'): Promise<{ principalResult: string }>;
}
const require = createRequire(import.meta.url);
const XSLT3_CLI = require.resolve('xslt3');
const SAXON_VERSIONS = `xslt3 ${(require('xslt3/package.json') as { version: string }).version}, saxon-js ${(require('saxon-js/package.json') as { version: string }).version}`;

const RULES = join(import.meta.dirname, 'rules');
const CEN_XSLT = join(RULES, 'EN16931-UBL-validation.xslt');
const PEPPOL_SCH = join(RULES, 'PEPPOL-EN16931-UBL.sch');
const SCHXSLT = join(RULES, 'schxslt', '2.0');
// Compiled stylesheets (SEF, several MB of JSON each) are generated, never committed: compiling takes
// tens of seconds, so they are kept here by the hash of what they are made from, shared by processes.
const CACHE = join(tmpdir(), 'tlr-einvoice-sef');

/** Runs SaxonJS's own command line (the documented way to export a SEF) in a child Node process. */
async function xslt3(args: string[]): Promise<void> {
  try {
    await promisify(execFile)(process.execPath, [XSLT3_CLI, ...args], { maxBuffer: 16 * 2 ** 20 });
  } catch (e) {
    const { stderr, message } = e as { stderr?: string; message: string };
    throw new Error(`compiling the e-invoice rules with xslt3 ${args.join(' ')} failed: ${stderr || message}`, { cause: e });
  }
}

async function digest(files: string[]): Promise<string> {
  const hash = createHash('sha256').update(SAXON_VERSIONS);
  for (const file of files) hash.update(file.slice(RULES.length)).update(await readFile(file));
  return hash.digest('hex').slice(0, 24);
}

/**
 * The SEF of a rule set: read from the cache, or compiled into it. `toXslt` gives the XSLT to compile
 * (written into `work`, a scratch folder). A torn or missing cache file is simply compiled anew, and
 * the rename makes a finished SEF appear whole to concurrent processes.
 */
async function sef(name: string, inputs: string[], toXslt: (work: string) => Promise<string>): Promise<object> {
  const file = join(CACHE, `${name}-${await digest(inputs)}.sef.json`);
  try {
    return JSON.parse(await readFile(file, 'utf8')) as object;
  } catch {
    // not compiled yet (or an unreadable file): compile below
  }
  const work = join(CACHE, `.${name}-${randomUUID()}`);
  await mkdir(work, { recursive: true });
  try {
    const temp = join(work, `${name}.sef.json`);
    await xslt3([`-xsl:${await toXslt(work)}`, `-export:${temp}`, '-nogo']);
    await rename(temp, file);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  return JSON.parse(await readFile(file, 'utf8')) as object;
}

async function compileRules(): Promise<object[]> {
  const schxslt = (await readdir(SCHXSLT, { recursive: true })).filter((f) => f.endsWith('.xsl')).map((f) => join(SCHXSLT, f));
  return Promise.all([
    // The CEN rules are published as XSLT already.
    sef('en16931-ubl', [CEN_XSLT], async () => CEN_XSLT),
    // The Peppol rules are Schematron: SchXslt turns them into XSLT first.
    sef('peppol-en16931-ubl', [PEPPOL_SCH, ...schxslt.sort()], async (work) => {
      const xsl = join(work, 'peppol.xsl');
      await xslt3([`-xsl:${join(SCHXSLT, 'pipeline-for-svrl.xsl')}`, `-s:${PEPPOL_SCH}`, `-o:${xsl}`]);
      return xsl;
    }),
  ]);
}

let loaded: Promise<{ saxon: SaxonJSApi; stylesheets: object[] }> | undefined;
/**
 * Once per process, on the first validation: SaxonJS takes most of a second to load, which no other
 * importer of the domain should pay. A failed compilation is tried again on the next call.
 */
function rules() {
  loaded ??= compileRules()
    .then((stylesheets) => ({ saxon: require('saxon-js') as SaxonJSApi, stylesheets }))
    .catch((e: unknown) => {
      loaded = undefined;
      throw e;
    });
  return loaded;
}

const svrlParser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  isArray: (name) => name === 'failed-assert',
});

interface FailedAssert {
  '@id'?: string;
  '@flag'?: string;
  '@location'?: string;
  text?: string | { '#text'?: string };
}

/** The failed asserts of one SVRL report. */
function failedAsserts(svrl: string): RuleFailure[] {
  const report = svrlParser.parse(svrl) as { 'schematron-output'?: { 'failed-assert'?: FailedAssert[] } };
  return (report['schematron-output']?.['failed-assert'] ?? []).map((a) => ({
    id: a['@id'] ?? '',
    // Both rule sets flag every assert fatal or warning; an assert without a known flag counts as
    // fatal, so that a document is never let through on a rule we did not understand.
    flag: a['@flag'] === 'warning' ? 'warning' : 'fatal',
    text: (typeof a.text === 'string' ? a.text : (a.text?.['#text'] ?? '')).replace(/\s+/g, ' ').trim(),
    location: a['@location'] ?? '',
  }));
}

/** Runs both official rule sets (CEN EN 16931 UBL xslt and the Peppol BIS 3 schematron incl. DK rules) on a UBL document. */
export async function validateEinvoice(xml: string): Promise<ValidationResult> {
  const { saxon, stylesheets } = await rules();
  let source: unknown;
  try {
    // SaxonJS's parser reads no DTD: an entity declared there is an unknown entity, and nothing is fetched.
    source = await saxon.getResource({ text: xml, type: 'xml' });
  } catch (e) {
    throw invalidRequest(`The document is not well-formed XML: ${(e as Error).message}`);
  }
  const result: ValidationResult = { fatal: [], warnings: [] };
  for (const stylesheet of stylesheets) {
    const { principalResult } = await saxon.transform({ stylesheetInternal: stylesheet, sourceNode: source, destination: 'serialized' }, 'async');
    for (const failure of failedAsserts(principalResult)) (failure.flag === 'fatal' ? result.fatal : result.warnings).push(failure);
  }
  return result;
}
