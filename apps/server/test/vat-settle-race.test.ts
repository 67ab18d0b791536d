// Two settlements of one VAT period at once, on two server processes: one posts and files, the other
// finds it settled. The company's row lock serialises them; nothing is posted twice.
import { describe, expect, it } from 'vitest';
import { countRows, created, idem, internal, newCompany, useServers } from './helpers.ts';

const servers = useServers(1);

describe('settling a VAT period concurrently', () => {
  it('posts once: one 201, one 409 vat_return_settled, one filed return, one settlement posting', async () => {
    const company = await newCompany('Samtidig Moms ApS');
    const [a, b] = await Promise.all([company.key(), company.key()]);
    const first = servers.api(0, a.key);
    const second = servers.api(1, b.key);
    await created(first.POST('/expenses', { params: idem(), body: { date: '2026-08-14', amount: 1250, vat_code: 'K25', book: true } }));
    // The company files monthly (the operator's setting).
    await internal().internal.updateAccountingSettings({ companyId: company.companyId, vat_period_frequency: 'monthly' });
    for (const period of ['2026-07', '2026-08', '2026-09']) {
      const answers = await Promise.all(
        [first, second].map((api) => api.POST('/vat-returns/{period}/settle', { params: { path: { period }, ...idem() }, body: {} })),
      );
      expect(answers.map((r) => r.response.status).sort()).toEqual([201, 409]);
      expect(answers.find((r) => r.response.status === 409)!.error).toMatchObject({ code: 'vat_return_settled' });
    }
    expect(await countRows(`SELECT count(*)::int AS n FROM vat_returns WHERE company_id = $1`, [company.companyId])).toBe(3);
    // July had no VAT activity: nothing to move. August moved its 250.00 once; September none.
    expect(await countRows(`SELECT count(*)::int AS n FROM ledger_transactions WHERE company_id = $1 AND source = 'vat_settlement'`, [company.companyId])).toBe(
      1,
    );
  }, 60_000);
});
