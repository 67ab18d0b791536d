// The seller profile (GET/PUT /settings/company, `tlr company set`) and the invoice PDF, read back with
// a PDF text extractor. Issue 8 § 8: what faktureringsbekendtgørelsen requires on a full invoice — issue
// date, sequential number, seller's name, address and CVR, buyer's name and address, descriptions,
// quantities, unit prices excluding VAT, VAT rate and amount per rate, totals, payment terms and bank
// details; drafts watermarked, credit notes titled as such.
import { assert, beforeAll, describe, expect, it } from 'vitest';
import { extractText, getDocumentProxy, getResolvedPDFJS } from 'unpdf';
import { addDays, today } from '@tlr/domain';
import { api, client, created, idem, internal, ok, useCompany, type Api, type RequestBody } from './helpers.ts';

// Each test takes a key of its own (t.newKey), which keeps it under the rate limit of a key.
const t = useCompany({ name: 'Snedker Ærø ApS', cvr: '31415926' });
let customerId: string;
const day = (offset = 0) => addDays(today(), offset);
const danish = (iso: string) => iso.split('-').reverse().join('.');

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

const LINES = [
  { description: 'Egetræsbord, håndlavet', quantity: 3, unit_price: 19.96 },
  { description: 'Momsfri rådgivning', quantity: 1.5, unit_price: 10.1, vat_rate: 0 },
];

const settings = async (c: Api) => (await ok(c.GET('/settings/company'))).data;
const updateSettings = (c: Api, body: RequestBody<'/settings/company', 'put'>) => c.PUT('/settings/company', { body });
const invoice = async (c: Api, body: Partial<RequestBody<'/invoices', 'post'>>) =>
  (await created(c.POST('/invoices', { params: idem(), body: { customer_id: customerId, issue_date: day(), due_date: day(14), lines: LINES, ...body } }))).data;
/** Cancels an approved invoice; the credit note that did it. */
async function cancel(c: Api, id: string) {
  const { credit_note } = (await ok(c.PUT('/invoices/{id}/status', { params: { path: { id } }, body: { status: 'cancelled' } }))).data;
  if (!credit_note) throw new Error('a cancelled invoice has a credit note');
  return credit_note;
}

/** An invoice's PDF (or its credit note's) and its text; a refusal's problem when the answer is not a PDF. */
async function pdf(c: Api, id: string, document?: 'invoice' | 'credit_note') {
  const query = document ? { document } : {};
  const { data, error, response: res } = await c.GET('/invoices/{id}/pdf', { params: { path: { id }, query }, parseAs: 'arrayBuffer' });
  if (!data || !res.headers.get('content-type')?.startsWith('application/pdf')) return { res, error, text: '', pages: 0, bytes: new Uint8Array() };
  const bytes = new Uint8Array(data);
  const doc = await getDocumentProxy(bytes.slice()); // pdf.js takes over (detaches) the buffer it is given
  const { text, totalPages } = await extractText(doc, { mergePages: true });
  return { res, error, text: text.replace(/\s+/g, ' '), pages: totalPages, bytes };
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
  const customer = { name: 'Kunde Åbenrå A/S', address_line1: 'Storegade 3', postal_code: '6200', city: 'Aabenraa', cvr: '12345674' };
  customerId = (await created(t.api.POST('/customers', { params: idem(), body: customer }))).data.id;
});

describe('GET/PUT /settings/company', () => {
  it('stores the seller profile, normalising the IBAN, and answers it back', async () => {
    const c = (await t.newKey()).api;
    const put = await updateSettings(c, PROFILE);
    expect(put.response.status).toBe(200);
    expect(put.data?.data).toMatchObject({
      id: t.company.companyId,
      name: 'Snedker Ærø ApS',
      cvr: '31415926',
      livemode: true,
      ...PROFILE,
      iban: 'DK5000400440116243',
      country: 'DK',
    });
    expect(await settings(c)).toEqual(put.data?.data);
  });

  it('refuses a wrong IBAN, registration or account number by field and rule, and changes nothing', async () => {
    const c = (await t.newKey()).api;
    const before = await settings(c);
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
      const r = await updateSettings(c, { city: 'Odense', [field]: value });
      expect(r.response.status, `${field}=${value}`).toBe(400);
      expect(r.response.headers.get('content-type')).toMatch(/application\/problem\+json/);
      expect(r.error?.errors).toEqual([expect.objectContaining({ field, message: expect.stringMatching(rule) })]);
    }
    expect(await settings(c)).toEqual(before);
  });

  it('sets the CVR of a company created without one, which its sandbox and invoice PDF then carry (SAF-T: saft.test.ts); "" removes it', async () => {
    const late = await t.another('Sen CVR ApS');
    const c = late.api;
    const test = api(t.svc.url, (await late.company.key(undefined, 'test')).key);
    const customer = (await created(c.POST('/customers', { params: idem(), body: { name: 'Kunde uden CVR' } }))).data.id;
    const inv = await invoice(c, { customer_id: customer, lines: [{ description: 'Arbejde', quantity: 1, unit_price: 100 }], auto_approve: true });
    expect((await pdf(c, inv.id)).text).not.toContain('CVR-nr.');

    const put = await updateSettings(c, { cvr: '12 34 56 82' });
    expect(put.response.status).toBe(200);
    expect(put.data?.data.cvr).toBe('12345682');
    expect((await settings(c)).cvr).toBe('12345682');
    expect((await settings(test)).cvr).toBe('12345682');
    expect((await pdf(c, inv.id)).text).toContain('Sen CVR ApS CVR-nr. 12345682');

    const cvrAfter = async (body: RequestBody<'/settings/company', 'put'>) => (await ok(updateSettings(c, body))).data.cvr;
    expect(await cvrAfter({ city: 'Ribe' })).toBe('12345682');
    expect(await cvrAfter({ cvr: '' })).toBe('');
    expect((await settings(test)).cvr).toBe('');
    expect(await cvrAfter({ cvr: '87654346' })).toBe('87654346');
    expect(await cvrAfter({ cvr: null })).toBe('');
  });

  it('mirrors a live change to the sandbox; a test key changes only the sandbox', async () => {
    const live = (await t.newKey()).api;
    const test = (await t.newKey(undefined, 'test')).api;
    await ok(updateSettings(live, { city: 'Svendborg' }));
    expect(await settings(test)).toMatchObject({ livemode: false, city: 'Svendborg', iban: 'DK5000400440116243' });
    await ok(updateSettings(test, { city: 'Testby' }));
    expect((await settings(live)).city).toBe('Svendborg');
    expect((await settings(test)).city).toBe('Testby');
    await ok(updateSettings(live, { city: PROFILE.city }));
  });

  it('needs accounts:read to read and accounts:write to change', async () => {
    expect((await (await t.newKey(['invoices:read'])).api.GET('/settings/company')).response.status).toBe(403);
    const reader = (await t.newKey(['accounts:read'])).api;
    expect((await reader.GET('/settings/company')).response.status).toBe(200);
    const r = await updateSettings(reader, { city: 'X' });
    expect(r.response.status).toBe(403);
  });

  it('the CLI procedure applies the same rules in one transaction', async () => {
    const op = internal().internal;
    await expect(op.updateCompany({ companyId: t.company.companyId, lock_date: '2020-01-31', iban: 'DK00' })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    expect((await settings((await t.newKey()).api)).lock_date).toBeNull(); // the valid half was not applied either
    const r = await op.updateCompany({ companyId: t.company.companyId, phone: '+45 70 10 20 30' });
    expect(r.company.phone).toBe('+45 70 10 20 30');
  });
});

describe('GET /invoices/{id}/pdf', () => {
  it('prints every particular of a full Danish invoice', async () => {
    const c = (await t.newKey()).api;
    const inv = await invoice(c, { notes: 'Tak for handlen', auto_approve: true });
    const { res, text, bytes } = await pdf(c, inv.id);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toBe(`inline; filename="faktura-${inv.invoice_number}.pdf"`);
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    expect(new TextDecoder().decode(bytes.slice(0, 5))).toBe('%PDF-');
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
    const c = (await t.newKey()).api;
    const inv = await invoice(c, { due_date: day(8) });
    const { res, text } = await pdf(c, inv.id);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toBe(`inline; filename="faktura-kladde-${inv.id}.pdf"`);
    expect(text).toContain('FAKTURA (KLADDE)');
    expect(text).toContain('Fakturanr. tildeles ved godkendelse');
    expect(text).toContain('KLADDE');
    expect(text).toContain('Kunde Åbenrå A/S');
    expect(text).toContain('netto 8 dage');
  });

  it('prints the credit note of a cancelled invoice under its own number, naming the invoice', async () => {
    const c = (await t.newKey()).api;
    const inv = await invoice(c, { auto_approve: true });
    expect((await pdf(c, inv.id, 'credit_note')).res.status).toBe(404);
    const note = await cancel(c, inv.id);
    const { res, text } = await pdf(c, inv.id, 'credit_note');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toBe(`inline; filename="kreditnota-${note.credit_note_number}.pdf"`);
    expect(text).toContain('KREDITNOTA');
    expect(text).toContain(`Kreditnotanr. ${note.credit_note_number}`);
    expect(text).toContain(`Krediterer faktura nr. ${inv.invoice_number} af ${danish(day())}`);
    expect(text).toContain('Krediteret i alt DKK -90,00');
    expect(text).not.toContain('FAKTURA ');
    // The invoice itself still prints as the invoice it was.
    expect((await pdf(c, inv.id)).text).toContain(`Fakturanr. ${inv.invoice_number}`);
  });

  it('prints a cancelled invoice as cancelled and credited by its credit note, asking for no payment', async () => {
    const c = (await t.newKey()).api;
    const inv = await invoice(c, { auto_approve: true });
    const paying = (await pdf(c, inv.id)).text;
    for (const asks of ['Forfaldsdato', 'Betales til', 'ved betaling']) expect(paying).toContain(asks);
    const note = await cancel(c, inv.id);
    const { res, text } = await pdf(c, inv.id);
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
    const c = (await t.newKey()).api;
    const inv = await invoice(c, {});
    const { text, rules } = await firstPageLayout((await pdf(c, inv.id)).bytes);
    const headings = ['Beskrivelse', 'Antal', 'Enhedspris ekskl. moms', 'Moms %', 'Beløb DKK'].map((h) => {
      const found = text.filter((t) => t.str === h);
      expect(found, h).toHaveLength(1); // the whole heading in one piece: not wrapped
      return found[0];
    });
    const [first] = headings;
    assert.exists(first);
    // One baseline for all of them.
    expect(new Set(headings.map((h) => h?.y.toFixed(1))).size).toBe(1);
    // The header rule: the first full-width rule below them; the headings' descenders (8 pt) clear it.
    const baseline = first.y;
    const rule = rules.filter((r) => r.y < baseline && r.from <= 50 && r.to >= 545).sort((a, b) => b.y - a.y)[0];
    assert.exists(rule, 'a full-width rule under the headings');
    expect(baseline - rule.y).toBeGreaterThan(8 * 0.25);
    // Nothing of the table's heading sits between the rule and the first line.
    const firstLine = text.find((t) => t.str === 'Egetræsbord, håndlavet');
    assert.exists(firstLine);
    expect(firstLine.y).toBeLessThan(rule.y);
    expect(text.filter((t) => t.y < rule.y && t.y > firstLine.y)).toEqual([]);
  });

  it('flows a long invoice over several pages without losing a line', async () => {
    const c = (await t.newKey()).api;
    const many = Array.from({ length: 90 }, (_, i) => ({
      description: `Vare nr. ${i + 1} ${'med en lang beskrivelse '.repeat(i % 3)}`.trim(),
      quantity: 1,
      unit_price: 1,
    }));
    const inv = await invoice(c, { lines: many, auto_approve: true });
    const { text, pages } = await pdf(c, inv.id);
    expect(pages).toBeGreaterThan(1);
    for (let i = 1; i <= 90; i++) expect(text).toContain(`Vare nr. ${i} `);
    expect(text).toContain('Total DKK inkl. moms 112,50');
  });

  it('refuses as every endpoint does: scope, other company, bad parameters', async () => {
    const c = (await t.newKey()).api;
    const inv = await invoice(c, {});
    const noScope = await pdf((await t.newKey(['customers:read'])).api, inv.id);
    expect(noScope.res.status).toBe(403);
    expect(noScope.res.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(noScope.error).toMatchObject({ status: 403, code: 'forbidden' });
    expect((await pdf((await t.another('Anden ApS')).api, inv.id)).res.status).toBe(404);
    expect((await pdf((await t.newKey(undefined, 'test')).api, inv.id)).res.status).toBe(404);
    // A document value outside the enum and an id that is no UUID: malformed on purpose, so through the untyped client.
    const raw = client(t.svc.url, (await t.company.key()).key);
    const bad = await raw.get(`/invoices/${inv.id}/pdf?document=receipt`);
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([expect.objectContaining({ field: 'document' })]);
    expect((await raw.get(`/invoices/not-a-uuid/pdf`)).status).toBe(400);
  });
});
