// The EU sales list (EU-salg uden moms, momsbekendtgørelsen § 73): per customer VAT number, the value in
// DKK of the period's VAT-free sales to businesses in other EU countries, from the postings coded SEUV
// (goods), SEUT (triangular trade, trekantshandel) and SEUY (services), credit notes netted; and the file
// Skattestyrelsen takes (comma-separated: a 0 start record, one 2 record per foreign VAT number, a 10 end
// record with the totals; nine fields a record; CR LF after each). docs/eu-sales.md.
//
// The customer of a line is the invoice its posting belongs to (approval or credit note), with the VAT
// number the invoice was approved with. A line with an EU code and no valid foreign VAT number (a manual
// posting, a customer without one) is listed as a problem, never dropped; SEUVI (rubrik B varer,
// indberettes ikke) is not on the list and is shown beside it, so the totals reconcile with rubrik B.
import type { z } from 'zod';
import type { Db } from '@tlr/db';
import type { CompanyScope } from '../context.ts';
import { DomainError, invalidRequest, notFound } from '../errors.ts';
import { today } from '../calendar.ts';
import { amountToJson, Decimal, roundKroner } from '../money.ts';
import { checkVatNumber, normalizeVatNumber } from '../identifiers/vat-number.ts';
import { VAT_ACCOUNT_NUMBERS } from './codes.ts';
import { parseVatPeriod, periodContaining, type VatPeriod } from './periods.ts';
import { periodFigures } from './return-figures.ts';
import type { euSalesResource } from './schema.ts';

export type EuSalesView = z.input<typeof euSalesResource>;
export const EU_SALES_FREQUENCIES = ['quarterly', 'monthly'] as const;
export type EuSalesFrequency = (typeof EU_SALES_FREQUENCIES)[number];

/** The code of triangular trade: rubrik B varer like SEUV, its own column on the list. */
export const TRIANGULAR_CODE = 'SEUT';

interface Row {
  vat_number: string | null;
  customer_id: string | null;
  customer_name: string | null;
  code: string;
  kind: string;
  transactions: string[];
  amount: string;
}

type Column = 'goods' | 'triangular' | 'services';
const columnOf = (r: Row): Column | 'unlisted' =>
  r.code === TRIANGULAR_CODE ? 'triangular' : r.kind === 'eu_sale_goods' ? 'goods' : r.kind === 'eu_sale_services' ? 'services' : 'unlisted';

/** The company's EU-sales period named `text` (a quarter 2026-Q3, or a month 2026-09 when it reports monthly). */
async function euSalesPeriod(db: Db, scope: CompanyScope, text: string): Promise<{ period: VatPeriod; seller: string }> {
  const [company] = await db.$queryRaw<{ eu_sales_frequency: EuSalesFrequency; se_number: string; cvr: string | null }[]>`
    SELECT eu_sales_frequency, se_number, cvr FROM companies WHERE id = ${scope.companyId}::uuid`;
  if (!company) throw notFound('company', scope.companyId);
  const p = parseVatPeriod(text);
  const frequency = company.eu_sales_frequency;
  if (typeof p === 'string' || p.frequency !== frequency) {
    const example = periodContaining(today(), frequency).period;
    throw invalidRequest(`period: the company reports EU sales ${frequency} (eu_sales_frequency); name a period such as ${example}.`, 'period');
  }
  return { period: p, seller: company.se_number || company.cvr || '' };
}

const money = (d: Decimal) => amountToJson(d.toDecimalPlaces(2));

/** GET /eu-sales?period=: the list of the period, its problems and its agreement with rubrik B. */
export async function euSalesList(db: Db, scope: CompanyScope, periodText: string): Promise<EuSalesView> {
  const { period, seller } = await euSalesPeriod(db, scope, periodText);
  const c = scope.companyId;
  // One set-based statement: the lines coded with the EU sales kinds, off the VAT accounts (the bases), by invoice VAT number and code.
  const rows = await db.$queryRaw<Row[]>`
    SELECT i.customer_vat_number AS vat_number, i.customer_id, i.customer_name, v.code, v.kind,
           array_agg(DISTINCT t.id::text) AS transactions, sum(l.credit - l.debit)::text AS amount
    FROM ledger_transactions t
    JOIN transaction_lines l ON l.transaction_id = t.id
    JOIN accounts a ON a.id = l.account_id
    JOIN vat_codes v ON v.company_id = t.company_id AND v.code = l.vat_code
    LEFT JOIN invoices i ON i.id = t.source_id AND t.source IN ('invoice', 'credit_note')
    WHERE t.company_id = ${c}::uuid AND t.date BETWEEN ${period.start}::date AND ${period.end}::date AND t.source <> 'vat_settlement'
      AND v.kind IN ('eu_sale_goods', 'eu_sale_goods_unlisted', 'eu_sale_services')
      AND a.account_number <> ALL(${[...VAT_ACCOUNT_NUMBERS]}::text[])
    GROUP BY i.customer_vat_number, i.customer_id, i.customer_name, v.code, v.kind
    ORDER BY i.customer_vat_number, v.code`;

  const zero = new Decimal(0);
  const byNumber = new Map<string, { vat_number: string; country: string; number: string; customers: Map<string, string>; sums: Record<Column, Decimal> }>();
  const problems = new Map<
    string,
    { customer_id: string | null; customer_name: string; vat_number: string; reason: string; transaction_ids: Set<string>; sums: Record<Column, Decimal> }
  >();
  let unlisted = zero;
  for (const r of rows) {
    const column = columnOf(r);
    const amount = new Decimal(r.amount);
    if (column === 'unlisted') {
      unlisted = unlisted.plus(amount);
      continue;
    }
    const vat = normalizeVatNumber(r.vat_number ?? '');
    const bad =
      !r.customer_id && !r.vat_number
        ? 'the posting belongs to no invoice, so it names no customer'
        : !vat
          ? 'the invoice names no VAT number'
          : checkVatNumber(vat);
    const foreign = !bad && vat.startsWith('DK') ? 'is a Danish VAT number: a sale to a Danish business is not an EU sale' : undefined;
    const reason = bad ?? foreign;
    if (reason) {
      const key = `${r.customer_id ?? ''}|${vat}`;
      const p = problems.get(key) ?? {
        customer_id: r.customer_id,
        customer_name: r.customer_name ?? '',
        vat_number: vat,
        reason: vat && bad ? `the VAT number ${vat} ${bad}` : reason,
        transaction_ids: new Set<string>(),
        sums: { goods: zero, triangular: zero, services: zero },
      };
      p.sums[column] = p.sums[column].plus(amount);
      for (const t of r.transactions) p.transaction_ids.add(t);
      problems.set(key, p);
      continue;
    }
    const entry = byNumber.get(vat) ?? {
      vat_number: vat,
      country: vat.slice(0, 2),
      number: vat.slice(2),
      customers: new Map(),
      sums: { goods: zero, triangular: zero, services: zero },
    };
    entry.sums[column] = entry.sums[column].plus(amount);
    if (r.customer_id) entry.customers.set(r.customer_id, r.customer_name ?? '');
    byNumber.set(vat, entry);
  }

  const lines = [...byNumber.values()]
    .sort((a, b) => (a.vat_number < b.vat_number ? -1 : 1))
    .map((e) => ({
      vat_number: e.vat_number,
      country: e.country,
      customers: [...e.customers].map(([id, name]) => ({ id, name })),
      goods: money(e.sums.goods),
      triangular: money(e.sums.triangular),
      services: money(e.sums.services),
      // The file's amounts: whole kroner, each rounded half up.
      kroner: {
        goods: roundKroner(e.sums.goods).toNumber(),
        triangular: roundKroner(e.sums.triangular).toNumber(),
        services: roundKroner(e.sums.services).toNumber(),
      },
    }))
    // A record whose amounts are all 0 (sales netted by credit notes) is not reported.
    .filter((l) => l.goods !== 0 || l.triangular !== 0 || l.services !== 0);
  const total = (col: Column) => [...byNumber.values(), ...problems.values()].reduce((s, e) => s.plus(e.sums[col]), zero);
  const figures = await periodFigures(db, scope, period);
  const listedGoods = total('goods').plus(total('triangular'));
  return {
    period: period.period,
    frequency: period.frequency as EuSalesFrequency,
    start_date: period.start,
    end_date: period.end,
    seller_vat_number: seller,
    lines,
    problems: [...problems.values()].map((p) => ({
      customer_id: p.customer_id,
      customer_name: p.customer_name,
      vat_number: p.vat_number,
      reason: p.reason,
      goods: money(p.sums.goods),
      triangular: money(p.sums.triangular),
      services: money(p.sums.services),
      transaction_ids: [...p.transaction_ids].sort(),
    })),
    totals: {
      goods: money(total('goods')),
      triangular: money(total('triangular')),
      services: money(total('services')),
      unlisted: money(unlisted),
    },
    rubrik_b: {
      goods_reported: money(figures.exact.box_b_goods_reported),
      goods_not_reported: money(figures.exact.box_b_goods_not_reported),
      services: money(figures.exact.box_b_services),
      agrees:
        listedGoods.equals(figures.exact.box_b_goods_reported) &&
        total('services').equals(figures.exact.box_b_services) &&
        unlisted.equals(figures.exact.box_b_goods_not_reported),
    },
  };
}

const CRLF = '\r\n';

/**
 * GET /eu-sales/{period}/export: Skattestyrelsen's comma-separated file. Refused (409
 * eu_sales_incomplete) while the list has problems: a file that leaves sales out would be wrong.
 */
export async function euSalesFile(db: Db, scope: CompanyScope, periodText: string): Promise<{ filename: string; csv: string }> {
  const list = await euSalesList(db, scope, periodText);
  if (list.problems.length) {
    throw new DomainError(
      'eu_sales_incomplete',
      `The EU sales list of ${list.period} has ${list.problems.length} sale${list.problems.length > 1 ? 's' : ''} without a valid foreign VAT number (GET /eu-sales?period=${list.period}, problems): ${list.problems.map((p) => `${p.customer_name || 'no customer'}: ${p.reason}`).join('; ')}.`,
      'period',
    );
  }
  if (!list.seller_vat_number)
    throw invalidRequest('se_number: the company has neither an SE number nor a CVR number to report under (PUT /settings/company).', 'se_number');
  const reference = list.period.replace('-', '');
  const end = list.end_date;
  const records = [
    ['0', list.seller_vat_number, 'LISTE', '', '', '', '', '', ''],
    ...list.lines.map((l) => [
      '2',
      reference,
      end,
      list.seller_vat_number,
      l.country,
      l.vat_number.slice(2),
      String(l.kroner.goods),
      String(l.kroner.triangular),
      String(l.kroner.services),
    ]),
    [
      '10',
      String(list.lines.length),
      String(list.lines.reduce((s, l) => s + l.kroner.goods + l.kroner.triangular + l.kroner.services, 0)),
      '',
      '',
      '',
      '',
      '',
      '',
    ],
  ];
  return { filename: `eu-salg-${list.seller_vat_number}-${list.period}.csv`, csv: records.map((r) => r.join(',') + CRLF).join('') };
}
