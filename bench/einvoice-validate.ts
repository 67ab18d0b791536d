// E-invoice benchmark: documents per second made (ublXml, Peppol BIS 3 UBL of a 10-line invoice, with
// and without its PDF rendered to embed; the baseline the same document as JSON) and through the official
// rules (validateEinvoice: the CEN EN 16931 xslt and the Peppol BIS 3 schematron, SaxonJS in this
// process), next to a bare baseline in the same run: a plain XML parse of the same documents.
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
import { Decimal, renderInvoicePdf, ublXml, validateEinvoice, type InvoiceDocument, type UblDocument } from '@tlr/domain';
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
  buyer: { name: 'Køber ApS', address: ['Nørregade 7', '1165 København K'], cvr: '29190925' },
  lines: lines.map((l) => ({
    description: l.description,
    quantity: l.quantity.toString(),
    unit_price: l.unitPrice.toFixed(2),
    vat_rate: '25',
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
  paymentTermsDays: 14,
  pdf: { filename: 'faktura-17.pdf', content: pdf },
};
{
  const { fatal } = await validateEinvoice(ublXml(ubl));
  if (fatal.length) throw new Error(`the bench's own invoice: ${fatal.map((f) => f.id).join(', ')}`);
}
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
