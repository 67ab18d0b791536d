// The posting function under concurrency: many connections to three servers (this process and two
// separate server processes) on one database post to one company at the same moment. Document numbers
// and system ids must come out gapless, unique and in posting order, a refused posting must consume no
// number, and the daily balances must equal the sum of the posted lines. Batches of postings (the
// journal writer's set-based path) take their numbers beside single postings the same way.
import { describe, expect, it } from 'vitest';
import { inTransaction } from '@tlr/db';
import { addDays, Decimal, postBatch, today as businessDay, updateAccountingSettings, type DomainError, type Posting, type PostingLine } from '@tlr/domain';
import { countRows, created, idem, newCompany, testDb, twoLinePosting, useServers, type RequestBody, type Schemas } from './helpers.ts';

// Hundreds of postings at once, each waiting its turn at the company's number lock: what is tested is
// that every one is numbered gaplessly, not how long the last waits, which on a machine busy with the
// rest of the suite passed the 5 s for a connection and the 20 s a request may take (503).
const servers = useServers(2, {
  DB_CONNECT_TIMEOUT_MS: '60000',
  DB_STATEMENT_TIMEOUT_MS: '60000',
  DB_TRANSACTION_TIMEOUT_MS: '90000',
  REQUEST_TIMEOUT_MS: '120000',
});

const today = businessDay();
const year = Number(today.slice(0, 4));
const ACCOUNTS = ['1010', '6470', '7680', '2200'] as const;
const cents = (amount: string) => Math.round(Number(amount) * 100);

/** Per company, the posted rows in system_id order (numbers as numbers, created_at in ms). */
async function postedRows(companyId: string) {
  const { rows } = await testDb().pool.query<{ id: string; document_number: number; system_id: number; created_at: Date; source: string }>(
    `SELECT id, document_number, system_id, created_at, source FROM ledger_transactions WHERE company_id = $1 ORDER BY system_id`,
    [companyId],
  );
  return rows;
}

/**
 * The (account, day) or (account, month) pairs where the running balances differ from the sum of the
 * lines, in either direction (a missing row on one side counts). Must be none.
 */
async function mismatches(companyId: string, table: 'account_daily_balances' | 'account_monthly_balances') {
  const bucket = table === 'account_daily_balances' ? 't.date' : "date_trunc('month', t.date)::date";
  const column = table === 'account_daily_balances' ? 'date' : 'month';
  const { rows } = await testDb().pool.query<Record<string, unknown>>(
    `WITH lines AS (
       SELECT l.account_id, ${bucket} AS bucket, SUM(l.debit) AS debit, SUM(l.credit) AS credit
       FROM transaction_lines l JOIN ledger_transactions t ON t.id = l.transaction_id
       WHERE l.company_id = $1 GROUP BY 1, 2),
     balances AS (SELECT account_id, ${column} AS bucket, debit, credit FROM ${table} WHERE company_id = $1)
     SELECT COALESCE(l.account_id, b.account_id) AS account_id, COALESCE(l.bucket, b.bucket) AS bucket,
            l.debit AS line_debit, b.debit AS balance_debit, l.credit AS line_credit, b.credit AS balance_credit
     FROM lines l FULL OUTER JOIN balances b ON b.account_id = l.account_id AND b.bucket = l.bucket
     WHERE l.debit IS DISTINCT FROM b.debit OR l.credit IS DISTINCT FROM b.credit`,
    [companyId],
  );
  return rows;
}

/** Per account number: total debit and credit of the lines, and of the daily balances (in øre). */
async function accountTotals(companyId: string) {
  const { rows } = await testDb().pool.query<{ account_number: string; line_debit: string; line_credit: string; bal_debit: string; bal_credit: string }>(
    `SELECT a.account_number,
            (SELECT COALESCE(SUM(debit), 0) FROM transaction_lines WHERE company_id = $1 AND account_id = a.id) AS line_debit,
            (SELECT COALESCE(SUM(credit), 0) FROM transaction_lines WHERE company_id = $1 AND account_id = a.id) AS line_credit,
            (SELECT COALESCE(SUM(debit), 0) FROM account_daily_balances WHERE company_id = $1 AND account_id = a.id) AS bal_debit,
            (SELECT COALESCE(SUM(credit), 0) FROM account_daily_balances WHERE company_id = $1 AND account_id = a.id) AS bal_credit
     FROM accounts a WHERE a.company_id = $1 ORDER BY a.account_number`,
    [companyId],
  );
  return new Map(
    rows.map((r) => [
      r.account_number,
      { lineDebit: cents(r.line_debit), lineCredit: cents(r.line_credit), balDebit: cents(r.bal_debit), balCredit: cents(r.bal_credit) },
    ]),
  );
}

describe('posting under concurrency (three servers, one company)', () => {
  it('keeps document numbers and system ids gapless, unique and in posting order; refusals consume no number; balances equal the lines', async () => {
    const company = await newCompany('Samtidig ApS');
    // The rate limit is 100 requests per 60 s per key: spread the requests over enough keys.
    const keys = await Promise.all(Array.from({ length: 8 }, () => company.key()));
    const lock = `${year}-01-31`;
    await updateAccountingSettings(testDb().prisma, company.companyId, { lock_date: lock });
    // Valid dates: 20 days after the lock date, up to today (several postings share a day).
    const firstOpen = addDays(lock, 1);
    const span = Math.max(0, Math.round((Date.parse(today) - Date.parse(firstOpen)) / 86_400_000));
    const dates = Array.from({ length: 20 }, (_, i) => addDays(firstOpen, Math.floor((span * i) / 19)));

    type Kind = 'ok' | 'twin' | 'unbalanced' | 'locked' | 'not_open';
    interface Req {
      kind: Kind;
      idem: string;
      body: RequestBody<'/transactions', 'post'>;
    }
    const run = `${Date.now()}-${process.pid}`;
    const VALID = 200;
    const reqs: Req[] = [];
    const expected = new Map<string, { debit: number; credit: number }>(ACCOUNTS.map((a) => [a, { debit: 0, credit: 0 }]));
    for (let i = 0; i < VALID; i++) {
      // 2 to 4 lines, amounts in whole øre, balanced.
      const a = (1000 + ((i * 7919) % 100_000)) / 100;
      const b = (100 + ((i * 104_729) % 5000)) / 100;
      const [d1, d2, c1, c2] = [ACCOUNTS[i % 4]!, ACCOUNTS[(i + 1) % 4]!, ACCOUNTS[(i + 2) % 4]!, ACCOUNTS[(i + 3) % 4]!];
      const lines =
        i % 3 === 0
          ? [
              { account_number: d1, debit: (a + b).toFixed(2) },
              { account_number: c1, credit: a.toFixed(2) },
              { account_number: c2, credit: b.toFixed(2) },
            ]
          : i % 3 === 1
            ? [
                { account_number: d1, debit: a.toFixed(2) },
                { account_number: c1, credit: a.toFixed(2) },
              ]
            : [
                { account_number: d1, debit: a.toFixed(2) },
                { account_number: d2, debit: b.toFixed(2) },
                { account_number: c1, credit: b.toFixed(2) },
                { account_number: c2, credit: a.toFixed(2) },
              ];
      for (const l of lines) {
        const e = expected.get(l.account_number)!;
        e.debit += l.debit ? cents(l.debit) : 0;
        e.credit += l.credit ? cents(l.credit) : 0;
      }
      reqs.push({ kind: 'ok', idem: `conc-${run}-${i}`, body: { date: dates[i % dates.length]!, description: `Samtidig ${i}`, lines } });
    }
    // Concurrent twins of 10 of them (same Idempotency-Key and body): replays, never a second posting.
    for (let i = 0; i < 10; i++) reqs.push({ ...reqs[i * 17]!, kind: 'twin' });
    // Refusals. Unbalanced is caught before the number lock; the locked and not-open dates are found
    // under it, after both numbers were incremented: their rollback must give the numbers back.
    for (let i = 0; i < 15; i++) {
      reqs.push({
        kind: 'unbalanced',
        idem: `unb-${run}-${i}`,
        body: {
          date: today,
          description: 'Skæv',
          lines: [
            { account_number: '6470', debit: '100.00' },
            { account_number: '1010', credit: '99.99' },
          ],
        },
      });
      reqs.push({
        kind: 'locked',
        idem: `lock-${run}-${i}`,
        body: twoLinePosting(addDays(lock, -(i * 3)), '6470', '1010', '10.00', 'Låst'),
      });
    }
    for (let i = 0; i < 10; i++) {
      reqs.push({
        kind: 'not_open',
        idem: `open-${run}-${i}`,
        body: twoLinePosting(`${year + 2}-0${1 + (i % 9)}-15`, '6470', '1010', '10.00', 'Fremtid'),
      });
    }
    // A deterministic shuffle, so refusals and twins are interleaved with the postings.
    let seed = 42;
    const rnd = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    for (let i = reqs.length - 1; i > 0; i--) {
      const j = Math.floor(rnd() * (i + 1));
      [reqs[i], reqs[j]] = [reqs[j]!, reqs[i]!];
    }
    expect(reqs.length / keys.length).toBeLessThan(90);

    const started = Date.now();
    const replies = await Promise.all(
      reqs.map((r, i) => servers.api(i, keys[i % keys.length]!.key).POST('/transactions', { params: idem(r.idem), body: r.body })),
    );
    const elapsed = Date.now() - started;

    // Every reply is what its request deserves.
    const posted = new Map<string, Schemas['Transaction']>();
    reqs.forEach((r, i) => {
      const reply = replies[i]!;
      const expectation = {
        ok: [201, undefined],
        twin: [201, undefined],
        unbalanced: [422, 'unbalanced_transaction'],
        locked: [422, 'period_locked'],
        not_open: [422, 'fiscal_year_not_open'],
      }[r.kind];
      expect({ kind: r.kind, status: reply.response.status, code: reply.error?.code }).toEqual({ kind: r.kind, status: expectation[0], code: expectation[1] });
      if (reply.response.status === 201 && reply.data && !posted.has(r.idem)) posted.set(r.idem, reply.data.data);
    });
    // A twin and its original carry the same transaction; exactly one of the pair is the replay.
    const byIdem = new Map<string, typeof replies>();
    reqs.forEach((r, i) => byIdem.set(r.idem, [...(byIdem.get(r.idem) ?? []), replies[i]!]));
    const pairs = [...byIdem.values()].filter((rs) => rs.length === 2);
    expect(pairs).toHaveLength(10);
    for (const [x, y] of pairs) {
      expect(x?.data).toBeDefined();
      expect(x?.data).toEqual(y?.data);
      expect([x?.response.headers.get('x-idempotency-replayed'), y?.response.headers.get('x-idempotency-replayed')].sort()).toEqual(['true', null].sort());
    }

    const N = VALID;
    const range = Array.from({ length: N }, (_, i) => i + 1);
    // The replies: N distinct transactions, each number handed out once.
    const views = [...posted.values()];
    expect(new Set(views.map((v) => v.id)).size).toBe(N);
    expect(views.map((v) => v.document_number).sort((x, y) => x - y)).toEqual(range);
    expect(views.map((v) => v.system_id).sort((x, y) => x - y)).toEqual(range);

    // The database: exactly 1..N for both numbers, in the same order, and posting order = system_id order.
    const rows = await postedRows(company.companyId);
    expect(rows).toHaveLength(N);
    expect(rows.map((r) => Number(r.system_id))).toEqual(range);
    expect(rows.map((r) => Number(r.document_number))).toEqual(range); // strictly increasing with system_id
    for (let i = 1; i < rows.length; i++) expect(rows[i]!.created_at.getTime()).toBeGreaterThanOrEqual(rows[i - 1]!.created_at.getTime());
    const byId = new Map(views.map((v) => [v.id, v]));
    for (const r of rows) expect([byId.get(r.id)?.document_number, byId.get(r.id)?.system_id]).toEqual([Number(r.document_number), Number(r.system_id)]);
    const { rows: seq } = await testDb().pool.query<{ last_document_number: number; last_system_id: number }>(
      `SELECT last_document_number, last_system_id FROM number_sequences WHERE company_id = $1`,
      [company.companyId],
    );
    expect(seq[0]).toEqual({ last_document_number: N, last_system_id: N });
    expect(await countRows(`SELECT count(*)::int AS n FROM outbox_events WHERE company_id = $1 AND type = 'transaction.created'`, [company.companyId])).toBe(N);

    // Balances: per account and day, and per account, the daily balances equal the lines, and the
    // lines equal what was sent.
    expect(await mismatches(company.companyId, 'account_daily_balances')).toEqual([]);
    expect(await mismatches(company.companyId, 'account_monthly_balances')).toEqual([]);
    const totals = await accountTotals(company.companyId);
    for (const [account, e] of expected) {
      const t = totals.get(account)!;
      expect({ account, debit: t.lineDebit, credit: t.lineCredit }).toEqual({ account, debit: e.debit, credit: e.credit });
      expect({ account, debit: t.balDebit, credit: t.balCredit }).toEqual({ account, debit: e.debit, credit: e.credit });
    }
    for (const [account, t] of totals) {
      if (!expected.has(account)) expect({ account, ...t }).toEqual({ account, lineDebit: 0, lineCredit: 0, balDebit: 0, balCredit: 0 });
    }
    const sum = [...totals.values()].reduce((s, t) => ({ d: s.d + t.lineDebit, c: s.c + t.lineCredit }), { d: 0, c: 0 });
    expect(sum.d).toBe(sum.c);

    // A posting after the storm takes the next number: nothing was reserved or skipped.
    const after = (await created(servers.api(1, keys[0]!.key).POST('/transactions', { params: idem(), body: twoLinePosting(today, '6470', '1010', 1) }))).data;
    expect([after.document_number, after.system_id]).toEqual([N + 1, N + 1]);
    console.log(`ledger-concurrency: ${reqs.length} requests (${N} postings) over ${servers.urls.length} servers in ${elapsed} ms`);
  }, 180_000);

  it('batches beside single postings: gapless numbers, a batch in one run of them, balances and VAT bases equal the lines, an event a posting', async () => {
    const company = await newCompany('Samtidig Bunke ApS');
    const keys = await Promise.all(Array.from({ length: 3 }, () => company.key()));
    const scope = { companyId: company.companyId, livemode: true };
    const chart = await testDb().prisma.account.findMany({ where: { company_id: company.companyId, account_number: { in: ['1010', '6470', '7680'] } } });
    const id = new Map(chart.map((a) => [a.account_number, a.id]));
    const line = (number: string, debit: string, credit: string, vatCode = ''): PostingLine => ({
      accountId: id.get(number)!,
      debit: new Decimal(debit),
      credit: new Decimal(credit),
      description: '',
      vatCode,
    });
    // A sale with 25 % VAT paid into the bank: the base (1010) counts in the VAT bases, the VAT (7680) does not.
    const batchOf = (b: number) =>
      Array.from({ length: 25 }, (_, i): Posting => ({
        date: today,
        description: `Bunke ${b}, salg ${i}`,
        source: 'manual',
        lines: [line('6470', '125', '0'), line('1010', '0', '100', 'S25'), line('7680', '0', '25', 'S25')],
      }));
    const run = inTransaction(testDb());
    const [batches] = await Promise.all([
      Promise.all([0, 1, 2, 3].map((b) => run((tx) => postBatch(tx, scope, batchOf(b), { events: true })))),
      Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          created(servers.api(i, keys[i % keys.length]!.key).POST('/transactions', { params: idem(), body: twoLinePosting(today, '6470', '1010', 10) })),
        ),
      ),
    ]);
    const N = 4 * 25 + 12;
    const range = Array.from({ length: N }, (_, i) => i + 1);
    const rows = await postedRows(company.companyId);
    expect(rows.map((r) => Number(r.system_id))).toEqual(range);
    expect(rows.map((r) => Number(r.document_number))).toEqual(range);
    const systemOf = new Map(rows.map((r) => [r.id, Number(r.system_id)]));
    for (const refs of batches) {
      // What the batch answered is what was written, and its postings took consecutive numbers.
      for (const r of refs) expect([systemOf.get(r.id), Number(r.documentNumber)]).toEqual([Number(r.systemId), Number(r.systemId)]);
      const ids = refs.map((r) => Number(r.systemId));
      expect(ids).toEqual(Array.from({ length: 25 }, (_, i) => ids[0]! + i));
    }
    expect(await mismatches(company.companyId, 'account_daily_balances')).toEqual([]);
    expect(await mismatches(company.companyId, 'account_monthly_balances')).toEqual([]);
    const { rows: bases } = await testDb().pool.query<{ vat_code: string; debit: string; credit: string }>(
      `SELECT vat_code, debit::text, credit::text FROM vat_monthly_bases WHERE company_id = $1`,
      [company.companyId],
    );
    expect(bases).toEqual([{ vat_code: 'S25', debit: '0.00', credit: '10000.00' }]);
    expect(await countRows(`SELECT count(*)::int AS n FROM outbox_events WHERE company_id = $1 AND type = 'transaction.created'`, [company.companyId])).toBe(N);

    // A batch dated on or before the lock date is refused whole, and draws no number.
    await updateAccountingSettings(testDb().prisma, company.companyId, { lock_date: today });
    const refused = await run((tx) => postBatch(tx, scope, batchOf(9), { events: true })).catch((e: DomainError) => [e.code, e.field]);
    expect(refused).toEqual(['period_locked', 'date']);
    expect(await postedRows(company.companyId)).toHaveLength(N);
  });

  it('concurrent reversals of one transaction: exactly one 201, the rest 409 already_reversed, no number consumed', async () => {
    const company = await newCompany('Tilbageført ApS');
    const keys = await Promise.all(Array.from({ length: 3 }, () => company.key()));
    const { id } = (
      await created(
        servers.api(0, keys[0]!.key).POST('/transactions', { params: idem(), body: twoLinePosting(today, '2200', '6470', '300.00', 'Skal tilbageføres') }),
      )
    ).data;
    const run = `${Date.now()}-${process.pid}`;
    const replies = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        servers.api(i, keys[i % keys.length]!.key).POST('/transactions/{id}/reverse', { params: { path: { id }, ...idem(`rev-${run}-${i}`) }, body: {} }),
      ),
    );
    const reversals = replies.filter((r) => r.response.status === 201);
    const refused = replies.filter((r) => r.response.status !== 201);
    expect(reversals).toHaveLength(1);
    expect(refused.map((r) => [r.response.status, r.error?.code])).toEqual(Array.from({ length: 23 }, () => [409, 'already_reversed']));
    expect(reversals[0]?.data?.data).toMatchObject({ source: 'reversal', reverses_transaction_id: id, document_number: 2, system_id: 2 });

    const rows = await postedRows(company.companyId);
    expect(rows.map((r) => [Number(r.document_number), Number(r.system_id), r.source])).toEqual([
      [1, 1, 'manual'],
      [2, 2, 'reversal'],
    ]);
    const next = (await created(servers.api(2, keys[2]!.key).POST('/transactions', { params: idem(), body: twoLinePosting(today, '6470', '1010', 5) }))).data;
    expect([next.document_number, next.system_id]).toEqual([3, 3]);
    expect(await mismatches(company.companyId, 'account_daily_balances')).toEqual([]);
    expect(await mismatches(company.companyId, 'account_monthly_balances')).toEqual([]);
    const totals = await accountTotals(company.companyId);
    expect(totals.get('2200')).toEqual({ lineDebit: 30_000, lineCredit: 30_000, balDebit: 30_000, balCredit: 30_000 });
  });
});
