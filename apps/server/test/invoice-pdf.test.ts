// The seller profile (GET/PUT /settings/company, `tlr company set`) and the invoice PDF, read back with
// a PDF text extractor. Issue 8 § 8: what faktureringsbekendtgørelsen requires on a full invoice — issue
// date, sequential number, seller's name, address and CVR, buyer's name and address, descriptions,
// quantities, unit prices excluding VAT, VAT rate and amount per rate, totals, payment terms and bank
// details; drafts watermarked, credit notes titled as such.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractText, getDocumentProxy, getResolvedPDFJS } from 'unpdf';
import { addDays, today } from '@tlr/domain';
import { client, internal, newCompany, startTestService } from './helpers.ts';
import type { Service } from '../src/service.ts';

let svc: Service;
let company: Awaited<ReturnType<typeof newCompany>>;
let customerId: string;
const day = (offset = 0) => addDays(today(), offset);
const danish = (iso: string) => iso.split('-').reverse().join('.');
const api = async (scopes?: Parameters<typeof company.key>[0], mode?: 'live' | 'test') => client(svc.url, (await company.key(scopes, mode)).key);

const PROFILE = {
  address_line1: 'Nørregade 7',
  postal_code: '1165',
  city: 'København K',
  email: 'faktura@snedker.dk',
  phone: '+45 33 12 34 56',
  bank_reg_number: '0040',
  bank_account_number: '0440116243',
  iban: 'dk50 0040 0440 1162 43',
};

async function pdf(key: string, path: string) {
  const res = await fetch(`${svc.url}/api/v1${path}`, { headers: { 'X-API-Key': key } });
  const bytes = new Uint8Array(await res.arrayBuffer());
  if (!res.headers.get('content-type')?.startsWith('application/pdf')) return { res, text: new TextDecoder().decode(bytes), pages: 0 };
  const doc = await getDocumentProxy(bytes.slice()); // pdf.js takes over (detaches) the buffer it is given
  const { text, totalPages } = await extractText(doc, { mergePages: true });
  return { res, text: text.replace(/\s+/g, ' '), pages: totalPages, bytes };
}

/**
 * Where the first page puts its text and its horizontal rules, in PDF units from the page's bottom: each
 * text item at its baseline, each rule (a stroked move-to/line-to at one height) at its height. Paths are
 * drawn under the current transformation matrix (pdfkit flips the page), so it is followed through
 * save, restore and transform.
 */
async function firstPageLayout(bytes: Uint8Array) {
  const { OPS } = await getResolvedPDFJS();
  const page = await (await getDocumentProxy(bytes.slice())).getPage(1);
  const text = (await page.getTextContent()).items.flatMap((i) =>
    'str' in i && i.str.trim() ? [{ str: i.str, x: i.transform[4] as number, y: i.transform[5] as number }] : [],
  );
  const { fnArray, argsArray } = await page.getOperatorList();
  const rules: { y: number; from: number; to: number }[] = [];
  const stack: number[][] = [];
  let ctm = [1, 0, 0, 1, 0, 0];
  fnArray.forEach((fn, i) => {
    const args = argsArray[i];
    if (fn === OPS.save) stack.push(ctm);
    else if (fn === OPS.restore) ctm = stack.pop() ?? ctm;
    else if (fn === OPS.transform) {
      const [a, b, c, d, e, f] = args as number[];
      const [A, B, C, D, E, F] = ctm as [number, number, number, number, number, number];
      ctm = [a! * A + b! * C, a! * B + b! * D, c! * A + d! * C, c! * B + d! * D, e! * A + f! * C + E, e! * B + f! * D + F];
    } else if (fn === OPS.constructPath) {
      // [paint op, [path: 0 moveTo x y, 1 lineTo x y, ...], bounds]
      const path = Array.from((args as [number, ArrayLike<number>[]])[1][0] ?? []);
      if (path.length === 6 && path[0] === 0 && path[3] === 1 && path[2] === path[5]) {
        const y = ctm[1]! * path[1]! + ctm[3]! * path[2]! + ctm[5]!;
        rules.push({ y, from: ctm[0]! * path[1]! + ctm[4]!, to: ctm[0]! * path[4]! + ctm[4]! });
      }
    }
  });
  return { text, rules };
}

beforeAll(async () => {
  svc = await startTestService();
  company = await newCompany('Snedker Ærø ApS', '31415926');
  const c = await api();
  customerId = (await c.post('/customers', { name: 'Kunde Åbenrå A/S', address_line1: 'Storegade 3', postal_code: '6200', city: 'Aabenraa', cvr: '12345674' }))
    .body.data.id;
});
afterAll(() => svc.stop());

describe('GET/PUT /settings/company', () => {
  it('stores the seller profile, normalising the IBAN, and answers it back', async () => {
    const c = await api();
    const put = await c.put('/settings/company', PROFILE);
    expect(put.status).toBe(200);
    expect(put.body.data).toMatchObject({
      id: company.companyId,
      name: 'Snedker Ærø ApS',
      cvr: '31415926',
      livemode: true,
      ...PROFILE,
      iban: 'DK5000400440116243',
      country: 'DK',
    });
    expect((await c.get('/settings/company')).body.data).toEqual(put.body.data);
  });

  it('refuses a wrong IBAN, registration or account number by field and rule, and changes nothing', async () => {
    const c = await api();
    const before = (await c.get('/settings/company')).body.data;
    for (const [field, value, rule] of [
      ['iban', 'DK5000400440116244', /check digits/],
      ['iban', 'DK500040044011624', /18 characters/],
      ['bank_reg_number', '40', /4 digits/],
      ['bank_account_number', '12345678901', /up to 10 digits/],
      ['country', 'Danmark', /alpha-2/],
      ['email', 'not-an-email', /e-mail/],
      ['cvr', '11111111', /wrong check digit \(not a valid CVR number by the modulus 11 rule/],
      ['cvr', '1234567', /must have 8 digits/],
    ] as const) {
      const r = await c.put('/settings/company', { city: 'Odense', [field]: value });
      expect(r.status, `${field}=${value}`).toBe(400);
      expect(r.headers.get('content-type')).toMatch(/application\/problem\+json/);
      expect(r.body.errors).toEqual([expect.objectContaining({ field, message: expect.stringMatching(rule) })]);
    }
    expect((await c.get('/settings/company')).body.data).toEqual(before);
  });

  it('sets the CVR of a company created without one, which its sandbox and invoice PDF then carry (SAF-T: saft.test.ts); "" removes it', async () => {
    const late = await newCompany('Sen CVR ApS');
    const key = (await late.key()).key;
    const c = client(svc.url, key);
    const test = client(svc.url, (await late.key(undefined, 'test')).key);
    const customer = (await c.post('/customers', { name: 'Kunde uden CVR' })).body.data.id;
    const inv = (
      await c.post('/invoices', {
        customer_id: customer,
        issue_date: day(),
        due_date: day(14),
        lines: [{ description: 'Arbejde', quantity: 1, unit_price: 100 }],
        auto_approve: true,
      })
    ).body.data;
    expect((await pdf(key, `/invoices/${inv.id}/pdf`)).text).not.toContain('CVR-nr.');

    const put = await c.put('/settings/company', { cvr: '12 34 56 82' });
    expect(put.status).toBe(200);
    expect(put.body.data.cvr).toBe('12345682');
    expect((await c.get('/settings/company')).body.data.cvr).toBe('12345682');
    expect((await test.get('/settings/company')).body.data.cvr).toBe('12345682');
    expect((await pdf(key, `/invoices/${inv.id}/pdf`)).text).toContain('Sen CVR ApS CVR-nr. 12345682');

    expect((await c.put('/settings/company', { city: 'Ribe' })).body.data.cvr).toBe('12345682');
    expect((await c.put('/settings/company', { cvr: '' })).body.data.cvr).toBe('');
    expect((await test.get('/settings/company')).body.data.cvr).toBe('');
    expect((await c.put('/settings/company', { cvr: '87654346' })).body.data.cvr).toBe('87654346');
    expect((await c.put('/settings/company', { cvr: null })).body.data.cvr).toBe('');
  });

  it('mirrors a live change to the sandbox; a test key changes only the sandbox', async () => {
    const live = await api();
    const test = await api(undefined, 'test');
    await live.put('/settings/company', { city: 'Svendborg' });
    expect((await test.get('/settings/company')).body.data).toMatchObject({ livemode: false, city: 'Svendborg', iban: 'DK5000400440116243' });
    await test.put('/settings/company', { city: 'Testby' });
    expect((await live.get('/settings/company')).body.data.city).toBe('Svendborg');
    expect((await test.get('/settings/company')).body.data.city).toBe('Testby');
    await live.put('/settings/company', { city: PROFILE.city });
  });

  it('needs accounts:read to read and accounts:write to change', async () => {
    expect((await (await api(['invoices:read'])).get('/settings/company')).status).toBe(403);
    const reader = await api(['accounts:read']);
    expect((await reader.get('/settings/company')).status).toBe(200);
    const r = await reader.put('/settings/company', { city: 'X' });
    expect(r.status).toBe(403);
  });

  it('the CLI procedure applies the same rules in one transaction', async () => {
    const op = internal().internal;
    await expect(op.updateCompany({ companyId: company.companyId, lock_date: '2020-01-31', iban: 'DK00' })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    const settings = (await (await api()).get('/settings/company')).body.data;
    expect(settings.lock_date).toBeNull(); // the valid half was not applied either
    const r = await op.updateCompany({ companyId: company.companyId, phone: '+45 70 10 20 30' });
    expect(r.company.phone).toBe('+45 70 10 20 30');
  });
});

describe('GET /invoices/{id}/pdf', () => {
  const lines = [
    { description: 'Egetræsbord, håndlavet', quantity: 3, unit_price: 19.96 },
    { description: 'Momsfri rådgivning', quantity: 1.5, unit_price: 10.1, vat_rate: 0 },
  ];

  it('prints every particular of a full Danish invoice', async () => {
    const k = (await company.key()).key;
    const c = client(svc.url, k);
    const inv = (
      await c.post('/invoices', { customer_id: customerId, issue_date: day(), due_date: day(14), lines, notes: 'Tak for handlen', auto_approve: true })
    ).body.data;
    const { res, text, bytes } = await pdf(k, `/invoices/${inv.id}/pdf`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toBe(`inline; filename="faktura-${inv.invoice_number}.pdf"`);
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    expect(new TextDecoder().decode(bytes!.slice(0, 5))).toBe('%PDF-');
    for (const expected of [
      'FAKTURA',
      `Fakturanr. ${inv.invoice_number}`,
      `Fakturadato ${danish(day())}`,
      `Forfaldsdato ${danish(day(14))}`,
      // seller
      'Snedker Ærø ApS',
      'Nørregade 7',
      '1165 København K',
      'CVR-nr. 31415926',
      // buyer
      'Kunde Åbenrå A/S',
      'Storegade 3',
      '6200 Aabenraa',
      'CVR-nr. 12345674',
      // lines: description, quantity, unit price excl. VAT, rate, amount
      'Egetræsbord, håndlavet 3 19,96 25 59,88',
      'Momsfri rådgivning 1,5 10,10 0 15,15',
      // VAT per rate and totals
      'Subtotal ekskl. moms 75,03',
      'Moms 25 % af 59,88 14,97',
      'Momsfrit (0 %) af 15,15 0,00',
      'Total DKK inkl. moms 90,00',
      // payment terms and bank details
      `netto 14 dage. Forfaldsdato ${danish(day(14))}`,
      'Reg.nr. 0040 Kontonr. 0440116243',
      'IBAN DK50 0040 0440 1162 43',
      'Tak for handlen',
    ]) {
      expect(text).toContain(expected);
    }
    expect(text).not.toContain('KLADDE');
  });

  it('watermarks a draft, which has no number yet, and shows the customer as it is now', async () => {
    const k = (await company.key()).key;
    const c = client(svc.url, k);
    const inv = (await c.post('/invoices', { customer_id: customerId, issue_date: day(), due_date: day(8), lines })).body.data;
    const { res, text } = await pdf(k, `/invoices/${inv.id}/pdf`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toBe(`inline; filename="faktura-kladde-${inv.id}.pdf"`);
    expect(text).toContain('FAKTURA (KLADDE)');
    expect(text).toContain('Fakturanr. tildeles ved godkendelse');
    expect(text).toContain('KLADDE');
    expect(text).toContain('Kunde Åbenrå A/S');
    expect(text).toContain('netto 8 dage');
  });

  it('prints the credit note of a cancelled invoice under its own number, naming the invoice', async () => {
    const k = (await company.key()).key;
    const c = client(svc.url, k);
    const inv = (await c.post('/invoices', { customer_id: customerId, issue_date: day(), due_date: day(14), lines, auto_approve: true })).body.data;
    expect((await pdf(k, `/invoices/${inv.id}/pdf?document=credit_note`)).res.status).toBe(404);
    const note = (await c.put(`/invoices/${inv.id}/status`, { status: 'cancelled' })).body.data.credit_note;
    const { res, text } = await pdf(k, `/invoices/${inv.id}/pdf?document=credit_note`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toBe(`inline; filename="kreditnota-${note.credit_note_number}.pdf"`);
    expect(text).toContain('KREDITNOTA');
    expect(text).toContain(`Kreditnotanr. ${note.credit_note_number}`);
    expect(text).toContain(`Krediterer faktura nr. ${inv.invoice_number} af ${danish(day())}`);
    expect(text).toContain('Krediteret i alt DKK -90,00');
    expect(text).not.toContain('FAKTURA ');
    // The invoice itself still prints as the invoice it was.
    expect((await pdf(k, `/invoices/${inv.id}/pdf`)).text).toContain(`Fakturanr. ${inv.invoice_number}`);
  });

  it('prints a cancelled invoice as cancelled and credited by its credit note, asking for no payment', async () => {
    const k = (await company.key()).key;
    const c = client(svc.url, k);
    const inv = (await c.post('/invoices', { customer_id: customerId, issue_date: day(), due_date: day(14), lines, auto_approve: true })).body.data;
    const paying = (await pdf(k, `/invoices/${inv.id}/pdf`)).text;
    for (const asks of ['Forfaldsdato', 'Betales til', 'ved betaling']) expect(paying).toContain(asks);
    const note = (await c.put(`/invoices/${inv.id}/status`, { status: 'cancelled' })).body.data.credit_note;
    const { res, text } = await pdf(k, `/invoices/${inv.id}/pdf`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toBe(`inline; filename="faktura-${inv.invoice_number}.pdf"`);
    expect(text).toContain('FAKTURA (ANNULLERET)');
    expect(text).toContain(`Fakturanr. ${inv.invoice_number}`);
    expect(text).toContain(`Status Annulleret – krediteret ved kreditnota nr. ${note.credit_note_number} af ${danish(day())}`);
    expect(text).toContain('Fakturaen skal ikke betales.');
    // No due date, payment terms or bank details: nothing asks for money.
    for (const asks of ['Forfaldsdato', 'Betalingsbetingelser', 'Betales til', 'betales senest', 'Reg.nr.', 'IBAN', 'ved betaling'])
      expect(text).not.toContain(asks);
    // What was invoiced stays readable.
    expect(text).toContain('Total DKK inkl. moms 90,00');
  });

  it('sets the line table headings each on one line, above the rule under them', async () => {
    const k = (await company.key()).key;
    const inv = (await client(svc.url, k).post('/invoices', { customer_id: customerId, issue_date: day(), due_date: day(14), lines })).body.data;
    const { text, rules } = await firstPageLayout((await pdf(k, `/invoices/${inv.id}/pdf`)).bytes!);
    const headings = ['Beskrivelse', 'Antal', 'Enhedspris ekskl. moms', 'Moms %', 'Beløb DKK'].map((h) => {
      const found = text.filter((t) => t.str === h);
      expect(found, h).toHaveLength(1); // the whole heading in one piece: not wrapped
      return found[0]!;
    });
    // One baseline for all of them.
    expect(new Set(headings.map((h) => h.y.toFixed(1))).size).toBe(1);
    // The header rule: the first full-width rule below them; the headings' descenders (8 pt) clear it.
    const baseline = headings[0]!.y;
    const rule = rules.filter((r) => r.y < baseline && r.from <= 50 && r.to >= 545).sort((a, b) => b.y - a.y)[0];
    expect(rule).toBeDefined();
    expect(baseline - rule!.y).toBeGreaterThan(8 * 0.25);
    // Nothing of the table's heading sits between the rule and the first line.
    const firstLine = text.find((t) => t.str === 'Egetræsbord, håndlavet')!;
    expect(firstLine.y).toBeLessThan(rule!.y);
    expect(text.filter((t) => t.y < rule!.y && t.y > firstLine.y)).toEqual([]);
  });

  it('flows a long invoice over several pages without losing a line', async () => {
    const k = (await company.key()).key;
    const c = client(svc.url, k);
    const many = Array.from({ length: 90 }, (_, i) => ({
      description: `Vare nr. ${i + 1} ${'med en lang beskrivelse '.repeat(i % 3)}`.trim(),
      quantity: 1,
      unit_price: 1,
    }));
    const inv = (await c.post('/invoices', { customer_id: customerId, issue_date: day(), due_date: day(14), lines: many, auto_approve: true })).body.data;
    const { text, pages } = await pdf(k, `/invoices/${inv.id}/pdf`);
    expect(pages).toBeGreaterThan(1);
    for (let i = 1; i <= 90; i++) expect(text).toContain(`Vare nr. ${i} `);
    expect(text).toContain('Total DKK inkl. moms 112,50');
  });

  it('refuses as every endpoint does: scope, other company, bad parameters', async () => {
    const k = (await company.key()).key;
    const inv = (await client(svc.url, k).post('/invoices', { customer_id: customerId, issue_date: day(), due_date: day(14), lines })).body.data;
    const noScope = await pdf((await company.key(['customers:read'])).key, `/invoices/${inv.id}/pdf`);
    expect(noScope.res.status).toBe(403);
    expect(noScope.res.headers.get('content-type')).toMatch(/application\/problem\+json/);
    const other = await newCompany('Anden ApS');
    expect((await pdf((await other.key()).key, `/invoices/${inv.id}/pdf`)).res.status).toBe(404);
    expect((await pdf((await company.key(undefined, 'test')).key, `/invoices/${inv.id}/pdf`)).res.status).toBe(404);
    const bad = await pdf(k, `/invoices/${inv.id}/pdf?document=receipt`);
    expect(bad.res.status).toBe(400);
    expect(JSON.parse(bad.text).errors).toEqual([expect.objectContaining({ field: 'document' })]);
    expect((await pdf(k, `/invoices/not-a-uuid/pdf`)).res.status).toBe(400);
  });
});
