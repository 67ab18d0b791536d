// E-invoice benchmark: documents per second made (ublXml, Peppol BIS 3 UBL of a 10-line invoice, with
// and without its PDF rendered to embed; the baseline the same document as JSON) and through the official
// rules (the CEN EN 16931 xslt and the Peppol BIS 3 schematron, SaxonJS): in this thread, one document
// after the other (validateEinvoiceHere, what each worker runs), and through validateEinvoice's pool of
// worker threads with many documents in flight; next to a bare baseline in the same run: a plain XML
// parse of the same documents.
//
//   tsx bench/einvoice-validate.ts   (or: npm run bench:einvoice)
//
//   a. the first call in this thread, timed on its own: it loads SaxonJS and the compiled rules (SEF), and
//      compiles them first when this machine has none cached (then it takes tens of seconds)
//   b. one warm-up pass over the examples (packages/domain/src/einvoice/examples, Peppol's own), each
//      checked to have no fatal failure
//   c. BENCH_SECONDS of validation in this thread, one document after the other, round the examples:
//      documents/s, the per-document p50 and p99, and this process's CPU time per document
//   d. the pool: the examples all at once (starting its workers: timed), then BENCH_POOL_DOCUMENTS round
//      the examples all in flight at once: documents/s, each one's time from submission to result (p50,
//      p99: mostly waiting in the queue), the process's CPU (every thread) per document, and the longest
//      delay of this thread's event loop meanwhile (in this thread, a document holds the event loop for
//      its whole time); then the baseline for BENCH_SECONDS
//
// Environment (all optional): BENCH_SECONDS (10), BENCH_POOL_DOCUMENTS (200), EINVOICE_VALIDATION_THREADS
// (the pool's size, as for the server; unset: one per core, at most 4), BENCH_CPU_PROF (a folder: the CPU
// profile of step c, the rules in this thread after the warm-up: lib.ts cpuProfiled).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { XMLParser } from 'fast-xml-parser';
import { loadConfig } from '@tlr/config';
import {
  Decimal,
  einvoiceValidationPool,
  renderInvoicePdf,
  setEinvoiceValidationThreads,
  ublXml,
  validateEinvoice,
  validateEinvoiceHere,
  type InvoiceDocument,
  type UblDocument,
} from '@tlr/domain';
import { cpuProfiled, machineLines, ms, percentile } from './lib.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const POOL_DOCUMENTS = Number(process.env.BENCH_POOL_DOCUMENTS ?? 200);
setEinvoiceValidationThreads(loadConfig({ EINVOICE_VALIDATION_THREADS: process.env.EINVOICE_VALIDATION_THREADS }).EINVOICE_VALIDATION_THREADS);
const EXAMPLES = join(import.meta.dirname, '..', 'packages', 'domain', 'src', 'einvoice', 'examples');
const documents = readdirSync(EXAMPLES)
  .filter((f) => f.endsWith('.xml'))
  .map((f) => ({ name: f, xml: readFileSync(join(EXAMPLES, f), 'utf8') }));

interface Measured {
  perSecond: number;
  /** This process's CPU time per document, ms: steadier than documents/s on a shared machine. */
  cpu: number;
  sorted: number[];
  /** With documents in flight: the longest this thread's event loop was kept waiting meanwhile, ms. */
  loopMax?: number;
}
/** Times `run`, which gives each document's time in ms: documents/s and CPU. */
async function timed(run: () => Promise<number[]>): Promise<Measured> {
  const start = performance.now();
  const cpu = process.cpuUsage();
  const times = await run();
  const { user, system } = process.cpuUsage(cpu);
  return { perSecond: times.length / ((performance.now() - start) / 1000), cpu: (user + system) / 1000 / times.length, sorted: times.sort((a, b) => a - b) };
}

/** Runs `op` on the documents in turn for BENCH_SECONDS (this loop never yields: in this thread the event loop waits for each document). */
const measure = (op: (xml: string) => unknown) =>
  timed(async () => {
    const times: number[] = [];
    const start = performance.now();
    for (let i = 0; performance.now() - start < SECONDS * 1000; i++) {
      const t = performance.now();
      await op(documents[i % documents.length]!.xml);
      times.push(performance.now() - t);
    }
    return times;
  });

/** Runs `op` on `n` documents round the examples, all submitted at once: each one's time is from then to its result. */
async function allInFlight(op: (xml: string) => Promise<unknown>, n: number): Promise<Measured> {
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const measured = await timed(() => {
    const start = performance.now();
    return Promise.all(Array.from({ length: n }, (_, i) => op(documents[i % documents.length]!.xml).then(() => performance.now() - start)));
  });
  loop.disable();
  return { ...measured, loopMax: loop.max / 1e6 };
}

const line = (name: string, r: Measured) =>
  `${name.padEnd(22)} ${r.perSecond.toFixed(1).padStart(9)} documents/s   p50 ${ms(percentile(r.sorted, 50)).padStart(6)} ms   p99 ${ms(percentile(r.sorted, 99)).padStart(6)} ms   CPU ${ms(r.cpu).padStart(6)} ms/document   (${r.sorted.length} documents)${r.loopMax === undefined ? '' : `   event loop delay max ${ms(r.loopMax)} ms`}`;

// a. Making documents: a 10-line invoice, its PDF (made once, or per document as GET /invoices/{id}/ubl does).
const party = (name: string, cvr: string) => ({
  name,
  street: 'Vestergade 12',
  additionalStreet: '',
  city: 'Aarhus C',
  postalCode: '8000',
  country: 'DK',
  cvr,
  vatNumber: `DK${cvr}`,
  endpoint: `0184:${cvr}`,
  email: '',
});
const lines = Array.from({ length: 10 }, (_, i) => ({
  description: `Ydelse ${i + 1}`,
  quantity: new Decimal(i + 1),
  unitPrice: new Decimal('19.96'),
  amount: new Decimal('19.96').times(i + 1),
  vatCode: 'S25',
  vatRate: new Decimal(25),
  unit: 'C62',
  discountPercent: new Decimal(0),
}));
const pdfDocument: InvoiceDocument = {
  kind: 'invoice',
  draft: false,
  number: '17',
  date: '2026-11-20',
  due_date: '2026-12-04',
  payment_terms_days: 14,
  credits: null,
  credited_by: null,
  seller: {
    name: 'Sælger ApS',
    address: ['Vestergade 12', '8000 Aarhus C'],
    cvr: '12345674',
    email: '',
    phone: '',
    bank_reg_number: '0040',
    bank_account_number: '0440116243',
    iban: '',
  },
  fi_payment_line: '',
  buyer: { name: 'Køber ApS', address: ['Nørregade 7', '1165 København K'], cvr: '29190925' },
  lines: lines.map((l) => ({
    description: l.description,
    quantity: l.quantity.toString(),
    unit_price: l.unitPrice.toFixed(2),
    vat_rate: '25',
    unit: l.unit,
    discount_percent: '0',
    amount: l.amount.toFixed(2),
  })),
  vat: [{ label: 'Moms 25 %', base: '1097.80', amount: '274.45' }],
  currency: 'DKK',
  dkk: null,
  subtotal: '1097.80',
  vat_amount: '274.45',
  total: '1372.25',
  paid_amount: '0.00',
  notes: '',
  filename: 'faktura-17.pdf',
};
const pdf = await renderInvoicePdf(pdfDocument);
const ubl: UblDocument = {
  kind: 'invoice',
  uuid: '01a21ce8-a3a9-7b12-a213-50d9dcada53e',
  number: '17',
  issueDate: '2026-11-20',
  dueDate: '2026-12-04',
  credits: null,
  currency: 'DKK',
  rate: new Decimal(1),
  note: '',
  buyerReference: '17',
  seller: party('Sælger ApS', '12345674'),
  buyer: party('Køber ApS', '29190925'),
  lines,
  bank: { regNumber: '0040', accountNumber: '0440116243', iban: '' },
  fi: null,
  paymentTermsDays: 14,
  pdf: { filename: 'faktura-17.pdf', content: pdf },
};
const made = await measure(() => ublXml(ubl));
const madeWithPdf = await measure(async () => ublXml({ ...ubl, pdf: { filename: 'faktura-17.pdf', content: await renderInvoicePdf(pdfDocument) } }));
const json = await measure(() => JSON.stringify({ ...ubl, pdf: { filename: ubl.pdf!.filename, content: ubl.pdf!.content.toString('base64') } }));
console.log(`UBL generation: a 10-line invoice with a ${(pdf.length / 1024).toFixed(1)} KiB PDF embedded, ${SECONDS} s each`);
console.log(line('ublXml', made));
console.log(line('ublXml + its PDF', madeWithPdf));
console.log(line('baseline (JSON)', json));
console.log();

const bytes = documents.reduce((n, d) => n + d.xml.length, 0);
console.log(`e-invoice validation: ${documents.length} examples, ${(bytes / documents.length / 1024).toFixed(1)} KiB on average, ${SECONDS} s each`);

const first = performance.now();
await validateEinvoiceHere(documents[0]!.xml);
console.log(`first call in this thread (load SaxonJS and the rules; compile them when not cached): ${ms(performance.now() - first)} ms`);

const valid = (name: string, { fatal }: { fatal: { id: string }[] }) => {
  if (fatal.length) throw new Error(`${name}: ${fatal.map((f) => f.id).join(', ')}`);
};
valid("the bench's own invoice", await validateEinvoiceHere(ublXml(ubl)));
for (const d of documents) valid(d.name, await validateEinvoiceHere(d.xml));
const here = await cpuProfiled('einvoice-rules', () => measure(validateEinvoiceHere));

const poolStart = performance.now();
const started = await Promise.all(documents.map((d) => validateEinvoice(d.xml)));
documents.forEach((d, i) => valid(d.name, started[i]!));
const threads = einvoiceValidationPool.workers().length;
console.log(`pool start: ${threads} worker threads, each loading SaxonJS and the rules, with the examples at once: ${ms(performance.now() - poolStart)} ms`);
const pooled = await allInFlight(validateEinvoice, POOL_DOCUMENTS);

// The least any validation must do: read the document's XML once.
const parser = new XMLParser({ ignoreAttributes: false, processEntities: false });
const baseline = await measure((xml) => parser.parse(xml));

console.log(line('this thread, 1 at once', here));
console.log(line(`pool of ${threads}, ${POOL_DOCUMENTS} at once`, pooled));
console.log(line('baseline (XML parse)', baseline));
console.log(
  `pool / this thread: ${(pooled.perSecond / here.perSecond).toFixed(2)}x; this thread / baseline: ${((here.perSecond / baseline.perSecond) * 100).toFixed(2)} %`,
);
for (const l of machineLines()) console.log(l);
