// The official validation of a received or sent e-invoice or credit note: the CEN EN 16931 rules and the
// Peppol BIS Billing 3.0 rules (with the Danish DK-R rules) for a Peppol document, the OIOUBL 2.1
// schematron (package 1.17.2) for an OIOUBL one, run by SaxonJS in a pool of worker threads, with no
// network and no Java. The rules are compiled (SEF) once per machine and loaded by the workers when the
// service starts (warmEinvoiceValidation), not by the first document.
import { AsyncLocalStorage } from 'node:async_hooks';
import { execFile } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { access, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { availableParallelism, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { Worker } from 'node:worker_threads';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { ErrorCode } from '../error-codes.ts';
import { DomainError, invalidRequest } from '../errors.ts';
import { attributeOf, child, children, readXmlDocument, textOf } from '../xml/tree.ts';
import { keyRootNamesInExpressions, keyRootPathsInPatterns } from './document-keys.ts';

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
const DOCUMENT_KEYS = join(import.meta.dirname, 'document-keys.ts');
const CEN_CII_XSLT = join(RULES, 'cii', 'EN16931-CII-validation.xslt');
const OIOUBL_INVOICE_XSL = join(RULES, 'oioubl', 'OIOUBL_Invoice_Schematron.xsl');
const OIOUBL_CREDIT_NOTE_XSL = join(RULES, 'oioubl', 'OIOUBL_CreditNote_Schematron.xsl');
const OIOUBL_APPLICATION_RESPONSE_XSL = join(RULES, 'oioubl', 'OIOUBL_ApplicationResponse_Schematron.xsl');
const OIOUBL_REMINDER_XSL = join(RULES, 'oioubl', 'OIOUBL_Reminder_Schematron.xsl');
// Compiled stylesheets (SEF, 3 to 26 MB of JSON each) are kept in the machine's cache by the hash of what
// they are made from, shared by processes. Compiling takes from a minute (CEN) to several (OIOUBL, a 2.7 MB
// XSLT) on a small machine, so the build's SEFs are committed too, gzipped (1.5 MB in all), under
// rules/compiled/ by the same name: a fresh checkout unpacks them instead of compiling. A change of the
// rules' sources changes the hash, and the committed file no longer fits until `npm run einvoice:rules`
// writes it anew (a unit test says so).
const CACHE = join(tmpdir(), 'tlr-einvoice-sef');
export const COMPILED_RULES = join(RULES, 'compiled');

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
  // A file of ours beside the rules (document-keys.ts) by its name: the rules' own by their path under rules/, as ever.
  for (const file of files) hash.update(file.startsWith(RULES) ? file.slice(RULES.length) : basename(file)).update(await readFile(file));
  return hash.digest('hex').slice(0, 24);
}

/**
 * The file of a rule set's SEF: found in the cache, or compiled into it. `toXslt` gives the XSLT to
 * compile (written into `work`, a scratch folder). The rename makes a finished SEF appear whole to
 * concurrent processes.
 */
async function sef(name: string, inputs: string[], toXslt: (work: string) => Promise<string>): Promise<string> {
  const base = `${name}-${await digest(inputs)}.sef.json`;
  const file = join(CACHE, base);
  if (await exists(file)) return file;
  const work = join(CACHE, `.${name}-${randomUUID()}`);
  await mkdir(work, { recursive: true });
  try {
    const temp = join(work, `${name}.sef.json`);
    const committed = join(COMPILED_RULES, `${base}.gz`);
    if (await exists(committed)) await writeFile(temp, gunzipSync(await readFile(committed)));
    else await xslt3([`-xsl:${await toXslt(work)}`, `-export:${temp}`, '-nogo']);
    await rename(temp, file);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  return file;
}

const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );

/** The committed SEF file name of each stylesheet for its sources as they are (rules/compiled/). */
export async function compiledRuleNames(): Promise<string[]> {
  return Promise.all(STYLESHEET_NAMES.map(async (name) => `${name}-${await digest(await STYLESHEETS[name].inputs())}.sef.json.gz`));
}

/**
 * Makes every equal string of a parsed JSON tree one string (decision 493). A SEF repeats a handful of
 * strings hundreds of thousands of times (each instruction's in-scope namespaces, `ns`, and the like:
 * the OIOUBL invoice rules' 568,000 strings are 24,000 distinct ones), and JSON.parse makes each its own
 * copy: the OIOUBL invoice stylesheet took 46 MiB of heap parsed, 19 MiB with its strings shared.
 * Walked with a stack, not recursion: the trees nest deeper than the call stack allows.
 */
export function internStrings<T extends object>(tree: T): T {
  const seen = new Map<string, string>();
  const stack: object[] = [tree];
  for (let node = stack.pop(); node; node = stack.pop()) {
    const o = node as Record<string, unknown>;
    for (const key in o) {
      const value = o[key];
      if (typeof value === 'string') {
        const first = seen.get(value);
        if (first === undefined) seen.set(value, value);
        else o[key] = first;
      } else if (typeof value === 'object' && value !== null) stack.push(value);
    }
  }
  return tree;
}

/** A SEF's stylesheet, its strings shared. A file that does not parse (torn by something else) is removed: the next try compiles it anew. */
async function stylesheet(file: string): Promise<object> {
  try {
    return internStrings(JSON.parse(await readFile(file, 'utf8')) as object);
  } catch (e) {
    await rm(file, { force: true });
    throw e;
  }
}

/** The first call's promise, shared by later calls; forgotten when it fails, so that the next call tries again. */
function once<T>(make: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () =>
    (pending ??= make().catch((e: unknown) => {
      pending = undefined;
      throw e;
    }));
}

/** The stylesheets, each compiled to its SEF, and what their reports are: SVRL, or the OIOUBL package's own `<Schematron>`. */
const STYLESHEETS = {
  // The CEN rules are published as XSLT already; their paths from the root are found by a key (decision 490).
  'en16931-ubl': {
    report: 'svrl',
    inputs: async () => [CEN_XSLT, DOCUMENT_KEYS],
    toXslt: async (work: string) => {
      const xsl = join(work, 'en16931-ubl.xsl');
      await writeFile(xsl, keyRootNamesInExpressions(await readFile(CEN_XSLT, 'utf8')));
      return xsl;
    },
  },
  // The Peppol rules are Schematron: SchXslt turns them into XSLT first.
  'peppol-en16931-ubl': {
    report: 'svrl',
    inputs: async () => [
      PEPPOL_SCH,
      DOCUMENT_KEYS,
      ...(await readdir(SCHXSLT, { recursive: true }))
        .filter((f) => f.endsWith('.xsl'))
        .map((f) => join(SCHXSLT, f))
        .sort(),
    ],
    toXslt: async (work: string) => {
      const xsl = join(work, 'peppol.xsl');
      await xslt3([`-xsl:${join(SCHXSLT, 'pipeline-for-svrl.xsl')}`, `-s:${PEPPOL_SCH}`, `-o:${xsl}`]);
      // Paths from the root inside the rules' patterns (decision 489) and expressions (490) looked up by keys.
      await writeFile(xsl, keyRootNamesInExpressions(keyRootPathsInPatterns(await readFile(xsl, 'utf8'))));
      return xsl;
    },
  },
  // The CEN rules bound to CII, published as XSLT too.
  'en16931-cii': { report: 'svrl', inputs: async () => [CEN_CII_XSLT], toXslt: async () => CEN_CII_XSLT },
  // The OIOUBL package publishes its schematron compiled to XSLT 2.0.
  'oioubl-invoice': { report: 'oioubl', inputs: async () => [OIOUBL_INVOICE_XSL], toXslt: async () => OIOUBL_INVOICE_XSL },
  'oioubl-credit-note': { report: 'oioubl', inputs: async () => [OIOUBL_CREDIT_NOTE_XSL], toXslt: async () => OIOUBL_CREDIT_NOTE_XSL },
  'oioubl-application-response': {
    report: 'oioubl',
    inputs: async () => [OIOUBL_APPLICATION_RESPONSE_XSL],
    toXslt: async () => OIOUBL_APPLICATION_RESPONSE_XSL,
  },
  'oioubl-reminder': { report: 'oioubl', inputs: async () => [OIOUBL_REMINDER_XSL], toXslt: async () => OIOUBL_REMINDER_XSL },
} satisfies Record<string, { report: 'svrl' | 'oioubl'; inputs(): Promise<string[]>; toXslt(work: string): Promise<string> }>;
type StylesheetName = keyof typeof STYLESHEETS;
const STYLESHEET_NAMES = Object.keys(STYLESHEETS) as StylesheetName[];

/**
 * The rule sets a document is validated under: a Peppol BIS 3 document under CEN EN 16931 (UBL) and
 * Peppol BIS 3; any other EN 16931 document under the CEN rules of its syntax (UBL or CII) alone; an
 * OIOUBL 2.1 (2.01, 2.02) Invoice or CreditNote under the OIOUBL schematron of its kind.
 */
export const RULE_SETS = {
  peppol: ['en16931-ubl', 'peppol-en16931-ubl'],
  'cen-ubl': ['en16931-ubl'],
  'cen-cii': ['en16931-cii'],
  'oioubl-invoice': ['oioubl-invoice'],
  'oioubl-credit-note': ['oioubl-credit-note'],
  'oioubl-application-response': ['oioubl-application-response'],
  'oioubl-reminder': ['oioubl-reminder'],
} as const satisfies Record<string, readonly StylesheetName[]>;
export type RuleSet = keyof typeof RULE_SETS;

/** Each stylesheet's SEF file, compiled once per process into the machine's cache when first needed. */
const sefFiles = new Map<StylesheetName, () => Promise<string>>();
function sefFile(name: StylesheetName): Promise<string> {
  let file = sefFiles.get(name);
  if (!file) {
    const s = STYLESHEETS[name];
    file = once(async () => sef(name, await s.inputs(), s.toXslt));
    sefFiles.set(name, file);
  }
  return file();
}

/** The SEF files of these stylesheets, one at a time (each compile is a child process of its own; several at once only share the cores). */
async function ruleFiles(names: readonly StylesheetName[] = STYLESHEET_NAMES): Promise<Record<StylesheetName, string>> {
  const files = {} as Record<StylesheetName, string>;
  for (const name of names) files[name] = await sefFile(name);
  return files;
}

/** Compiles every rule set into the SEF cache (`npm run einvoice:rules`, and the service's start): a later start only loads them. */
export async function compileEinvoiceRules(): Promise<Record<StylesheetName, string>> {
  return ruleFiles();
}

/** Writes every compiled rule set, gzipped, into rules/compiled/ for the repository, and removes what no longer fits the sources. */
export async function storeCompiledRules(): Promise<string[]> {
  const files = await ruleFiles();
  await mkdir(COMPILED_RULES, { recursive: true });
  const names = await compiledRuleNames();
  for (const [i, name] of STYLESHEET_NAMES.entries()) await writeFile(join(COMPILED_RULES, names[i]!), gzipSync(await readFile(files[name]), { level: 9 }));
  for (const stale of await readdir(COMPILED_RULES)) if (!names.includes(stale)) await rm(join(COMPILED_RULES, stale));
  return names;
}

/**
 * SaxonJS, loaded once per thread that validates: it takes most of a second to load, which no other
 * importer of the domain should pay; each stylesheet is loaded once, when first needed (or at warm-up).
 */
const saxonJs = once(async () => require('saxon-js') as SaxonJSApi);
const loaded = new Map<StylesheetName, () => Promise<object>>();
function loadStylesheet(name: StylesheetName): Promise<object> {
  let load = loaded.get(name);
  if (!load) {
    load = once(async () => stylesheet(await sefFile(name)));
    loaded.set(name, load);
  }
  return load();
}

/**
 * The rules' reports (SVRL) are made here, but quote the document: they are read under the same policy
 * as any XML, with room for a report on the largest document (each assertion failed on each line).
 */
const SVRL_LIMITS = { maxBytes: 512 * 1024 * 1024 };

/** The failed asserts of one SVRL report. */
function failedAsserts(svrl: string): RuleFailure[] {
  return children(readXmlDocument(svrl, SVRL_LIMITS), 'failed-assert').map((a) => ({
    id: attributeOf(a, 'id'),
    // Both rule sets flag every assert fatal or warning; an assert without a known flag counts as
    // fatal, so that a document is never let through on a rule we did not understand.
    flag: attributeOf(a, 'flag') === 'warning' ? 'warning' : 'fatal',
    text: textOf(child(a, 'text')).replace(/\s+/g, ' '),
    location: attributeOf(a, 'location'),
  }));
}

/**
 * The OIOUBL package's report: `<Schematron>` with one `<Error>` (fatal) or `<Warning>` per broken rule,
 * its `<Description>` starting with the rule id in brackets (`[F-INV133] PayableAmount is ...`) and its
 * `<Xpath>`. Anything else it holds (`<Information>`) is no failure.
 */
export function oioublFailures(report: string): RuleFailure[] {
  return readXmlDocument(report, SVRL_LIMITS).children.flatMap((e): RuleFailure[] => {
    if (e.name !== 'Error' && e.name !== 'Warning') return [];
    const description = textOf(child(e, 'Description')).replace(/\s+/g, ' ').trim();
    const m = /^\[([^\]]+)\]\s*(.*)$/s.exec(description);
    return [
      {
        id: m ? m[1]!.trim() : textOf(child(e, 'Pattern')).slice(0, 100) || 'OIOUBL',
        flag: e.name === 'Warning' ? 'warning' : 'fatal',
        text: m ? m[2]! : description,
        location: textOf(child(e, 'Xpath')) || attributeOf(e, 'context'),
      },
    ];
  });
}

/**
 * Runs a rule set's stylesheets on a document in this thread: what each worker of the pool runs (and
 * the benchmark's baseline). Peppol: CEN EN 16931 UBL xslt and the Peppol BIS 3 schematron incl. DK
 * rules; OIOUBL: the package's schematron of the document's kind.
 */
export async function validateEinvoiceHere(xml: string, set: RuleSet = 'peppol'): Promise<ValidationResult> {
  const saxon = await saxonJs();
  const names: readonly StylesheetName[] = RULE_SETS[set];
  const stylesheets = await Promise.all(names.map(loadStylesheet));
  let source: unknown;
  try {
    // SaxonJS's parser reads no DTD: an entity declared there is an unknown entity, and nothing is fetched.
    source = await saxon.getResource({ text: xml, type: 'xml' });
  } catch (e) {
    throw invalidRequest(`The document is not well-formed XML: ${(e as Error).message}`);
  }
  const result: ValidationResult = { fatal: [], warnings: [] };
  for (const [i, stylesheet] of stylesheets.entries()) {
    let principalResult: string;
    try {
      ({ principalResult } = await saxon.transform({ stylesheetInternal: stylesheet, sourceNode: source, destination: 'serialized' }, 'async'));
    } catch (e) {
      // A dynamic error of the rules on the document's own values (a cast of what is no number or date: FORG0001, FODT…) is the document's fault.
      const m = /\b(FORG|FODT|FOCA|FOAR|FORX|XPTY)\d{4}\b/.exec((e as Error).message);
      if (m) throw invalidRequest(`The official rules cannot read the document (${m[0]}): a value is not of its type. ${(e as Error).message.slice(0, 300)}`);
      throw e;
    }
    const failures = STYLESHEETS[names[i]!].report === 'svrl' ? failedAsserts(principalResult) : oioublFailures(principalResult);
    for (const failure of failures) (failure.flag === 'fatal' ? result.fatal : result.warnings).push(failure);
  }
  return result;
}

/** A small document of each rule set's root: run once at the warm-up, so that a stylesheet's first run (SaxonJS prepares much of it lazily) is no document's. */
const WARM_UP_DOCUMENTS: Record<RuleSet, string> = {
  peppol: '<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"/>',
  'cen-ubl': '<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"/>',
  'cen-cii': '<CrossIndustryInvoice xmlns="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100"/>',
  'oioubl-invoice': '<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"/>',
  'oioubl-credit-note': '<CreditNote xmlns="urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2"/>',
  'oioubl-application-response': '<ApplicationResponse xmlns="urn:oasis:names:specification:ubl:schema:xsd:ApplicationResponse-2"/>',
  'oioubl-reminder': '<Reminder xmlns="urn:oasis:names:specification:ubl:schema:xsd:Reminder-2"/>',
};

/**
 * The rule sets received documents are checked under: what a worker loads at its warm-up. The OIOUBL
 * ApplicationResponse and Reminder rules check the responses and reminders tlr writes (in its tests),
 * never a request.
 */
const WRITING_RULE_SETS: readonly RuleSet[] = ['oioubl-application-response', 'oioubl-reminder'];
const RECEIVING_RULE_SETS = (Object.keys(RULE_SETS) as RuleSet[]).filter((set) => !WRITING_RULE_SETS.includes(set));

/**
 * The OIOUBL rule sets are most of a worker's memory (decision 492): loaded, a worker holds about 160 MiB
 * with them and 100 MiB without (their stylesheets are 44 MB of SEF; 340 and 250 MiB before decisions 493
 * and 494). One worker of the pool holds them and checks every OIOUBL document; the others load the
 * rules of the documents they are given.
 */
const HEAVY_RULE_SETS: readonly RuleSet[] = ['oioubl-invoice', 'oioubl-credit-note', 'oioubl-application-response'];

/** Loads SaxonJS and the stylesheets of these rule sets (default: every one received documents take) in this thread, and runs each once (a worker's warm-up). */
export async function loadEinvoiceRulesHere(sets: readonly RuleSet[] = RECEIVING_RULE_SETS): Promise<void> {
  await saxonJs();
  for (const set of sets) for (const name of RULE_SETS[set]) await loadStylesheet(name);
  for (const set of sets) await validateEinvoiceHere(WARM_UP_DOCUMENTS[set], set);
}

// The pool. A document takes ~100 ms of CPU: in this thread it would stop the event loop meanwhile and
// cap the process at ~10 documents/s. Each worker loads SaxonJS and the rules once (1 to 3 s, 100 to
// 160 MiB) and validates one document at a time; workers start as documents wait, up to the pool's size,
// and a worker idle for `idleMs` stops, except the one that holds every rule set (decision 495).

/** What a worker answers for a document: its result, or the error, a DomainError's code kept (400 stays 400). */
export type WorkerReply = { result: ValidationResult } | { error: { message: string; code?: ErrorCode } };

/** A worker gives its heap's free pages back after a document longer than this (1 Mi characters, some 800 lines) and after its warm-up (decision 494). */
export const REDUCE_MEMORY_AFTER_CHARS = 2 ** 20;

/** What the pool asks a worker: validate a document under a rule set, or load every rule set now. */
export type WorkerRequest = { xml: string; set: RuleSet } | { warm: true; sets: RuleSet[] };

interface Job {
  request: WorkerRequest;
  /** A long document's (decision 491): run in the lane for long documents, with their bound. */
  long: boolean;
  /** Whose document it is (validationOwner), for the pool's turns. */
  owner: string;
  resolve(result: ValidationResult): void;
  reject(e: Error): void;
}
interface Thread {
  worker: Worker;
  /** The rule sets this worker has loaded (its warm-up's): its first document of a set loads it first. */
  loaded: Set<RuleSet>;
  job?: Job | undefined;
  timer?: NodeJS.Timeout;
  /** Set while the worker is idle: when it fires, the worker stops unless it is the one kept (decision 495). */
  idle?: NodeJS.Timeout | undefined;
}

const WORKER = join(import.meta.dirname, 'validate-worker.ts');
/**
 * Whose documents wait for a worker (decision 472): the validation of a company's documents runs inside
 * `validationOwner.run(companyId, …)`; the pool then serves the owners in turn, one document each, so one
 * company's hundred long invoices never keep another's waiting behind them. Without an owner: ''.
 */
export const validationOwner = new AsyncLocalStorage<string>();

/** The waiting documents by owner: the owner served longest ago (or never) goes first. */
class FairQueue {
  private readonly byOwner = new Map<string, Job[]>();
  /** When each owner was last served (a counter). */
  private readonly servedAt = new Map<string, number>();
  private served = 0;
  length = 0;
  /** The first waiting job `takes` accepts of the owner served longest ago. */
  shift(takes: (job: Job) => boolean): Job | undefined {
    let pick: string | undefined;
    let index = -1;
    for (const [owner, waiting] of this.byOwner) {
      const i = waiting.findIndex(takes);
      if (i < 0) continue;
      if (pick === undefined || (this.servedAt.get(owner) ?? -1) < (this.servedAt.get(pick) ?? -1)) {
        pick = owner;
        index = i;
      }
    }
    if (pick === undefined) return undefined;
    const waiting = this.byOwner.get(pick)!;
    const [job] = waiting.splice(index, 1);
    if (!waiting.length) this.byOwner.delete(pick);
    this.servedAt.set(pick, ++this.served);
    this.length--;
    // The turns start afresh now and then, so that the map does not grow with every company ever served.
    if (this.servedAt.size > 10_000) this.servedAt.clear();
    return job;
  }
  push(job: Job): void {
    const waiting = this.byOwner.get(job.owner);
    if (waiting) waiting.push(job);
    else this.byOwner.set(job.owner, [job]);
    this.length++;
  }
}

const queue = new FairQueue();
const threads = new Set<Thread>();
let poolSize = defaultPoolSize();

function defaultPoolSize(): number {
  return Math.max(1, Math.min(4, availableParallelism()));
}

/** The pool's size: EINVOICE_VALIDATION_THREADS (the configuration, checked at start), else one per core up to 4. */
export function setEinvoiceValidationThreads(threads: number | undefined): void {
  poolSize = threads ?? defaultPoolSize();
  dispatch();
}

/** How long an idle worker lives: EINVOICE_VALIDATION_IDLE_SECONDS (checked at start), else 5 minutes; 0 keeps every worker. */
export function setEinvoiceValidationIdleSeconds(seconds: number | undefined): void {
  einvoiceValidationPool.idleMs = (seconds ?? 300) * 1000;
  for (const thread of threads) {
    clearTimeout(thread.idle);
    thread.idle = undefined;
  }
  dispatch();
}

/** The pool's workers, the time a document may take in one, and how long an idle worker lives. */
export const einvoiceValidationPool = {
  /**
   * How long a worker may stay idle before it stops (EINVOICE_VALIDATION_IDLE_SECONDS, default 5
   * minutes; 0: never), except the one kept: the worker that holds every rule set, else the last one
   * (decision 495). A stopped worker's memory goes back to the system; the next document that waits
   * for a worker starts one, which loads SaxonJS and that document's rules first (0.4 to 3 s).
   */
  idleMs: 300_000,
  /** Whether a worker holds every rule set received documents take (the warm-up's): /readyz's `einvoice_rules` says `loaded` only then (decision 495). */
  holdsEveryRuleSet: () => [...threads].some((t) => RECEIVING_RULE_SETS.every((set) => t.loaded.has(set))),
  timeoutMs: 30_000,
  /** A long document's bound (decision 491): 10,000 lines take a minute or two of CPU, ten times that in wall time on a loaded machine. */
  longTimeoutMs: 20 * 60_000,
  /** Added to the limit while a worker loads SaxonJS and the rules. */
  loadingMs: 300_000,
  /** Each worker, whether it has a document, and the rule sets it has loaded (one holds the OIOUBL ones: decision 492). */
  workers: () => [...threads].map((t) => ({ worker: t.worker, busy: t.job !== undefined, sets: [...t.loaded] })),
};

function startThread(): Thread {
  // No execArgv: a worker inherits the process's, so under `npm start`, the CLI and tsx it loads this
  // TypeScript file through the same loader (tsx), and where no loader is registered (vitest's forks)
  // Node strips its types itself (decision 238).
  const thread: Thread = { worker: new Worker(WORKER), loaded: new Set() };
  let crash: Error | undefined;
  thread.worker.on('message', (reply: WorkerReply) => {
    const job = thread.job;
    // A late answer of a worker stopped for taking too long: its document has failed already.
    if (!job) return;
    finish(thread);
    for (const set of 'warm' in job.request ? job.request.sets : [job.request.set]) thread.loaded.add(set);
    if ('result' in reply) job.resolve(reply.result);
    else if (reply.error.code) job.reject(new DomainError(reply.error.code, reply.error.message));
    else job.reject(new Error(`validating the e-invoice failed: ${reply.error.message}`));
    dispatch();
  });
  thread.worker.on('error', (e) => (crash = e));
  // A worker that ends while still in the pool has crashed (or was killed): its document fails, and the
  // next waiting document starts a replacement.
  thread.worker.on('exit', (code) => {
    if (heavyThread === thread) heavyThread = undefined;
    if (!threads.delete(thread)) return;
    const job = thread.job;
    finish(thread);
    job?.reject(
      new Error(`the e-invoice validation worker stopped (exit code ${code}) during the document${crash ? `: ${crash.message}` : ''}`, { cause: crash }),
    );
    dispatch();
  });
  threads.add(thread);
  return thread;
}

function run(thread: Thread, job: Job): void {
  clearTimeout(thread.idle);
  thread.idle = undefined;
  thread.job = job;
  // While it has a document the worker keeps the process alive (an awaited validation must finish); idle, it does not.
  thread.worker.ref();
  // The document's time limit counts the checking, not the loading of SaxonJS and the rules (seconds of
  // CPU, a minute or more while other work holds the cores): a warm-up, or a worker's first document of
  // a rule set, gets the loading's limit.
  const loading = 'warm' in job.request || !thread.loaded.has(job.request.set);
  if (heavy(job)) heavyThread = thread;
  thread.timer = setTimeout(
    () => {
      // SaxonJS cannot be interrupted inside a transform: the worker goes, and the pool starts another.
      threads.delete(thread);
      if (heavyThread === thread) heavyThread = undefined;
      finish(thread);
      void thread.worker.terminate();
      // The document's size, not a fault of the service: a 413 that says so (decision 476).
      job.reject(
        new DomainError(
          'payload_too_large',
          job.long
            ? `The document could not be checked against the official rules within ${einvoiceValidationPool.longTimeoutMs / 60_000} minutes: it is too large to check.`
            : `The document could not be checked against the official rules within ${einvoiceValidationPool.timeoutMs / 1000} seconds: it is too large to check in one request.`,
          'body',
        ),
      );
      dispatch();
    },
    (job.long ? einvoiceValidationPool.longTimeoutMs : einvoiceValidationPool.timeoutMs) + (loading ? einvoiceValidationPool.loadingMs : 0),
  );
  thread.worker.postMessage(job.request);
}

function finish(thread: Thread): void {
  clearTimeout(thread.timer);
  thread.job = undefined;
  thread.worker.unref();
}

/**
 * Whether a free worker may take a long document now: long documents (decision 491) take at most one
 * worker less than the pool (one in a pool of one or two), so that the requests' documents keep the rest.
 */
function longLaneFree(): boolean {
  let busy = 0;
  for (const t of threads) if (t.job?.long) busy++;
  return busy < Math.max(1, poolSize - 1);
}

/** The worker that holds the OIOUBL rules (decision 492): the first that takes an OIOUBL document or the full warm-up. */
let heavyThread: Thread | undefined;
const heavy = (job: Job) => ('warm' in job.request ? job.request.sets.some((set) => HEAVY_RULE_SETS.includes(set)) : HEAVY_RULE_SETS.includes(job.request.set));

/**
 * What a worker (undefined: one about to start) may take: a long document while the lane has room, an
 * OIOUBL one if it is (or may become) the worker with those rules, and a warm-up only if it lacks some of
 * its rules, or the pool has no room for a new worker (a warm-up is there to start one).
 */
const takes = (thread: Thread | undefined) => {
  const long = longLaneFree();
  const room = threads.size < poolSize;
  return (job: Job) =>
    (!job.long || long) &&
    (!heavy(job) || heavyThread === undefined || heavyThread === thread) &&
    !(room && thread && 'warm' in job.request && job.request.sets.every((set) => thread.loaded.has(set)));
};

/** Stops a worker that has no document (above the pool's size, or idle too long): its memory goes back to the system. */
function stop(thread: Thread): void {
  clearTimeout(thread.idle);
  threads.delete(thread);
  if (heavyThread === thread) heavyThread = undefined;
  void thread.worker.terminate();
}

/**
 * The worker kept however long it idles (decision 495): the one that holds every rule set received
 * documents take (the warm-up's, decision 633), else the one with the OIOUBL rules, else the last one.
 */
function kept(thread: Thread): boolean {
  const full = [...threads].find((t) => RECEIVING_RULE_SETS.every((set) => t.loaded.has(set)));
  return full ? full === thread : heavyThread ? heavyThread === thread : threads.size === 1;
}

/** An idle worker's timer: when it fires, the worker stops unless it is kept or has a document by then. */
function idleTimer(thread: Thread): void {
  if (thread.idle || !einvoiceValidationPool.idleMs) return;
  thread.idle = setTimeout(() => {
    thread.idle = undefined;
    if (!thread.job && threads.has(thread) && !kept(thread)) stop(thread);
  }, einvoiceValidationPool.idleMs);
  thread.idle.unref();
}

/** Hands waiting documents to idle workers, starts workers up to the pool's size, stops idle ones above it, and times the rest's idleness. */
function dispatch(): void {
  for (const thread of threads) {
    if (thread.job) continue;
    const job = queue.shift(takes(thread));
    if (job) run(thread, job);
    else if (threads.size > poolSize) stop(thread);
    else idleTimer(thread);
  }
  // While a worker warms up, documents wait for it (decision 633) rather than start another worker that
  // would load the same rules beside it (two loads at once took the server from 257 to 606 MiB).
  const warming = [...threads].some((t) => t.job && 'warm' in t.job.request);
  while (queue.length && threads.size < poolSize && !warming) {
    const job = queue.shift(takes(undefined));
    if (!job) break;
    run(startThread(), job);
  }
}

/** Runs a rule set (default Peppol: CEN EN 16931 UBL and Peppol BIS 3 incl. DK rules) on a document, in a worker thread. */
export async function validateEinvoice(xml: string, set: RuleSet = 'peppol', opts: { long?: boolean } = {}): Promise<ValidationResult> {
  // The set's rules compiled here, once, before a worker needs them: otherwise each would compile them itself.
  await ruleFiles(RULE_SETS[set]);
  return submit({ xml, set }, opts.long ?? false);
}

function submit(request: WorkerRequest, long = false): Promise<ValidationResult> {
  return new Promise((resolve, reject) => {
    queue.push({ request, long, owner: validationOwner.getStore() ?? '', resolve, reject });
    dispatch();
  });
}

/**
 * Warm from the start: compiles the rules into the SEF cache (nothing to do when a build or an earlier
 * start did), then makes one worker hold every rule set, so that the first document of any kind waits
 * for no load. The pool's other workers start when documents wait for one (decision 495): each loads
 * SaxonJS and its first document's rules then, and stops after `idleMs` idle; the warm one is kept.
 */
export async function warmEinvoiceValidation(): Promise<void> {
  await ruleFiles();
  if (!einvoiceValidationPool.holdsEveryRuleSet()) await submit({ warm: true, sets: [...RECEIVING_RULE_SETS] });
}
