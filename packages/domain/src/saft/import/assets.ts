// The asset register from a SAF-T file (decisions 860-864, 891): each MasterFiles/Assets/Asset held at the
// end of the file's period, or disposed of in it, becomes a fixed asset with its cost, its life and the
// depreciation to date (and its disposal),
// so that the depreciation job carries on with the next month; each of its AssetTransactions of type
// AFSKRIV (a month's depreciation) is linked to the imported posting its TransactionID names, and the
// TILGANG (the addition) names the posting the asset came from. Runs after the journal is written.
import type { Db } from '@tlr/db';
import type { CompanyScope } from '../../context.ts';
import { checkDate, toDate } from '../../calendar.ts';
import { newId } from '../../ids.ts';
import { Decimal, parseDecimalText } from '../../money.ts';
import { ASSET_GROUPS, ASSET_GROUP_NAMES, depreciationSchedule, MAX_LIFE_MONTHS, type AssetGroup } from '../../assets/rules.ts';
import type { SaftAssetIn } from './reader.ts';
import { saftInvalid } from './schema-check.ts';

const VALUATION = 'Valuations/Valuation/';
const TX_AMOUNT = 'AssetTransactionValuations/AssetTransactionValuation/AssetTransactionAmount';

/** An amount of the file (2 decimals at most), or a refusal naming its line and element. */
function amountOf(r: SaftAssetIn, element: string, fallback?: Decimal): Decimal {
  const text = r.fields.get(element);
  if (text === undefined && fallback) return fallback;
  const v = parseDecimalText(text ?? '');
  if (typeof v === 'string') throw saftInvalid(r.line, element.split('/').at(-1)!, `${JSON.stringify(text ?? '')} ${v}`);
  return v;
}

/** The useful life in whole months: AssetLifeMonth, else AssetLifeYear × 12. */
function lifeOf(r: SaftAssetIn): number {
  const months = r.fields.get(`${VALUATION}AssetLifeMonth`);
  const years = r.fields.get(`${VALUATION}AssetLifeYear`);
  const life = months !== undefined ? Number(months) : years !== undefined ? Number(years) * 12 : NaN;
  if (!Number.isInteger(life) || life < 1 || life > MAX_LIFE_MONTHS)
    throw saftInvalid(r.line, 'AssetLifeMonth', `the useful life ${months ?? years ?? '(none)'} is not a whole number of months from 1 to ${MAX_LIFE_MONTHS}`);
  return life;
}

/**
 * The residual value the register is given (decision 862): SAF-T carries none, so it is what the file's
 * monthly depreciation implies, cost less the month's amount times the life (never below 0); with no
 * month in the file, the book value at its end when something was depreciated (nothing is left to
 * depreciate), else 0. Pure.
 */
export function impliedResidual(cost: Decimal, life: number, accumulated: Decimal, monthly: Decimal | undefined): Decimal {
  if (monthly) return Decimal.max(0, cost.minus(monthly.times(life)));
  return accumulated.isZero() ? new Decimal(0) : cost.minus(accumulated);
}

/** The months of the schedule the accumulated depreciation covers (their running sum at most it). Pure. */
export function monthsCovered(schedule: readonly { amount: Decimal }[], accumulated: Decimal): number {
  let sum = new Decimal(0);
  let n = 0;
  for (const m of schedule) {
    sum = sum.plus(m.amount);
    if (sum.greaterThan(accumulated)) break;
    n++;
  }
  return n;
}

const TX_VALUATION = 'AssetTransactionValuations/AssetTransactionValuation/';

/**
 * A disposed asset's cost (decision 891): the cost its AFGANG takes off, else the cost at the period's
 * start, else the period's addition (the cost at the end is nil once disposed of).
 */
function disposedCost(r: SaftAssetIn, disposal: SaftAssetIn): Decimal {
  for (const [row, element] of [
    [disposal, `${TX_VALUATION}AcquisitionAndProductionCostsOnTransaction`],
    [r, `${VALUATION}AcquisitionAndProductionCostsBegin`],
    [r, `${VALUATION}AssetAddition`],
  ] as const) {
    if (!row.fields.has(element)) continue;
    const cost = amountOf(row, element);
    if (cost.isPositive() && !cost.isZero()) return cost;
  }
  return new Decimal(0);
}

/** What was depreciated when it was disposed of: the cost less the AFGANG's book value, else less the valuation's AssetDisposal. */
function disposedDepreciation(r: SaftAssetIn, disposal: SaftAssetIn, cost: Decimal): Decimal {
  const book = disposal.fields.has(`${TX_VALUATION}BookValueOnTransaction`)
    ? amountOf(disposal, `${TX_VALUATION}BookValueOnTransaction`)
    : amountOf(r, `${VALUATION}AssetDisposal`, new Decimal(0));
  return Decimal.max(0, cost.minus(book));
}

/** The group whose default asset account is the asset's account, else operating equipment (decision 861). */
const groupOf = (accountNumber: string): AssetGroup => ASSET_GROUP_NAMES.find((g) => ASSET_GROUPS[g].asset === accountNumber) ?? 'operating_equipment';

/**
 * Creates the register of the file's assets (`assets`, `transactions` as read) in the company whose
 * journal was just imported; `accountOf` maps the file's AccountIDs to the company's accounts. Answers
 * how many assets it made.
 */
export async function importSaftAssets(
  db: Db,
  scope: CompanyScope,
  assets: readonly SaftAssetIn[],
  transactions: readonly SaftAssetIn[],
  accountOf: ReadonlyMap<string, string>,
): Promise<number> {
  if (!assets.length) return 0;
  const c = scope.companyId;
  const byAsset = Map.groupBy(transactions, (t) => t.fields.get('AssetID') ?? '');
  // The imported postings the transactions name (TransactionID), with their lines: a month's posting gives the accounts.
  const named = [...new Set(transactions.map((t) => t.fields.get('TransactionID') ?? '').filter(Boolean))];
  const postings = new Map(
    (named.length
      ? await db.ledgerTransaction.findMany({
          where: { company_id: c, source: 'import', source_transaction_id: { in: named } },
          select: { id: true, source_transaction_id: true, lines: { select: { account_id: true, debit: true, credit: true } } },
        })
      : []
    ).map((p) => [p.source_transaction_id, p]),
  );
  const accounts = new Map(
    (await db.account.findMany({ where: { company_id: c }, select: { id: true, account_number: true, type: true } })).map((a) => [a.id, a]),
  );
  const numbered = new Map([...accounts.values()].map((a) => [a.account_number, a.id]));
  let made = 0;
  for (const r of assets) {
    const f = r.fields;
    const assetId = f.get('AssetID') ?? '';
    const own = byAsset.get(assetId) ?? [];
    // Disposed of in the period (an AFGANG): entered with its disposal, its cost and book value those the disposal
    // carries (decision 891); without one, an asset of no cost at the end is not entered (decision 863).
    const disposal = own.find((t) => t.fields.get('AssetTransactionType') === 'AFGANG');
    const cost = disposal ? disposedCost(r, disposal) : amountOf(r, `${VALUATION}AcquisitionAndProductionCostsEnd`);
    if (!cost.isPositive() || cost.isZero()) continue;
    const accountId = accountOf.get(f.get('AccountID') ?? '');
    if (!accountId) throw saftInvalid(r.line, 'AccountID', `account ${JSON.stringify(f.get('AccountID'))} is not in GeneralLedgerAccounts`);
    if (accounts.get(accountId)?.type !== 'asset')
      throw saftInvalid(r.line, 'AccountID', `the asset's account ${f.get('AccountID')} is not an asset account (a balance-sheet asset)`);
    const acquired = f.get('DateOfAcquisition') ?? '';
    const bad = checkDate(acquired);
    if (bad) throw saftInvalid(r.line, 'DateOfAcquisition', `the date ${bad}`);
    const life = lifeOf(r);
    const accumulated = disposal
      ? disposedDepreciation(r, disposal, cost)
      : amountOf(r, `${VALUATION}AccumulatedDepreciation`, cost.minus(amountOf(r, `${VALUATION}BookValueEnd`)));
    const disposedOn = disposal?.fields.get('AssetTransactionDate') ?? '';
    const badDisposal = disposal && checkDate(disposedOn);
    if (badDisposal) throw saftInvalid(disposal.line, 'AssetTransactionDate', `the date ${badDisposal}`);
    if (disposal && disposedOn < acquired)
      throw saftInvalid(disposal.line, 'AssetTransactionDate', `the disposal ${disposedOn} is before the acquisition ${acquired}`);
    const months = own
      .filter((t) => t.fields.get('AssetTransactionType') === 'AFSKRIV')
      .sort((a, b) => (a.fields.get('AssetTransactionDate') ?? '').localeCompare(b.fields.get('AssetTransactionDate') ?? ''));
    const monthly = months.length ? amountOf(months[0]!, TX_AMOUNT) : undefined;
    const residual = impliedResidual(cost, life, accumulated, monthly);
    const schedule = depreciationSchedule({ acquisition_date: acquired, cost, residual_value: residual, useful_life_months: life });
    const posted = monthsCovered(schedule, accumulated);
    // The accounts: those a month's posting debits (the expense) and credits (accumulated depreciation), else the group's.
    const group = groupOf(accounts.get(accountId)!.account_number);
    const sample = months.map((m) => postings.get(m.fields.get('TransactionID') ?? '')).find(Boolean);
    const largest = (side: 'debit' | 'credit') => {
      let best: { account_id: string; amount: Decimal } | undefined;
      for (const l of sample?.lines ?? []) {
        const amount = new Decimal(l[side].toString());
        if (amount.isPositive() && !amount.isZero() && (!best || amount.greaterThan(best.amount))) best = { account_id: l.account_id, amount };
      }
      return best?.account_id;
    };
    const depreciationId = largest('debit') ?? numbered.get(ASSET_GROUPS[group].depreciation);
    const accumulatedId = largest('credit') ?? numbered.get(ASSET_GROUPS[group].accumulated);
    if (!depreciationId || !accumulatedId)
      throw saftInvalid(
        r.line,
        'Asset',
        `the chart has no account ${ASSET_GROUPS[group].depreciation} or ${ASSET_GROUPS[group].accumulated} for the asset's depreciation`,
      );
    const addition = own.find((t) => t.fields.get('AssetTransactionType') === 'TILGANG');
    const id = newId();
    await db.fixedAsset.create({
      data: {
        id,
        company_id: c,
        name: (f.get('Description') || assetId).slice(0, 200),
        group,
        acquisition_date: toDate(acquired),
        cost: cost.toFixed(2),
        useful_life_months: life,
        residual_value: residual.toFixed(2),
        asset_account_id: accountId,
        accumulated_account_id: accumulatedId,
        depreciation_account_id: depreciationId,
        transaction_id: postings.get(addition?.fields.get('TransactionID') ?? '')?.id ?? null,
        status: disposal ? 'disposed' : posted >= life ? 'fully_depreciated' : 'active',
        months_posted: posted,
        depreciated: accumulated.toFixed(2),
        ...(disposal && {
          disposed_date: toDate(disposedOn),
          // The AFGANG's amount is what it was sold for, as tlr writes it; none in the file, none here.
          disposal_proceeds: disposal.fields.has(TX_AMOUNT) ? amountOf(disposal, TX_AMOUNT).toFixed(2) : null,
          disposal_transaction_id: postings.get(disposal.fields.get('TransactionID') ?? '')?.id ?? null,
        }),
      },
    });
    // The file's months are the last of those depreciated: each linked to its imported posting.
    const first = posted - months.length;
    const rows = months.flatMap((m, k) => {
      const posting = postings.get(m.fields.get('TransactionID') ?? '');
      const month = schedule[first + k];
      const date = m.fields.get('AssetTransactionDate') ?? '';
      if (!posting || !month || first + k < 0 || checkDate(date)) return [];
      return [
        {
          id: newId(),
          company_id: c,
          asset_id: id,
          month: toDate(month.month),
          amount: amountOf(m, TX_AMOUNT).toFixed(2),
          transaction_id: posting.id,
          date: toDate(date),
        },
      ];
    });
    if (rows.length) await db.assetDepreciation.createMany({ data: rows });
    made++;
  }
  return made;
}
