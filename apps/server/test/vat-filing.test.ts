// Filing the VAT return with Skattestyrelsen (docs/vat-return.md, Filing), through HTTP against the stand-in
// RSU B2B gateway (npm run skat:stand-in's server, in this process on a free port): a quarter settled and
// submitted (the request validated against Skattestyrelsen's XSD and its WS-Security signature verified by
// the stand-in, else it would have answered a SOAP fault), the approval link kept, the receipt and the
// payment details stored after the company approves, a correction sent as a follow-up declaration, every
// error code of the upstream README's test cases, a period the calendar does not know, expired and revoked
// certificates, a lost answer retried by the job without a second draft, and two submits on two servers.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inTransaction } from '@tlr/db';
import { autoMatch } from '@tlr/domain';
import { SKAT_ERRORS, startStandIn, type StandIn } from '../../../packages/domain/src/vat/skat/stand-in.ts';
import { TEST_PKCS12_PASSPHRASE, testProvider } from '../../../packages/domain/src/vat/skat/test-certificates.ts';
import { SKAT_RETURN_ELEMENTS } from '../../../packages/domain/src/vat/skat/messages.ts';
import { client, startServerProcess, startTestService, testDb, useCompany, waitFor } from './helpers.ts';

const CVR = '12345674';
/** An SE number Skattestyrelsen's calendar (the stand-in's) has filing monthly. */
const MONTHLY_SE = '29190925';
const env: Record<string, string> = {};
let standIn: StandIn;
const pki = testProvider();
const dir = mkdtempSync(join(tmpdir(), 'tlr-skat-'));
const file = (name: string, content: string | Buffer) => {
  writeFileSync(join(dir, name), content);
  return join(dir, name);
};

beforeAll(async () => {
  standIn = await startStandIn({
    signer: pki.gateway,
    extraCa: [pki.ca],
    extraRevoked: [pki.revoked.certificate.serialNumber],
    // The company filed quarterly since 2025: 2024 is not in its calendar.
    companies: { [CVR]: { frequency: 'quarterly', registeredFrom: '2025-01-01' }, [MONTHLY_SE]: { frequency: 'monthly', registeredFrom: '2025-01-01' } },
  });
  Object.assign(env, {
    SKAT_GATEWAY_URL: standIn.url,
    SKAT_CERT_FILE: file('provider.p12', pki.valid.p12),
    SKAT_CERT_PASSPHRASE: TEST_PKCS12_PASSPHRASE,
    SKAT_GATEWAY_CERT_FILE: file('gateway.pem', pki.gateway.pem),
    SKAT_GATEWAY_CA_FILE: file('ca.pem', pki.caPem),
    RUN_WORKER: 'true',
    WEBHOOK_RETRY_UNIT_MS: '200',
  });
});
afterAll(() => standIn?.close());

const t = useCompany({ name: 'Momsindberetning ApS', cvr: CVR, env });

interface Filing {
  period: string;
  version: number;
  kind: string;
  state: string;
  transaction_id: string;
  skat_transaction_id: string | null;
  approval_url: string | null;
  messages: { kind: string; code: string; text: string }[];
  amount_due: number | null;
  payment_deadline: string | null;
  ocr_line: string | null;
  receipt_voucher_id: string | null;
  paid_transaction_id: string | null;
}
interface Return {
  period: string;
  version: number | null;
  fields: Record<string, number>;
  transaction_id: string | null;
  filing: Filing | null;
}
interface Problem {
  code: string;
  status: number;
  detail: string;
  field?: string;
  skat?: { service: string; code: string; text: string };
}

const submit = (period: string, c = t.raw) => c.post<{ data: Return } | Problem>(`/vat-returns/${period}/submit`, {});
const settle = async (period: string, correction = false) => {
  const r = await t.raw.post<{ data: Return }>(`/vat-returns/${period}/settle`, correction ? { correction: true } : {});
  expect(r.status, r.text).toBe(201);
  return r.body.data;
};
const vatReturn = async (period: string) => (await t.raw.get<{ data: Return }>(`/vat-returns?period=${period}`)).body.data;
const draftsOf = (start: string) => standIn.drafts.filter((d) => d.start === start);

/** Bank lines as a statement import stores them (bank-matching.test.ts does the same); matching then runs as the import runs it. */
async function insertBankLines(bankAccountId: string, lines: { date: string; amount: string; text: string; reference: string }[]): Promise<string[]> {
  const db = testDb().pool;
  const statement = randomUUID();
  await db.query(`INSERT INTO bank_statements (id, company_id, bank_account_id, format, file_sha256) VALUES ($1, $2, $3, 'csv', $4)`, [
    statement,
    t.company.companyId,
    bankAccountId,
    randomUUID(),
  ]);
  const ids: string[] = [];
  for (const l of lines) {
    const id = randomUUID();
    ids.push(id);
    await db.query(
      `INSERT INTO bank_lines (id, company_id, bank_account_id, statement_id, identity, booking_date, amount, currency, text, reference, counterparty_name)
       VALUES ($1, $2, $3, $4, $5, $6, $7, 'DKK', $8, $9, 'Skattestyrelsen')`,
      [id, t.company.companyId, bankAccountId, statement, `test:${id}`, l.date, l.amount, l.text, l.reference],
    );
  }
  return ids;
}

describe('filing the VAT return through the RSU B2B gateway', () => {
  it('answers 503 naming the missing setting on a server without the SKAT_* settings', async () => {
    const bare = await startTestService();
    try {
      const r = await client(bare.url, t.key).post<Problem>('/vat-returns/2026-Q3/submit', {});
      expect(r.status).toBe(503);
      expect(r.body).toMatchObject({ code: 'skat_not_configured', field: 'SKAT_CERT_FILE' });
    } finally {
      await bare.stop();
    }
  });

  it('refuses a period that is not settled', async () => {
    const r = await submit('2026-Q3');
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ code: 'vat_return_not_settled', field: 'period' });
    expect(standIn.drafts).toHaveLength(0);
  });

  let settled: Return;
  it('sends the settled quarter as a draft: the 17 fields in whole kroner, the approval link kept, vat_return.submitted', async () => {
    const customer = (await t.raw.post<{ data: { id: string } }>('/customers', { name: 'Dansk Kunde ApS' })).body.data.id;
    const inv = await t.raw.post('/invoices', {
      customer_id: customer,
      issue_date: '2026-07-10',
      due_date: '2026-07-10',
      auto_approve: true,
      lines: [{ description: 'Vare', quantity: 10, unit_price: 1000.4 }],
    });
    expect(inv.status, inv.text).toBe(201);
    const exp = await t.raw.post('/expenses', { date: '2026-08-05', amount: 2500, description: 'Indkøb', vat_code: 'K25', book: true });
    expect(exp.status, exp.text).toBe(201);
    settled = await settle('2026-Q3');
    // 10 × 1000.40 = 10004.00, salgsmoms 2501.00; købsmoms 2500 × 20 % = 500.00; afgiftstilsvar 2001.
    expect(settled.fields).toMatchObject({ output_vat: 2501, input_vat: 500, net_vat: 2001 });

    const r = await submit('2026-Q3');
    expect(r.status, r.text).toBe(201);
    const filing = (r.body as { data: Return }).data.filing!;
    // The calendar's deadline of the quarter: 1 December (the stand-in's calendar is Skattestyrelsen's rule).
    expect(filing).toMatchObject({ period: '2026-Q3', version: 1, kind: 'ordinary', state: 'submitted', se_number: CVR, calendar_deadline: '2026-12-01' });
    const [draft] = draftsOf('2026-07-01');
    expect(draftsOf('2026-07-01')).toHaveLength(1);
    expect(filing.skat_transaction_id).toBe(draft!.id);
    expect(filing.approval_url).toBe(`${standIn.url}/angivelse/${draft!.id}`);
    expect(filing.transaction_id).toBe(draft!.requestTransactionId);
    expect(filing.messages).toEqual([{ kind: 'advis', code: '5001', text: 'Dette er en foreløbig ordinær angivelse' }]);
    // What the gateway received: every field of the return, in whole kroner.
    expect(draft).toMatchObject({ seNumber: CVR, start: '2026-07-01', end: '2026-09-30', followUp: false });
    expect(draft!.fields).toEqual(Object.fromEntries(SKAT_RETURN_ELEMENTS.map((e) => [e.element, settled.fields[e.field]])));
    expect((await vatReturn('2026-Q3')).filing).toMatchObject({ state: 'submitted', approval_url: filing.approval_url });
    const events = await testDb().prisma.outboxEvent.findMany({ where: { company_id: t.company.companyId, type: 'vat_return.submitted' } });
    expect(events.map((e) => e.data)).toEqual([
      { period: '2026-Q3', version: 1, kind: 'ordinary', transaction_id: filing.transaction_id, approval_url: filing.approval_url },
    ]);
  });

  it('sends a version once: a second submit answers the same filing', async () => {
    const r = await submit('2026-Q3');
    expect(r.status).toBe(201);
    expect((r.body as { data: Return }).data.filing?.skat_transaction_id).toBe(draftsOf('2026-07-01')[0]!.id);
    expect(draftsOf('2026-07-01')).toHaveLength(1);
  });

  it('stores the receipt once the company approves: the PDF on the settlement posting, the amount, the deadline and the OCR line', async () => {
    const before = await t.raw.get<{ data: Filing }>('/vat-returns/2026-Q3/filing');
    expect(before.status).toBe(200);
    expect(before.body.data.state).toBe('submitted'); // 4810: not approved yet

    const approve = await fetch(`${standIn.url}/approve/${draftsOf('2026-07-01')[0]!.id}`, { method: 'POST' });
    expect(approve.status).toBe(200);
    const after = (await t.raw.get<{ data: Filing }>('/vat-returns/2026-Q3/filing')).body.data;
    expect(after).toMatchObject({ state: 'approved', amount_due: 2001, payment_deadline: '2026-12-01' });
    expect(after.ocr_line).toMatch(/^\+71<\d{16} \+85432199<$/);
    const voucher = await t.raw.get<{ data: { mime_type: string; transaction_id: string; filename: string } }>(`/vouchers/${after.receipt_voucher_id}`);
    expect(voucher.body.data).toMatchObject({
      mime_type: 'application/pdf',
      transaction_id: settled.transaction_id,
      filename: 'kvittering-moms-2026-Q3-v1.pdf',
    });
    const events = await testDb().prisma.outboxEvent.findMany({ where: { company_id: t.company.companyId, type: 'vat_return.approved' } });
    expect(events).toHaveLength(1);
  });

  it('matches the bank line paying the tax account by its OCR number: posted against Skyldig moms, the reconciliation at 0', async () => {
    const filing = (await vatReturn('2026-Q3')).filing!;
    const ocr = /<(\d{16})/.exec(filing.ocr_line!)![1]!;
    const bank = await t.raw.post<{ data: { id: string } }>('/bank-accounts', { name: 'Driftskonto' });
    expect(bank.status, bank.text).toBe(201);
    expect((await t.raw.post('/accounts', { account_number: '6475', name: 'Opsparing', type: 'asset' })).status).toBe(201);
    const savings = await t.raw.post<{ data: { id: string } }>('/bank-accounts', { name: 'Opsparing', account_number: '6475' });
    expect(savings.status, savings.text).toBe(201);
    // A line of a different amount with the OCR number is not certain (another account's); the line paying 2001.00 with it is.
    const [short] = await insertBankLines(savings.body.data.id, [{ date: '2026-11-20', amount: '-2000.00', text: 'Moms', reference: ocr }]);
    const [paid] = await insertBankLines(bank.body.data.id, [{ date: '2026-11-21', amount: '-2001.00', text: 'Betaling', reference: `+71<${ocr} +85432199<` }]);
    await autoMatch(inTransaction(testDb()), testDb().prisma as never);
    const line = async (id: string) =>
      (await t.raw.get<{ data: { status: string; match: { type: string; transaction_id: string } | null } }>(`/bank-lines/${id}`)).body.data;
    expect((await line(short!)).status).toBe('unmatched');
    const matched = await line(paid!);
    const after = (await vatReturn('2026-Q3')).filing!;
    expect(matched).toMatchObject({ status: 'matched', match: { type: 'posting', transaction_id: after.paid_transaction_id } });
    const posting = (
      await t.raw.get<{ data: { lines: { account_number: string; debit: number; credit: number }[] } }>(`/transactions/${after.paid_transaction_id}`)
    ).body.data;
    expect(posting.lines.map((l) => [l.account_number, l.debit, l.credit])).toEqual([
      ['7840', 2001, 0],
      [expect.any(String), 0, 2001],
    ]);
    // The bank and the ledger agree: the line matched, nothing open on either side.
    const rec = (
      await t.raw.get<{ data: { difference: number; unmatched_bank_lines: { count: number }; unmatched_ledger_entries: { count: number } } }>(
        `/bank-accounts/${bank.body.data.id}/reconciliation`,
      )
    ).body.data;
    expect(rec).toMatchObject({ difference: 0, unmatched_bank_lines: { count: 0 }, unmatched_ledger_entries: { count: 0 } });
  });

  it('sends a correction as a follow-up declaration (efterangivelse, advis 5002)', async () => {
    await testDb().prisma.company.update({ where: { id: t.company.companyId }, data: { lock_date: new Date('2026-06-30') } });
    const exp = await t.raw.post('/expenses', { date: '2026-09-10', amount: 1000, description: 'Rettelse', vat_code: 'K25', book: true });
    expect(exp.status, exp.text).toBe(201);
    const v2 = await settle('2026-Q3', true);
    expect(v2).toMatchObject({ version: 2, fields: { input_vat: 700, net_vat: 1801 } });
    const r = await submit('2026-Q3');
    expect(r.status, r.text).toBe(201);
    expect((r.body as { data: Return }).data.filing).toMatchObject({
      version: 2,
      kind: 'follow_up',
      state: 'submitted',
      messages: [{ kind: 'advis', code: '5002', text: 'Dette er en foreløbig efterangivelse' }],
    });
    expect(draftsOf('2026-07-01').map((d) => [d.followUp, d.fields.MomsAngivelseAfgiftTilsvarBeloeb])).toEqual([
      [false, 2001],
      [true, 1801],
    ]);
  });

  it('answers each error code of the upstream test cases as a problem naming it, and stores and sends nothing more', async () => {
    await settle('2026-Q2');
    for (const [code, text] of Object.entries(SKAT_ERRORS)) {
      const forced = await fetch(`${standIn.url}/fail-next`, { method: 'POST', body: JSON.stringify({ code, service: 'ModtagMomsangivelseForeloebig' }) });
      expect(forced.status).toBe(200);
      const r = await submit('2026-Q2');
      expect(r.status, code).toBe(422);
      expect(r.body).toMatchObject({ code: 'skat_error', skat: { service: 'ModtagMomsangivelseForeloebig', code, text } });
      expect((r.body as Problem).detail).toContain(`${code} ${text}`);
    }
    // The calendar's own refusal (4801: the provider is not delegated) stops the submit before the draft.
    await fetch(`${standIn.url}/fail-next`, { method: 'POST', body: JSON.stringify({ code: '4801', service: 'VirksomhedKalenderHent' }) });
    const r = await submit('2026-Q2');
    expect(r.body).toMatchObject({ code: 'skat_error', skat: { service: 'VirksomhedKalenderHent', code: '4801' } });
    expect(draftsOf('2026-04-01')).toHaveLength(0);
    expect((await vatReturn('2026-Q2')).filing).toBeNull();
    // Then it goes through.
    expect((await submit('2026-Q2')).status).toBe(201);
    expect(draftsOf('2026-04-01')).toHaveLength(1);
  });

  it('refuses a period the calendar does not know', async () => {
    await settle('2024-Q4');
    const r = await submit('2024-Q4');
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ code: 'vat_period_unknown_to_skat', field: 'period' });
    expect(draftsOf('2024-10-01')).toHaveLength(0);
  });

  it('refuses an expired certificate (before sending) and a revoked one (the gateway refuses it)', async () => {
    await settle('2025-Q1');
    for (const [which, status, code, words] of [
      ['expired', 503, 'skat_not_configured', /valid .* not today/],
      ['revoked', 502, 'skat_gateway_refused', /is revoked/],
    ] as const) {
      const svc = await startTestService({ ...env, RUN_WORKER: 'false', SKAT_CERT_FILE: file(`${which}.p12`, pki[which].p12) });
      try {
        const r = await client(svc.url, t.key).post<Problem>('/vat-returns/2025-Q1/submit', {});
        expect(r.status, r.text).toBe(status);
        expect(r.body.code).toBe(code);
        expect(r.body.detail).toMatch(words);
      } finally {
        await svc.stop();
      }
    }
    expect(draftsOf('2025-01-01')).toHaveLength(0);
    expect((await vatReturn('2025-Q1')).filing).toBeNull();
  });

  it('queues a filing whose answer was lost; the job sends the same request again, which is not a second draft', async () => {
    await settle('2025-Q2');
    // The draft arrives and is made, but its answer is lost: a transport failure to tlr.
    const lose = await fetch(`${standIn.url}/drop-next`, { method: 'POST', body: JSON.stringify({ service: 'ModtagMomsangivelseForeloebig', after: true }) });
    expect(lose.status).toBe(200);
    const r = await submit('2025-Q2');
    expect(r.status, r.text).toBe(201);
    const queued = (r.body as { data: Return }).data.filing!;
    expect(queued).toMatchObject({ state: 'queued', attempts: 1 });
    const done = await waitFor(async () => {
      const f = (await vatReturn('2025-Q2')).filing!;
      return f.state === 'submitted' && f;
    });
    expect(draftsOf('2025-04-01')).toHaveLength(1);
    expect(draftsOf('2025-04-01')[0]!.requestTransactionId).toBe(queued.transaction_id);
    expect(done.skat_transaction_id).toBe(draftsOf('2025-04-01')[0]!.id);
  });

  it("files under the SE number, with a warning when the calendar's frequency is not the company's", async () => {
    expect((await t.raw.put('/settings/company', { se_number: MONTHLY_SE })).status).toBe(200);
    await settle('2025-Q4');
    const r = await submit('2025-Q4');
    expect(r.status, r.text).toBe(201);
    expect((r.body as { data: Return }).data.filing).toMatchObject({
      se_number: MONTHLY_SE,
      state: 'submitted',
      messages: [
        { kind: 'advis', code: 'frequency_mismatch', text: expect.stringContaining('frequency code 07; tlr files quarterly returns (code 08)') },
        { kind: 'advis', code: '5001', text: 'Dette er en foreløbig ordinær angivelse' },
      ],
    });
    expect(draftsOf('2025-10-01').map((d) => d.seNumber)).toEqual([MONTHLY_SE]);
    expect((await t.raw.put('/settings/company', { se_number: '' })).status).toBe(200);
  });

  it("marks a queued filing refused when the job's attempt gets an error code", async () => {
    await settle('2026-Q1');
    await fetch(`${standIn.url}/drop-next`, { method: 'POST', body: JSON.stringify({ service: 'ModtagMomsangivelseForeloebig' }) });
    await fetch(`${standIn.url}/fail-next`, { method: 'POST', body: JSON.stringify({ code: '4802', service: 'ModtagMomsangivelseForeloebig' }) });
    const r = await submit('2026-Q1');
    expect((r.body as { data: Return }).data.filing).toMatchObject({ state: 'queued' });
    const refused = await waitFor(async () => {
      const f = (await vatReturn('2026-Q1')).filing!;
      return f.state === 'refused' && f;
    });
    expect(refused.messages).toContainEqual({ kind: 'fejl', code: '4802', text: 'Ikke åben periode' });
    expect(draftsOf('2026-01-01')).toHaveLength(0);
  });

  it('sends once when two servers are asked at once', async () => {
    await settle('2025-Q3');
    let other: { url: string; proc: ChildProcess } | undefined;
    try {
      other = await startServerProcess({ ...env, RUN_WORKER: 'false' });
      const [a, b] = await Promise.all([submit('2025-Q3'), submit('2025-Q3', client(other.url, t.key))]);
      expect([a.status, b.status]).toEqual([201, 201]);
      const ids = [a, b].map((x) => (x.body as { data: Return }).data.filing!.skat_transaction_id);
      expect(ids[0]).toBe(ids[1]);
      expect(draftsOf('2025-07-01')).toHaveLength(1);
    } finally {
      other?.proc.kill('SIGTERM');
    }
  });
});
