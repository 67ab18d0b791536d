// MasterFiles/Assets and SourceDocuments/AssetTransactions of the SAF-T file (issue 43, item 7; decision
// 578): every fixed asset held at some time in the period with its figures for the period (one valuation,
// the accounting one), and each of its events in the period: the addition, every month's depreciation and
// the disposal, each naming its general ledger posting (TransactionID = the document number) when that
// posting lies in the period. Read inside the export's snapshot; a company has few assets, so one query.
import type { PoolClient } from '@tlr/db';
import { Decimal } from '../money.ts';
import type { SaftPeriod } from './rules.ts';
import { compactId, SAFT_TEXT, xmlText } from './rules.ts';

interface AssetRow {
  id: string;
  name: string;
  account_number: string;
  acquisition_date: string;
  disposed_date: string | null;
  cost: string;
  useful_life_months: number;
  disposal_proceeds: string | null;
  before: string;
  during: string;
  total: string;
  /** The posting that brought the cost in (capitalisation, the expense's, or the one named), when in the period. */
  addition_number: string | null;
  disposal_number: string | null;
}

interface DepreciationRow {
  asset_id: string;
  month: string;
  date: string;
  amount: string;
  document_number: string;
}

// Held at some time in the period: acquired by its end, not disposed of before its start.
const ASSETS_SQL = `
  SELECT a.id, a.name, acc.account_number, a.acquisition_date::text, a.disposed_date::text, a.cost::text, a.useful_life_months,
         a.disposal_proceeds::text,
         COALESCE((SELECT SUM(d.amount) FROM asset_depreciations d WHERE d.asset_id = a.id AND d.date < $2::date), 0)::text AS before,
         COALESCE((SELECT SUM(d.amount) FROM asset_depreciations d WHERE d.asset_id = a.id AND d.date BETWEEN $2::date AND $3::date), 0)::text AS during,
         COALESCE((SELECT SUM(d.amount) FROM asset_depreciations d WHERE d.asset_id = a.id), 0)::text AS total,
         (SELECT t.document_number::text FROM ledger_transactions t
           WHERE t.company_id = a.company_id AND t.date BETWEEN $2::date AND $3::date
             AND t.id = COALESCE(a.capitalisation_transaction_id, (SELECT e.posted_transaction_id FROM expenses e WHERE e.id = a.expense_id), a.transaction_id)) AS addition_number,
         (SELECT t.document_number::text FROM ledger_transactions t
           WHERE t.company_id = a.company_id AND t.id = a.disposal_transaction_id AND t.date BETWEEN $2::date AND $3::date) AS disposal_number
  FROM fixed_assets a JOIN accounts acc ON acc.id = a.asset_account_id
  WHERE a.company_id = $1::uuid AND a.acquisition_date <= $3::date AND (a.disposed_date IS NULL OR a.disposed_date >= $2::date)
  ORDER BY a.acquisition_date, a.id`;

const DEPRECIATIONS_SQL = `
  SELECT d.asset_id, d.month::text, d.date::text, d.amount::text, t.document_number::text
  FROM asset_depreciations d JOIN ledger_transactions t ON t.id = d.transaction_id
  WHERE d.company_id = $1::uuid AND d.date BETWEEN $2::date AND $3::date
  ORDER BY d.asset_id, d.month`;

const money = (d: Decimal) => d.toFixed(2);
const el = (name: string, value: string) => `<${name}>${value}</${name}>`;

/** One asset's figures for the period (pure): what Valuation reports. */
export function assetValuation(a: AssetRow, { from, to }: SaftPeriod) {
  const cost = new Decimal(a.cost);
  const zero = new Decimal(0);
  const heldAtStart = a.acquisition_date < from;
  const disposedInPeriod = a.disposed_date !== null && a.disposed_date >= from && a.disposed_date <= to;
  const heldAtEnd = !disposedInPeriod && a.acquisition_date <= to;
  const before = new Decimal(a.before);
  const atEnd = before.plus(a.during);
  return {
    costBegin: heldAtStart ? cost : zero,
    costEnd: heldAtEnd ? cost : zero,
    addition: a.acquisition_date >= from ? cost : zero,
    disposal: disposedInPeriod ? cost.minus(a.total) : zero,
    bookBegin: heldAtStart ? cost.minus(before) : zero,
    depreciation: new Decimal(a.during),
    accumulated: heldAtEnd ? atEnd : zero,
    bookEnd: heldAtEnd ? cost.minus(atEnd) : zero,
  };
}

function assetXml(a: AssetRow, period: SaftPeriod): string {
  const v = assetValuation(a, period);
  return (
    '<Asset>' +
    el('AssetID', compactId(a.id)) +
    el('AccountID', xmlText(a.account_number, SAFT_TEXT.middle2)) +
    el('Description', xmlText(a.name, SAFT_TEXT.long)) +
    el('DateOfAcquisition', a.acquisition_date) +
    '<Valuations><Valuation>' +
    el('AssetValuationType', 'Regnskab') +
    el('AcquisitionAndProductionCostsBegin', money(v.costBegin)) +
    el('AcquisitionAndProductionCostsEnd', money(v.costEnd)) +
    el('AssetLifeMonth', String(a.useful_life_months)) +
    el('AssetAddition', money(v.addition)) +
    el('AssetDisposal', money(v.disposal)) +
    el('BookValueBegin', money(v.bookBegin)) +
    el('DepreciationMethod', 'Lineær') +
    el('DepreciationForPeriod', money(v.depreciation)) +
    el('AccumulatedDepreciation', money(v.accumulated)) +
    el('BookValueEnd', money(v.bookEnd)) +
    '</Valuation></Valuations></Asset>'
  );
}

function transactionXml(t: {
  id: string;
  asset: string;
  type: string;
  description: string;
  date: string;
  number: string | null;
  cost: Decimal;
  book: Decimal;
  amount: Decimal;
}) {
  return (
    '<AssetTransaction>' +
    el('AssetTransactionID', t.id) +
    el('AssetID', t.asset) +
    el('AssetTransactionType', t.type) +
    el('Description', xmlText(t.description, SAFT_TEXT.long)) +
    el('AssetTransactionDate', t.date) +
    (t.number ? el('TransactionID', t.number) : '') +
    '<AssetTransactionValuations><AssetTransactionValuation>' +
    el('AssetValuationType', 'Regnskab') +
    el('AcquisitionAndProductionCostsOnTransaction', money(t.cost)) +
    el('BookValueOnTransaction', money(t.book)) +
    el('AssetTransactionAmount', money(t.amount)) +
    '</AssetTransactionValuation></AssetTransactionValuations></AssetTransaction>'
  );
}

/** The assets of the period and their transactions, read once: Assets for MasterFiles, AssetTransactions for SourceDocuments ('' when none). */
export async function saftAssets(client: PoolClient, companyId: string, period: SaftPeriod): Promise<{ masterFiles: string; transactions: string }> {
  const { rows: assets } = await client.query<AssetRow>(ASSETS_SQL, [companyId, period.from, period.to]);
  if (!assets.length) return { masterFiles: '', transactions: '' };
  const { rows: months } = await client.query<DepreciationRow>(DEPRECIATIONS_SQL, [companyId, period.from, period.to]);
  const byAsset = Map.groupBy(months, (m) => m.asset_id);
  const items: string[] = [];
  for (const a of assets) {
    const id = compactId(a.id);
    const cost = new Decimal(a.cost);
    let accumulated = new Decimal(a.before);
    if (a.acquisition_date >= period.from)
      items.push(
        transactionXml({
          id: `${id}-T`,
          asset: id,
          type: 'TILGANG',
          description: `Tilgang: ${a.name}`,
          date: a.acquisition_date,
          number: a.addition_number,
          cost,
          book: cost,
          amount: cost,
        }),
      );
    for (const m of byAsset.get(a.id) ?? []) {
      accumulated = accumulated.plus(m.amount);
      items.push(
        transactionXml({
          id: `${id}-A${m.month.slice(0, 7)}`,
          asset: id,
          type: 'AFSKRIV',
          description: `Afskrivning ${m.month.slice(0, 7)}: ${a.name}`,
          date: m.date,
          number: m.document_number,
          cost: new Decimal(0),
          book: cost.minus(accumulated),
          amount: new Decimal(m.amount),
        }),
      );
    }
    if (a.disposed_date && a.disposed_date <= period.to)
      items.push(
        transactionXml({
          id: `${id}-X`,
          asset: id,
          type: 'AFGANG',
          description: `Afgang: ${a.name}`,
          date: a.disposed_date,
          number: a.disposal_number,
          cost,
          book: cost.minus(a.total),
          amount: new Decimal(a.disposal_proceeds ?? 0),
        }),
      );
  }
  return {
    masterFiles: `<Assets>${assets.map((a) => assetXml(a, period)).join('')}</Assets>`,
    transactions: `<AssetTransactions>${el('NumberOfAssetTransactions', String(items.length))}${items.join('')}</AssetTransactions>`,
  };
}
