// GET /vat-returns?period=: a period's return, as filed when settled, else as the books stand, with its
// filed versions.
import type { Db } from '@tlr/db';
import type { CompanyScope } from '../context.ts';
import { companyPeriod, periodFigures } from './return-figures.ts';
import { filingOf } from './filing.ts';
import { filedVersions, latestFiled, returnView, type VatReturnView } from './filed-returns.ts';

/** GET /vat-returns?period=: the return of a period, as filed when settled, else as the books stand, with its filed versions. */
export async function getVatReturn(db: Db, scope: CompanyScope, periodText: string): Promise<VatReturnView> {
  const { period } = await companyPeriod(db, scope, periodText);
  const current = await periodFigures(db, scope, period);
  const versions = await filedVersions(db, scope, period.period);
  return { ...returnView(period, current, await latestFiled(db, scope, period.period)), versions, filing: await filingOf(db, scope, period.period) };
}
