// E-invoice validation benchmark: documents per second through the official rules (validateEinvoice:
// the CEN EN 16931 xslt and the Peppol BIS 3 schematron, SaxonJS in this process), next to a bare
// baseline in the same run: a plain XML parse of the same documents with fast-xml-parser.
//
//   tsx bench/einvoice-validate.ts   (or: npm run bench:einvoice)
//
//   a. the first call, timed on its own: it loads SaxonJS and the compiled rules (SEF), and compiles
//      them first when this machine has none cached (then it takes tens of seconds)
//   b. one warm-up pass over the examples (packages/domain/src/einvoice/examples, Peppol's own), each
//      checked to have no fatal failure
//   c. BENCH_SECONDS of validation, one document after the other, round the examples: documents/s and
//      the per-document p50 and p99, and this process's CPU time per document; then the baseline for as long
//
// Environment (all optional): BENCH_SECONDS (10).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { validateEinvoice } from '@tlr/domain';
import { machineLines, ms, percentile } from './lib.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const EXAMPLES = join(import.meta.dirname, '..', 'packages', 'domain', 'src', 'einvoice', 'examples');
const documents = readdirSync(EXAMPLES)
  .filter((f) => f.endsWith('.xml'))
  .map((f) => ({ name: f, xml: readFileSync(join(EXAMPLES, f), 'utf8') }));

interface Measured {
  perSecond: number;
  /** This process's CPU time per document, ms: steadier than documents/s on a shared machine. */
  cpu: number;
  sorted: number[];
}
/** Runs `op` on the documents in turn for BENCH_SECONDS: documents/s and each document's time in ms. */
async function measure(op: (xml: string) => unknown): Promise<Measured> {
  const times: number[] = [];
  const start = performance.now();
  const cpu = process.cpuUsage();
  for (let i = 0; performance.now() - start < SECONDS * 1000; i++) {
    const t = performance.now();
    await op(documents[i % documents.length]!.xml);
    times.push(performance.now() - t);
  }
  const { user, system } = process.cpuUsage(cpu);
  return { perSecond: times.length / ((performance.now() - start) / 1000), cpu: (user + system) / 1000 / times.length, sorted: times.sort((a, b) => a - b) };
}

const line = (name: string, r: Measured) =>
  `${name.padEnd(22)} ${r.perSecond.toFixed(1).padStart(9)} documents/s   p50 ${ms(percentile(r.sorted, 50)).padStart(6)} ms   p99 ${ms(percentile(r.sorted, 99)).padStart(6)} ms   CPU ${ms(r.cpu).padStart(6)} ms/document   (${r.sorted.length} documents)`;

const bytes = documents.reduce((n, d) => n + d.xml.length, 0);
console.log(`e-invoice validation: ${documents.length} examples, ${(bytes / documents.length / 1024).toFixed(1)} KiB on average, ${SECONDS} s each`);

const first = performance.now();
await validateEinvoice(documents[0]!.xml);
console.log(`first call (load SaxonJS and the rules; compile them when not cached): ${ms(performance.now() - first)} ms`);

for (const d of documents) {
  const { fatal } = await validateEinvoice(d.xml);
  if (fatal.length) throw new Error(`${d.name}: ${fatal.map((f) => f.id).join(', ')}`);
}

const validation = await measure(validateEinvoice);
// The least any validation must do: read the document's XML once.
const parser = new XMLParser({ ignoreAttributes: false, processEntities: false });
const baseline = await measure((xml) => parser.parse(xml));

console.log(line('validateEinvoice', validation));
console.log(line('baseline (XML parse)', baseline));
console.log(`validation / baseline: ${((validation.perSecond / baseline.perSecond) * 100).toFixed(2)} %`);
for (const l of machineLines()) console.log(l);
