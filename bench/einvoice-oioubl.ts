// OIOUBL rendering benchmark: documents per second made as OIOUBL 2.1 (oioublXml) next to the same
// document made as Peppol BIS 3 (ublXml) and a bare baseline (the document as JSON), in the same run:
// a 10-line invoice (mixed rates, discounts and units, FIK), without and with its PDF embedded (the PDF
// rendered once: what is measured is the serialization, not pdfkit).
//
//   tsx bench/einvoice-oioubl.ts   (or: npm run bench:einvoice-oioubl)
//
// Environment (optional): BENCH_SECONDS (5): how long each figure is measured.
import { Decimal, oioublXml, renderInvoicePdf, ublXml, type InvoiceDocument, type UblDocument } from '@tlr/domain';
import { machineLines, ms, percentile } from './lib.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);

interface Measured {
  perSecond: number;
  cpu: number;
  sorted: number[];
}
/** Runs `op` for BENCH_SECONDS, one document after the other: documents/s, per-document times, CPU per document. */
function measure(op: () => unknown): Measured {
  const times: number[] = [];
  const cpu = process.cpuUsage();
  const start = performance.now();
  while (performance.now() - start < SECONDS * 1000) {
    const t = performance.now();
    op();
    times.push(performance.now() - t);
  }
  const { user, system } = process.cpuUsage(cpu);
  return { perSecond: times.length / ((performance.now() - start) / 1000), cpu: (user + system) / 1000 / times.length, sorted: times.sort((a, b) => a - b) };
}
const line = (name: string, r: Measured) =>
  `${name.padEnd(24)} ${r.perSecond.toFixed(0).padStart(8)} documents/s   p50 ${ms(percentile(r.sorted, 50)).padStart(6)} ms   p99 ${ms(percentile(r.sorted, 99)).padStart(6)} ms   CPU ${ms(r.cpu).padStart(6)} ms/document   (${r.sorted.length} documents)`;

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
// 10 lines: 25 % and exempt, every third discounted, hours and pieces.
const lines = Array.from({ length: 10 }, (_, i) => {
  const quantity = new Decimal(i + 1);
  const unitPrice = new Decimal('19.96');
  const discountPercent = new Decimal(i % 3 === 0 ? 10 : 0);
  const gross = quantity.times(unitPrice).toDecimalPlaces(2);
  return {
    description: `Ydelse ${i + 1}`,
    quantity,
    unitPrice,
    amount: gross.minus(gross.times(discountPercent).dividedBy(100).toDecimalPlaces(2)),
    vatCode: i % 4 === 3 ? 'SMF' : 'S25',
    vatRate: new Decimal(i % 4 === 3 ? 0 : 25),
    unit: i % 2 ? 'HUR' : 'C62',
    discountPercent,
  };
});
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
    unit: l.unit,
    discount_percent: l.discountPercent.toString(),
    unit_price: l.unitPrice.toFixed(2),
    vat_rate: l.vatRate.toString(),
    amount: l.amount.toFixed(2),
  })),
  vat: [],
  currency: 'DKK',
  dkk: null,
  subtotal: '0.00',
  vat_amount: '0.00',
  total: '0.00',
  paid_amount: '0.00',
  notes: '',
  filename: 'faktura-17.pdf',
};
const document: UblDocument = {
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
  fi: { paymentId: '000000000000133', creditorNumber: '81234567' },
  paymentTermsDays: 14,
  pdf: null,
};
const withPdf: UblDocument = { ...document, pdf: { filename: 'faktura-17.pdf', content: await renderInvoicePdf(pdfDocument) } };

// Warm-up, and a check that both writers take the document.
for (let i = 0; i < 50; i++) {
  oioublXml(document);
  ublXml(document);
}
console.log(
  `e-invoice rendering: a 10-line invoice (mixed rates, discounts, units, FIK), ${SECONDS} s each; PDF ${(withPdf.pdf!.content.length / 1024).toFixed(1)} KiB`,
);
const oioubl = measure(() => oioublXml(document));
const peppol = measure(() => ublXml(document));
const oioublPdf = measure(() => oioublXml(withPdf));
const peppolPdf = measure(() => ublXml(withPdf));
const json = measure(() => JSON.stringify(document));
console.log(line('OIOUBL 2.1 (oioublXml)', oioubl));
console.log(line('Peppol BIS 3 (ublXml)', peppol));
console.log(line('OIOUBL + PDF embedded', oioublPdf));
console.log(line('Peppol + PDF embedded', peppolPdf));
console.log(line('baseline (JSON)', json));
console.log(
  `OIOUBL / Peppol: ${(oioubl.perSecond / peppol.perSecond).toFixed(2)}x; OIOUBL / baseline: ${((oioubl.perSecond / json.perSecond) * 100).toFixed(2)} %`,
);
for (const l of machineLines()) console.log(l);
