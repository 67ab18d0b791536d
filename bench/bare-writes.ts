// The bare SQL of the two write paths the benchmarks hold tlr against, in one place: a posting (what
// postTransaction writes) and an auto-approved invoice (what createInvoice with auto_approve writes),
// each as plain pg statements in one transaction, with every id looked up beforehand. bench/ledger.ts
// and bench/invoices.ts run them in-process against POST /transactions and POST /invoices; bench/baseline.ts
// serves them over HTTP for bench/run.ts. The request bodies both sides are sent are here as well.
import type pg from 'pg';
import { API_VERSION } from '@tlr/config';
// The ids module alone: the baseline server must not load the domain (Prisma, and pg's type parsers of @tlr/db).
import { newId } from '@tlr/domain/ids';
import { VAT_CODES } from '@tlr/domain';

/** pg.Pool, structurally (the service's @tlr/db pool and the baseline's own both fit). */
export interface BarePool {
  connect(): Promise<Pick<pg.PoolClient, 'query' | 'release'>>;
}

type Client = Awaited<ReturnType<BarePool['connect']>>;

async function inTransaction<T>(pool: BarePool, work: (client: Client) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (e) {
    await client.query('ROLLBACK').catch(() => {});
    throw e;
  } finally {
    client.release();
  }
}

/** Monthly running balances exist in this schema (reports read them; the writes keep them). */
export async function hasMonthlyBalances(pool: Pick<pg.Pool, 'query'>): Promise<boolean> {
  return (await pool.query(`SELECT to_regclass('account_monthly_balances') IS NOT NULL AS ok`)).rows[0].ok as boolean;
}

/**
 * Per account: the daily (and, where the table exists, the monthly) running balances of a posting.
 * Parameters: company, date, then the lines' accounts, debits and credits as arrays.
 */
function balancesSql(monthly: boolean): string {
  const daily = `INSERT INTO account_daily_balances AS b (company_id, account_id, date, debit, credit)
     SELECT $1::uuid, account, $2::date, debit, credit FROM t
     ON CONFLICT (company_id, account_id, date) DO UPDATE SET debit = b.debit + EXCLUDED.debit, credit = b.credit + EXCLUDED.credit`;
  const totals = `SELECT account, SUM(debit) AS debit, SUM(credit) AS credit FROM unnest($3::uuid[], $4::numeric[], $5::numeric[]) AS u(account, debit, credit) GROUP BY account`;
  return monthly
    ? `WITH t AS (${totals}), daily AS (${daily})
       INSERT INTO account_monthly_balances AS m (company_id, account_id, month, debit, credit)
       SELECT $1::uuid, account, date_trunc('month', $2::date)::date, debit, credit FROM t
       ON CONFLICT (company_id, account_id, month) DO UPDATE SET debit = m.debit + EXCLUDED.debit, credit = m.credit + EXCLUDED.credit`
    : `WITH t AS (${totals}) ${daily}`;
}

/** Account number -> id for the given numbers of the company's chart (looked up once, before the load). */
export async function accountIds(pool: Pick<pg.Pool, 'query'>, companyId: string, numbers: readonly string[]): Promise<Record<string, string>> {
  const { rows } = await pool.query<{ id: string; account_number: string }>(
    `SELECT id, account_number FROM accounts WHERE company_id = $1 AND account_number = ANY($2)`,
    [companyId, [...numbers]],
  );
  const ids = Object.fromEntries(rows.map((r) => [r.account_number, r.id]));
  const missing = numbers.filter((n) => !ids[n]);
  if (missing.length) throw new Error(`the chart of accounts has no ${missing.join(', ')}`);
  return ids;
}

interface PostingLine {
  account: string;
  debit: string;
  credit: string;
}

const balanceParams = (companyId: string, date: string, lines: PostingLine[]) => [
  companyId,
  date,
  lines.map((l) => l.account),
  lines.map((l) => l.debit),
  lines.map((l) => l.credit),
];

/**
 * The company's next document and system number: the row lock every posting holds until COMMIT. The
 * columns are bigint, which pg hands over as text unless told otherwise (@tlr/db's pool is; the
 * baseline's is not): numbers either way, as the events carry them.
 */
async function nextNumbers(client: Client, companyId: string): Promise<{ d: number; s: number }> {
  const { rows } = await client.query<{ d: number | string; s: number | string }>(
    `UPDATE number_sequences SET last_document_number = last_document_number + 1, last_system_id = last_system_id + 1
     WHERE company_id = $1 RETURNING last_document_number AS d, last_system_id AS s`,
    [companyId],
  );
  return { d: Number(rows[0]!.d), s: Number(rows[0]!.s) };
}

// ---------------------------------------------------------------------------------------------------
// A posting: POST /api/v1/transactions

/** The output VAT account, as the domain's S25 code names it. */
export const OUTPUT_VAT_ACCOUNT = VAT_CODES.find((c) => c.code === 'S25')!.account_number;

/** bank, revenue, output VAT, an expense account */
export const POSTING_ACCOUNTS = ['6470', '1010', '7680', '2200'] as const;

/** Posting n's 4 balanced lines: debit bank a / credit revenue a / debit expense b / credit output VAT b. */
export function postingLines(n: number): { account_number: string; debit: string; credit: string }[] {
  const a = (((n * 7919) % 100_000) / 100 + 1).toFixed(2);
  const b = (((n * 104_729) % 50_000) / 100 + 1).toFixed(2);
  return [
    { account_number: POSTING_ACCOUNTS[0], debit: a, credit: '0' },
    { account_number: POSTING_ACCOUNTS[1], debit: '0', credit: a },
    { account_number: POSTING_ACCOUNTS[3], debit: b, credit: '0' },
    { account_number: POSTING_ACCOUNTS[2], debit: '0', credit: b },
  ];
}

/** The body of POST /api/v1/transactions for posting n (each line names only its debit or its credit). */
export function postingBody(n: number, date: string): string {
  return JSON.stringify({
    date,
    description: `Bench ${n}`,
    lines: postingLines(n).map((l) => ({ account_number: l.account_number, ...(l.debit !== '0' ? { debit: l.debit } : { credit: l.credit }) })),
  });
}

export interface BarePosting {
  companyId: string;
  date: string;
  description: string;
  /** Account ids (looked up beforehand, as the domain's caller resolves them), amounts as decimal text. */
  lines: PostingLine[];
}

/**
 * What postTransaction does, as plain SQL on pg, in one transaction: lock the company's
 * number_sequences row and take the next numbers, insert the transaction and its lines, keep the daily
 * (and monthly) balances, insert the outbox row.
 */
export function barePosting(pool: BarePool, p: BarePosting, monthly: boolean): Promise<{ id: string; document_number: number; system_id: number }> {
  return inTransaction(pool, async (client) => {
    const seq = await nextNumbers(client, p.companyId);
    const id = newId();
    await client.query(
      `INSERT INTO ledger_transactions (id, company_id, document_number, system_id, date, description, source) VALUES ($1, $2, $3, $4, $5, $6, 'manual')`,
      [id, p.companyId, seq.d, seq.s, p.date, p.description],
    );
    await client.query(
      `INSERT INTO transaction_lines (id, company_id, transaction_id, line_number, account_id, debit, credit, date, system_id)
       SELECT t.id, $1, $2, t.n, t.account, t.debit, t.credit, $7, $8
       FROM unnest($3::uuid[], $4::uuid[], $5::numeric[], $6::numeric[]) WITH ORDINALITY AS t(id, account, debit, credit, n)`,
      [p.companyId, id, p.lines.map(() => newId()), p.lines.map((l) => l.account), p.lines.map((l) => l.debit), p.lines.map((l) => l.credit), p.date, seq.s],
    );
    await client.query(balancesSql(monthly), balanceParams(p.companyId, p.date, p.lines));
    const totalDebit = p.lines.reduce((sum, l) => sum + Number(l.debit), 0);
    await client.query(`INSERT INTO outbox_events (id, company_id, type, livemode, api_version, data) VALUES ($1, $2, 'transaction.created', true, $3, $4)`, [
      newId(),
      p.companyId,
      API_VERSION,
      JSON.stringify({ id, document_number: seq.d, system_id: seq.s, date: p.date, total_debit: totalDebit }),
    ]);
    return { id, document_number: seq.d, system_id: seq.s };
  });
}

// ---------------------------------------------------------------------------------------------------
// An auto-approved invoice: POST /api/v1/invoices with auto_approve

export interface Invoicing {
  companyId: string;
  customerId: string;
  customerName: string;
  issue: string;
  due: string;
  /** 6190 Debitorer, 1010 Salg, 7680 Salgsmoms (DEFAULT_ACCOUNTS). */
  receivable: string;
  sales: string;
  outputVat: string;
}

/** The body of POST /api/v1/invoices: 2 lines, 25 % and 0 % VAT, total 90.00 (a 4-line posting). */
export function invoiceBody(inv: Pick<Invoicing, 'customerId' | 'issue' | 'due'>): string {
  return JSON.stringify({
    customer_id: inv.customerId,
    issue_date: inv.issue,
    due_date: inv.due,
    lines: [
      { description: 'A', quantity: 3, unit_price: 19.96, vat_rate: 25 },
      { description: 'B', quantity: 1.5, unit_price: 10.1, vat_rate: 0 },
    ],
    auto_approve: true,
  });
}

/**
 * What createInvoice with auto_approve writes for invoiceBody, as plain SQL on pg, in one transaction:
 * the invoice and its 2 lines, then under the company's number_sequences row lock (taken after the
 * lock-free inserts, as the domain does) the posting (transaction, 4 lines, daily and monthly
 * balances), the 3 events the domain records (invoice.created, transaction.created, invoice.approved)
 * and the invoice's number and posting ids. Account and customer ids are looked up beforehand.
 */
export function bareInvoice(pool: BarePool, inv: Invoicing, monthly: boolean): Promise<{ id: string; document_number: number }> {
  const c = inv.companyId;
  const text = `Faktura til ${inv.customerName}`;
  const posting = [
    { account: inv.receivable, debit: '90.00', credit: '0', vat: '' },
    { account: inv.sales, debit: '0', credit: '59.88', vat: 'S25' },
    { account: inv.sales, debit: '0', credit: '15.15', vat: 'S0' },
    { account: inv.outputVat, debit: '0', credit: '14.97', vat: 'S25' },
  ];
  return inTransaction(pool, async (client) => {
    const id = newId();
    const txId = newId();
    await client.query(
      `INSERT INTO invoices (id, company_id, customer_id, customer_name, status, issue_date, due_date, subtotal, vat_amount, total)
       VALUES ($1, $2, $3, $4, 'draft', $5, $6, 75.03, 14.97, 90.00)`,
      [id, c, inv.customerId, inv.customerName, inv.issue, inv.due],
    );
    await client.query(
      `INSERT INTO invoice_lines (id, company_id, invoice_id, line_number, description, quantity, unit_price, vat_rate, amount, account_id)
       SELECT l.id, $1, $2, l.n, l.description, l.quantity, l.unit_price, l.vat_rate, l.amount, $3
       FROM unnest($4::uuid[], $5::text[], $6::numeric[], $7::numeric[], $8::numeric[], $9::numeric[]) WITH ORDINALITY AS l(id, description, quantity, unit_price, vat_rate, amount, n)`,
      [c, id, inv.sales, [newId(), newId()], ['A', 'B'], ['3', '1.5'], ['19.96', '10.10'], ['25', '0'], ['59.88', '15.15']],
    );
    // The lock: held from here to COMMIT.
    const seq = await nextNumbers(client, c);
    await client.query(
      `INSERT INTO ledger_transactions (id, company_id, document_number, system_id, date, description, source, source_id) VALUES ($1, $2, $3, $4, $5, $6, 'invoice', $7)`,
      [txId, c, seq.d, seq.s, inv.issue, text, id],
    );
    await client.query(
      `INSERT INTO transaction_lines (id, company_id, transaction_id, line_number, account_id, debit, credit, description, vat_code, date, system_id)
       SELECT t.id, $1, $2, t.n, t.account, t.debit, t.credit, $3, t.vat, $9, $10
       FROM unnest($4::uuid[], $5::uuid[], $6::numeric[], $7::numeric[], $8::text[]) WITH ORDINALITY AS t(id, account, debit, credit, vat, n)`,
      [
        c,
        txId,
        text,
        posting.map(() => newId()),
        posting.map((l) => l.account),
        posting.map((l) => l.debit),
        posting.map((l) => l.credit),
        posting.map((l) => l.vat),
        inv.issue,
        seq.s,
      ],
    );
    await client.query(balancesSql(monthly), balanceParams(c, inv.issue, posting));
    // The VAT return's bases (the revenue lines, per code), kept by the posting in schemas with monthly balances.
    if (monthly) {
      await client.query(
        `INSERT INTO vat_monthly_bases AS v (company_id, month, vat_code, debit, credit)
         SELECT $1::uuid, date_trunc('month', $2::date)::date, b.code, 0, b.credit FROM unnest($3::text[], $4::numeric[]) AS b(code, credit)
         ON CONFLICT (company_id, month, vat_code) DO UPDATE SET debit = v.debit + EXCLUDED.debit, credit = v.credit + EXCLUDED.credit`,
        [c, inv.issue, ['S25', 'S0'], ['59.88', '15.15']],
      );
    }
    const number = String(seq.d);
    const invoiceData = (status: string) =>
      JSON.stringify({
        id,
        invoice_number: status === 'draft' ? '' : number,
        status,
        customer_id: inv.customerId,
        issue_date: inv.issue,
        due_date: inv.due,
        total: 90,
        paid_amount: 0,
        currency: 'DKK',
      });
    await client.query(
      `INSERT INTO outbox_events (id, company_id, type, livemode, api_version, data)
       SELECT e.id, $1, e.type, true, $2, e.data FROM unnest($3::uuid[], $4::text[], $5::jsonb[]) AS e(id, type, data)`,
      [
        c,
        API_VERSION,
        [newId(), newId(), newId()],
        ['invoice.created', 'transaction.created', 'invoice.approved'],
        [
          invoiceData('draft'),
          JSON.stringify({ id: txId, document_number: seq.d, system_id: seq.s, date: inv.issue, description: text, source: 'invoice', source_id: id }),
          invoiceData('approved'),
        ],
      ],
    );
    await client.query(
      `UPDATE invoices SET status = 'approved', invoice_number = $2, document_number = $3, posted_transaction_id = $4, posted_system_id = $5, approved_at = now(), updated_at = now()
       WHERE id = $1`,
      [id, number, seq.d, txId, seq.s],
    );
    return { id, document_number: seq.d };
  });
}
