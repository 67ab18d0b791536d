// A received document's lines as the draft expense's own lines (issue 41, items 2 and 4; decisions
// 681-686), through HTTP against PostgreSQL, with official examples (the OIOUBL schematron package's
// invoice, Peppol's allowance example): the draft carries each line (amounts, VAT, unit), the document's
// allowances and charges as lines of their own, its payment means and attachments; each line's account
// is proposed (the supplier's same item as last booked, else the supplier's default, else the VAT
// category's) and can be changed; booking posts one journal line per account and VAT code and teaches
// the supplier's items their accounts, two bookings at once included. An expense without lines is as before.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { runAccruals } from '@tlr/domain';
import { countRows, created, idem, ok, testDb, useCompany, type Api, type client } from './helpers.ts';

const t = useCompany({ name: 'Linjer Modtager ApS', cvr: '12345674' });

const REPO = join(import.meta.dirname, '..', '..', '..');
const REFERENCE = [join(REPO, '..', 'shared', 'reference'), '/work/shared/reference'].find(existsSync) ?? join(REPO, '..', 'shared', 'reference');
const oioubl = (name: string) => readFileSync(join(REFERENCE, 'einvoice', 'oioubl', 'examples', name), 'utf8');
const peppol = (name: string) => readFileSync(join(REPO, 'packages', 'domain', 'src', 'einvoice', 'examples', name), 'utf8');

type Raw = ReturnType<typeof client>;
interface Message {
  id: string;
  expense_id: string;
  supplier_id: string;
  lines: { description: string; account_number: string; account_source: string }[];
  links: { attachments: string[] };
}
const importXml = async (raw: Raw, xml: string) => {
  const r = await raw.call<{ data: Message }>('POST', '/einvoices/inbound', { raw: xml, headers: { 'Content-Type': 'application/xml', ...idem().header } });
  expect(r.status, r.text.slice(0, 800)).toBe(201);
  return r.body.data;
};
const expenseOf = async (c: Api, id: string) => (await ok(c.GET('/expenses/{id}', { params: { path: { id } } }))).data;
const posting = async (c: Api, id: string | null) =>
  (await ok(c.GET('/transactions/{id}', { params: { path: { id: id! } } }))).data.lines.map((l) => [l.account_number, l.debit, l.credit, l.vat_code]);
const book = (c: Api, id: string) => ok(c.PUT('/expenses/{id}/status', { params: { path: { id } }, body: { status: 'booked' } }));
const setLine = (c: Api, id: string, lineId: string, account: string) =>
  ok(c.PUT('/expenses/{id}/lines/{line_id}', { params: { path: { id, line_id: lineId } }, body: { account_number: account } }));

/** The package's invoice (Hejsetavle 5000.00 and 2 × Beslag 25.00, 25 % VAT), dated in the company's open year, numbered `number`. */
const invoice = (number: string) =>
  oioubl('OIOUBL_Invoice_v2p2.xml')
    .replace('<cbc:IssueDate>2005-11-20', '<cbc:IssueDate>2026-11-20')
    .replace('<cbc:PaymentDueDate>2005-11-25', '<cbc:PaymentDueDate>2026-11-25')
    .replace('<cbc:ID>A00095678', `<cbc:ID>${number}`);

describe("a received document's lines are the draft expense's own", () => {
  it('OIOUBL: the draft carries each line with its VAT and unit, its payment means; a line moves account; booking posts per account and VAT code', async () => {
    const c = await t.another('OIOUBL Linjer ApS');
    const m = await importXml(c.raw, invoice('A00095678'));
    const draft = await expenseOf(c.api, m.expense_id);
    expect(
      draft.lines.map((l) => [
        l.position,
        l.kind,
        l.description,
        l.item_id,
        l.quantity,
        l.unit,
        l.unit_price,
        l.net_amount,
        l.vat_code,
        l.vat_rate,
        l.vat_amount,
      ]),
    ).toEqual([
      [1, 'item', 'Hejsetavle', '5712345780121', 1, 'EA', 5000, 5000, 'K25', 25, 1250],
      [2, 'item', 'Beslag', '5712345780111', 2, 'EA', 25, 50, 'K25', 25, 12.5],
    ]);
    // The expense is the sum of its lines: 5050.00 net and 1262.50 VAT, 6312.50 in all.
    expect([draft.amount, draft.vat_amount, draft.net_amount]).toEqual([6312.5, 1262.5, 5050]);
    // First import from this supplier: no item booked before, no default account: the VAT category's.
    expect(draft.lines.map((l) => [l.account_number, l.account_source])).toEqual([
      ['2810', 'vat_category'],
      ['2810', 'vat_category'],
    ]);
    // The payment means and attachments the document came with show on the expense.
    expect(draft.einvoice).toEqual({
      message_id: m.id,
      payment_means: [{ code: '42', due_date: '2026-11-25', card_type: '', payment_id: '', creditor: '', fi_line: '', account: '1234567890', branch: '1234' }],
      attachments: m.links.attachments.map((a) => a.split('/').at(-1)),
    });

    // A person moves the screws to 1610 Varekøb: the line's source is manual, the expense keeps the larger part's account.
    const moved = await setLine(c.api, draft.id, draft.lines[1]!.id, '1610');
    expect(moved.data.lines.map((l) => [l.account_number, l.account_source])).toEqual([
      ['2810', 'vat_category'],
      ['1610', 'manual'],
    ]);
    expect(moved.data.account_number).toBe('2810');
    // The amount of an expense with lines is theirs: refused by name, nothing changed.
    const refused = await c.raw.call<{ code: string; field: string }>('PUT', `/expenses/${draft.id}`, { body: { amount: 100 } });
    expect([refused.status, refused.body.code, refused.body.field]).toEqual([409, 'expense_has_lines', 'amount']);
    const badAccount = await c.raw.call<{ field: string }>('PUT', `/expenses/${draft.id}/lines/${draft.lines[0]!.id}`, { body: { account_number: '7440' } });
    expect([badAccount.status, badAccount.body.field]).toEqual([400, 'account_number']);
    const otherLine = await c.raw.call('PUT', `/expenses/${draft.id}/lines/${randomUUID()}`, { body: { account_number: '1610' } });
    expect(otherLine.status).toBe(404);

    // Booking: one cost line per account and VAT code (each a K25 base), the VAT, payables.
    const booked = (await book(c.api, draft.id)).data;
    expect(await posting(c.api, booked.posted_transaction_id)).toEqual([
      ['2810', 5000, 0, 'K25'],
      ['1610', 50, 0, 'K25'],
      ['7740', 1262.5, 0, 'K25'],
      ['7440', 0, 6312.5, ''],
    ]);
    const locked = await c.raw.call('PUT', `/expenses/${draft.id}/lines/${draft.lines[0]!.id}`, { body: { account_number: '1610' } });
    expect(locked.status).toBe(409);

    // The supplier's next document, paid by FI (+71): each item proposed where it was booked.
    const fik = invoice('A00095679').replace(
      /<cac:PaymentMeans>[\s\S]*<\/cac:PaymentMeans>/,
      `<cac:PaymentMeans>
        <cbc:ID>1</cbc:ID>
        <cbc:PaymentMeansCode>93</cbc:PaymentMeansCode>
        <cbc:PaymentDueDate>2026-11-25</cbc:PaymentDueDate>
        <cbc:PaymentChannelCode listAgencyID="320" listID="urn:oioubl:codelist:paymentchannelcode-1.1">DK:FIK</cbc:PaymentChannelCode>
        <cbc:InstructionID>000000000001735</cbc:InstructionID>
        <cbc:PaymentID schemeAgencyID="320" schemeID="urn:oioubl:id:paymentid-1.1">71</cbc:PaymentID>
        <cac:CreditAccount><cbc:AccountID>81234567</cbc:AccountID></cac:CreditAccount>
    </cac:PaymentMeans>`,
    );
    const next = await importXml(c.raw, fik);
    expect(next.supplier_id).toBe(m.supplier_id);
    const second = await expenseOf(c.api, next.expense_id);
    expect(second.lines.map((l) => [l.description, l.account_number, l.account_source])).toEqual([
      ['Hejsetavle', '2810', 'supplier_item'],
      ['Beslag', '1610', 'supplier_item'],
    ]);
    expect(second.einvoice!.payment_means.map((p) => [p.code, p.fi_line])).toEqual([['93', '+71<000000000001735 +81234567<']]);
    // The message keeps its own record of what was proposed on import.
    expect(next.lines.map((l) => l.account_source)).toEqual(['supplier_item', 'supplier_item']);

    // Two bookings of the same items at once, to other accounts: both post, the items learn one account each (the last booking's).
    await setLine(c.api, second.id, second.lines[1]!.id, '2390');
    const third = await expenseOf(c.api, (await importXml(c.raw, invoice('A00095680'))).expense_id);
    await setLine(c.api, third.id, third.lines[1]!.id, '2450');
    const both = await Promise.all([second.id, third.id].map((id) => c.raw.call('PUT', `/expenses/${id}/status`, { body: { status: 'booked' } })));
    expect(both.map((b) => b.status)).toEqual([200, 200]);
    expect(await countRows('SELECT count(*)::int AS n FROM supplier_item_accounts WHERE supplier_id = $1', [m.supplier_id])).toBe(2);
    const fourth = await expenseOf(c.api, (await importXml(c.raw, invoice('A00095681'))).expense_id);
    expect(fourth.lines[0]).toMatchObject({ account_number: '2810', account_source: 'supplier_item' });
    expect(['2390', '2450']).toContain(fourth.lines[1]!.account_number);
  });

  it("a line's own dimensions go over the expense's at booking, one cost line per account, VAT code and dimensions; a required dimension holds each line; an accrued line keeps them", async () => {
    const c = await t.another('Linjedimensioner ApS');
    await created(
      c.api.POST('/dimensions', {
        params: idem(),
        body: { name: 'Projekt', values: ['A', 'B'].map((code) => ({ code, name: `Projekt ${code}` })), required_account_numbers: ['2810'] },
      }),
    );
    await created(c.api.POST('/dimensions', { params: idem(), body: { name: 'Afdeling', values: [{ code: 'Salg', name: 'Salg' }] } }));
    const dimsOf = async (id: string | null) =>
      (await ok(c.api.GET('/transactions/{id}', { params: { path: { id: id! } } }))).data.lines.map((l) => [
        l.account_number,
        l.debit || -l.credit,
        l.dimensions,
      ]);
    const setDims = (id: string, lineId: string, dimensions: Record<string, string> | null) =>
      c.raw.call<{ data: { lines: { dimensions: Record<string, string> }[] }; code: string; field: string }>('PUT', `/expenses/${id}/lines/${lineId}`, {
        body: { dimensions },
      });

    // Both lines on 2810 (K25): the expense's dimensions are the default, the screws' own Projekt goes over it.
    const draft = await expenseOf(c.api, (await importXml(c.raw, invoice('D1'))).expense_id);
    await ok(c.api.PUT('/expenses/{id}', { params: { path: { id: draft.id } }, body: { dimensions: { Projekt: 'A', Afdeling: 'Salg' } } }));
    const [board, screws] = [draft.lines[0]!.id, draft.lines[1]!.id];
    const set = await setDims(draft.id, screws, { Projekt: 'B' });
    expect(set.status).toBe(200);
    expect(set.body.data.lines.map((l) => l.dimensions)).toEqual([{}, { Projekt: 'B' }]);
    // Refused by name: an unknown value, a body with nothing to change; the line keeps its account.
    const unknown = await setDims(draft.id, board, { Projekt: 'Z' });
    expect([unknown.status, unknown.body.code, unknown.body.field]).toEqual([400, 'invalid_request', 'dimensions.Projekt']);
    const nothing = await c.raw.call<{ field: string }>('PUT', `/expenses/${draft.id}/lines/${board}`, { body: {} });
    expect([nothing.status, nothing.body.field]).toEqual([400, 'account_number']);
    expect((await expenseOf(c.api, draft.id)).lines.map((l) => [l.account_number, l.account_source])).toEqual([
      ['2810', 'vat_category'],
      ['2810', 'vat_category'],
    ]);
    // Booked: 5000 {A, Salg} and 50 {B, Salg} on 2810, two lines though one account and code; VAT and payables carry none.
    const booked = (await book(c.api, draft.id)).data;
    expect(await dimsOf(booked.posted_transaction_id)).toEqual([
      ['2810', 5000, { Afdeling: 'Salg', Projekt: 'A' }],
      ['2810', 50, { Afdeling: 'Salg', Projekt: 'B' }],
      ['7740', 1262.5, {}],
      ['7440', -6312.5, {}],
    ]);

    // No expense-level Projekt: a line without one is refused at booking (2810 requires it), named by the posting's line.
    const second = await expenseOf(c.api, (await importXml(c.raw, invoice('D2'))).expense_id);
    await setDims(second.id, second.lines[0]!.id, { Projekt: 'A' });
    const refused = await c.raw.call<{ code: string; field: string }>('PUT', `/expenses/${second.id}/status`, { body: { status: 'booked' } });
    expect([refused.status, refused.body.code, refused.body.field]).toEqual([400, 'dimension_required', 'lines[1].dimensions.Projekt']);
    // Given its own, it books; clearing a line's dimensions (null) leaves it to the expense's.
    await setDims(second.id, second.lines[1]!.id, { Projekt: 'A' });
    const cleared = await setDims(second.id, second.lines[0]!.id, null);
    expect(cleared.body.data.lines.map((l) => l.dimensions)).toEqual([{}, { Projekt: 'A' }]);
    await ok(c.api.PUT('/expenses/{id}', { params: { path: { id: second.id } }, body: { dimensions: { Projekt: 'B' } } }));
    // The screws accrued over November and December: their 50 go to 6390 with their project, then 25 a month to 2810.
    await ok(
      c.api.PUT('/expenses/{id}/lines/{line_id}', {
        params: { path: { id: second.id, line_id: second.lines[1]!.id } },
        body: { accrual: { from: '2026-11', to: '2026-12' } },
      }),
    );
    const again = (await book(c.api, second.id)).data;
    expect(await dimsOf(again.posted_transaction_id)).toEqual([
      ['2810', 5000, { Projekt: 'B' }],
      ['6390', 50, { Projekt: 'A' }],
      ['7740', 1262.5, {}],
      ['7440', -6312.5, {}],
    ]);
    await runAccruals((fn) => testDb().prisma.$transaction((tx) => fn(tx)), '2026-11-30');
    const moved = (await ok(c.api.GET('/transactions', { params: { query: { per_page: 100 } } }))).data.filter((x) => x.source === 'accrual');
    expect(moved.map((x) => x.lines.map((l) => [l.account_number, l.debit || -l.credit, l.dimensions]))).toEqual([
      [
        ['2810', 25, { Projekt: 'A' }],
        ['6390', -25, {}],
      ],
    ]);
  });

  it("Peppol: the document's own allowance and charge are lines of their own, the VAT shared per group; a foreign supplier's VAT is cost", async () => {
    const c = await t.another('Peppol Linjer ApS');
    const m = await importXml(c.raw, peppol('Allowance-example.xml').replaceAll('2017-', '2026-'));
    const draft = await expenseOf(c.api, m.expense_id);
    // Three lines (4000.00 and 900.00 at 25 %, 1000.00 exempt), the document's 200.00 cleaning charge and 200.00 discount.
    expect(draft.lines.map((l) => [l.kind, l.description, l.allowance_amount, l.charge_amount, l.net_amount, l.vat_code, l.vat_amount])).toEqual([
      ['item', 'item name', 101, 1, 4000, 'KDELVIS', 1000],
      ['item', 'item name', 0, 0, 1000, 'K0', 0],
      ['item', 'item name', 101, 1, 900, 'KDELVIS', 225],
      ['charge', 'Cleaning', 0, 0, 200, 'KDELVIS', 50],
      ['allowance', 'Discount', 0, 0, -200, 'KDELVIS', -50],
    ]);
    expect([draft.currency, draft.amount, draft.vat_amount, draft.vat_code, draft.vat_deductible_percent]).toEqual(['EUR', 7125, 1225, 'KDELVIS', 0]);
    // The exempt line to 1610; booked at 7.50 DKK per EUR.
    await setLine(c.api, draft.id, draft.lines[1]!.id, '1610');
    await ok(c.api.PUT('/expenses/{id}', { params: { path: { id: draft.id } }, body: { exchange_rate: 7.5 } }));
    const booked = (await book(c.api, draft.id)).data;
    // Each account and code its own base (4900.00 and 1000.00 EUR), the foreign VAT not deductible: a cost without a code.
    expect(await posting(c.api, booked.posted_transaction_id)).toEqual([
      ['2810', 36750, 0, 'KDELVIS'],
      ['1610', 7500, 0, 'K0'],
      ['2810', 9187.5, 0, ''],
      ['7440', 0, 53437.5, ''],
    ]);
  });

  it('an expense entered by hand has no lines and books as before; setting its account on a draft with lines moves every line', async () => {
    const c = await t.another('Uden Linjer ApS');
    const plain = (
      await created(c.api.POST('/expenses', { params: idem(), body: { date: '2026-11-20', amount: 1250, vat_code: 'K25', description: 'Papir' } }))
    ).data;
    expect([plain.lines, plain.einvoice, plain.account_number]).toEqual([[], null, '2810']);
    const changed = (await ok(c.api.PUT('/expenses/{id}', { params: { path: { id: plain.id } }, body: { amount: 2500 } }))).data;
    expect([changed.amount, changed.vat_amount]).toEqual([2500, 500]);
    expect(await posting(c.api, (await book(c.api, plain.id)).data.posted_transaction_id)).toEqual([
      ['2810', 2000, 0, 'K25'],
      ['7740', 500, 0, 'K25'],
      ['7440', 0, 2500, ''],
    ]);
    const m = await importXml(c.raw, invoice('A00095678'));
    const all = (await ok(c.api.PUT('/expenses/{id}', { params: { path: { id: m.expense_id } }, body: { account_number: '1610' } }))).data;
    expect(all.lines.map((l) => [l.account_number, l.account_source])).toEqual([
      ['1610', 'manual'],
      ['1610', 'manual'],
    ]);
    // The list shows the lines too.
    const listed = (await ok(c.api.GET('/expenses', { params: { query: {} } }))).data;
    expect(listed.map((e) => e.lines.length).sort()).toEqual([0, 2]);
  });
});
