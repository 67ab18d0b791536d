// The EU sales list (EU-salg uden moms, momsbekendtgørelsen § 73), through HTTP against PostgreSQL: EU
// sales of goods, triangular trade and services to three customers in two countries and a credit note,
// worked out by hand below; the export's records checked field by field against Skattestyrelsen's file
// structure ("Filstruktur - kommasepareret format": a 0 start record, one 2 record per foreign VAT
// number, a 10 end record; nine fields a record; CR LF after each record); the totals against rubrik B.
import { describe, expect, it } from 'vitest';
import { useCompany } from './helpers.ts';

const CVR = '12345674';
const t = useCompany({ name: 'EU-salg ApS', cvr: CVR });

interface Line {
  vat_number: string;
  country: string;
  customers: { id: string; name: string }[];
  goods: number;
  triangular: number;
  services: number;
  kroner: { goods: number; triangular: number; services: number };
}
interface List {
  period: string;
  seller_vat_number: string;
  lines: Line[];
  problems: { customer_id: string | null; reason: string; goods: number; transaction_ids: string[] }[];
  totals: { goods: number; triangular: number; services: number; unlisted: number };
  rubrik_b: { goods_reported: number; goods_not_reported: number; services: number; agrees: boolean };
}

const customer = async (name: string, vat_number: string) => {
  const r = await t.raw.post<{ data: { id: string } }>('/customers', { name, vat_number });
  expect(r.status, r.text).toBe(201);
  return r.body.data.id;
};
const invoice = async (customer_id: string, issue_date: string, unit_price: number, vat_code: string) => {
  const r = await t.raw.post<{ data: { id: string } }>('/invoices', {
    customer_id,
    issue_date,
    due_date: issue_date,
    auto_approve: true,
    lines: [{ description: `Salg ${vat_code}`, quantity: 1, unit_price, vat_code }],
  });
  expect(r.status, r.text).toBe(201);
  return r.body.data.id;
};
const list = async (period = '2026-Q3') => {
  const r = await t.raw.get<{ data: List }>(`/eu-sales?period=${period}`);
  expect(r.status, r.text).toBe(200);
  return r.body.data;
};

describe('the EU sales list of a quarter', () => {
  const ids: Record<string, string> = {};

  it('books goods, triangular trade and services to three customers in Germany and France, and a credit note', async () => {
    ids.a = await customer('Alpha GmbH', 'DE136695976');
    ids.b = await customer('Beta GmbH', 'DE811569869');
    ids.c = await customer('Gamma SARL', 'FR40303265045');
    await invoice(ids.a, '2026-07-15', 20000, 'SEUV'); // A goods 20000.00
    await invoice(ids.a, '2026-07-20', 5000, 'SEUY'); // A services 5000.00
    await invoice(ids.a, '2026-07-22', 800, 'SEUVI'); // rubrik B varer, indberettes ikke: not on the list
    await invoice(ids.b, '2026-08-05', 12000.5, 'SEUT'); // B triangular trade 12000.50
    await invoice(ids.b, '2026-08-06', 3000, 'SEUV'); // B goods 3000.00
    const credited = await invoice(ids.b, '2026-08-10', 1000, 'SEUV'); // B goods 1000.00, credited below: nets to 0
    const cancel = await t.raw.put(`/invoices/${credited}/status`, { status: 'cancelled', date: '2026-08-25' });
    expect(cancel.status, cancel.text).toBe(200);
    await invoice(ids.c, '2026-09-01', 1500, 'SEUV'); // C goods 1500.00
    await invoice(ids.c, '2026-09-02', 7000.4, 'SEUY'); // C services 7000.40
  });

  it('answers per VAT number the goods, triangular trade and services worked out by hand, the totals agreeing with rubrik B', async () => {
    const l = await list();
    expect(l).toMatchObject({ period: '2026-Q3', seller_vat_number: CVR, problems: [] });
    expect(l.lines).toEqual([
      {
        vat_number: 'DE136695976',
        country: 'DE',
        customers: [{ id: ids.a, name: 'Alpha GmbH' }],
        goods: 20000,
        triangular: 0,
        services: 5000,
        kroner: { goods: 20000, triangular: 0, services: 5000 },
      },
      {
        vat_number: 'DE811569869',
        country: 'DE',
        customers: [{ id: ids.b, name: 'Beta GmbH' }],
        // 3000.00 + 1000.00 − 1000.00 (the credit note)
        goods: 3000,
        triangular: 12000.5,
        services: 0,
        // 12000.50 rounded half up
        kroner: { goods: 3000, triangular: 12001, services: 0 },
      },
      {
        vat_number: 'FR40303265045',
        country: 'FR',
        customers: [{ id: ids.c, name: 'Gamma SARL' }],
        goods: 1500,
        triangular: 0,
        services: 7000.4,
        kroner: { goods: 1500, triangular: 0, services: 7000 },
      },
    ]);
    // goods 20000 + 3000 + 1500 = 24500; triangular 12000.50; services 5000 + 7000.40 = 12000.40; SEUVI 800.
    expect(l.totals).toEqual({ goods: 24500, triangular: 12000.5, services: 12000.4, unlisted: 800 });
    // The return of the same months: rubrik B varer (indberettes) = goods + triangular = 36500.50.
    expect(l.rubrik_b).toEqual({ goods_reported: 36500.5, goods_not_reported: 800, services: 12000.4, agrees: true });
    const vat = (await t.raw.get<{ data: { exact_fields: Record<string, number> } }>('/vat-returns?period=2026-Q3')).body.data;
    expect(vat.exact_fields).toMatchObject({ box_b_goods_reported: 36500.5, box_b_goods_not_reported: 800, box_b_services: 12000.4 });
  });

  it("exports Skattestyrelsen's file, checked record by record and field by field", async () => {
    const res = await t.raw.get('/eu-sales/2026-Q3/export');
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="eu-salg-${CVR}-2026-Q3.csv"`);
    const text = res.text;
    // Every record ends in CR LF; no blank line after the end record.
    expect(text.endsWith('\r\n')).toBe(true);
    expect(text.replace(/\r\n/g, '')).not.toMatch(/[\r\n]/);
    const records = text
      .slice(0, -2)
      .split('\r\n')
      .map((r) => r.split(','));
    // Nine fields a record (eight commas).
    for (const r of records) expect(r).toHaveLength(9);
    expect(records[0]).toEqual(['0', CVR, 'LISTE', '', '', '', '', '', '']);
    // 2, reference, the period's last day, own CVR/SE number, country code, the VAT number without its prefix, goods, triangular, services.
    expect(records.slice(1, -1)).toEqual([
      ['2', '2026Q3', '2026-09-30', CVR, 'DE', '136695976', '20000', '0', '5000'],
      ['2', '2026Q3', '2026-09-30', CVR, 'DE', '811569869', '3000', '12001', '0'],
      ['2', '2026Q3', '2026-09-30', CVR, 'FR', '40303265045', '1500', '0', '7000'],
    ]);
    // 10, the number of 2 records, the sum of their amounts: 25000 + 15001 + 8500 = 48501.
    expect(records.at(-1)).toEqual(['10', '3', '48501', '', '', '', '', '', '']);
  });

  it('lists a sale with an EU code but no customer VAT number as a problem, not dropped, and refuses the export meanwhile', async () => {
    const manual = await t.raw.post<{ data: { id: string } }>('/transactions', {
      date: '2026-09-20',
      description: 'Kontantsalg til EU',
      lines: [
        { account_number: '6480', debit: 1000 },
        { account_number: '1010', credit: 1000, vat_code: 'SEUV' },
      ],
    });
    expect(manual.status, manual.text).toBe(201);
    const l = await list();
    expect(l.lines).toHaveLength(3);
    expect(l.problems).toEqual([
      expect.objectContaining({ customer_id: null, goods: 1000, transaction_ids: [manual.body.data.id], reason: expect.stringContaining('no invoice') }),
    ]);
    expect(l.totals.goods).toBe(25500);
    expect(l.rubrik_b).toMatchObject({ goods_reported: 37500.5, agrees: true });
    const res = await t.raw.get('/eu-sales/2026-Q3/export');
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: 'eu_sales_incomplete', field: 'period' });
  });

  it("refuses a period of another frequency than the company's, and follows eu_sales_frequency", async () => {
    const monthly = await t.raw.get('/eu-sales?period=2026-09');
    expect(monthly.status).toBe(400);
    expect(monthly.body).toMatchObject({ code: 'invalid_request', field: 'period' });
    const set = await t.raw.put('/settings/company', { eu_sales_frequency: 'monthly' });
    expect(set.status, set.text).toBe(200);
    const september = await list('2026-09');
    expect(september.lines.map((x) => [x.vat_number, x.kroner])).toEqual([['FR40303265045', { goods: 1500, triangular: 0, services: 7000 }]]);
    expect((await t.raw.get('/eu-sales?period=2026-Q3')).status).toBe(400);
  });
});
