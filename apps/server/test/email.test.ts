// Documents by e-mail through HTTP against a real SMTP server (smtp-server) run by the test: an invoice, a
// credit note, a reminder, a quote and a statement e-mailed, each message read back (headers, the PDF
// attachment and its text, the DKIM signature verified with the public key); the company's templates;
// an SMTP server that refuses (5xx) or is down, retried and then failed; two workers at once; a worker
// killed mid-send. The deliveries are run as the deliver-email job runs them (emailDeliverer), called
// directly: a retry's or a lease's time is made to have passed by moving the delivery's due time, no
// waiting (decision 604).
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simpleParser, type ParsedMail } from 'mailparser';
import { dkimVerify } from 'mailauth/lib/dkim/verify';
import pino from 'pino';
import { SMTPServer } from 'smtp-server';
import { extractText, getDocumentProxy } from 'unpdf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@tlr/config';
import { addDays, claimEmail, makeRecurringInvoices, outgoing, today, type EmailSettings } from '@tlr/domain';
import { emailDeliverer, emailSettings } from '../src/email.ts';
import { api, bodyOf, created, idem, ok, startTestService, testDb, useCompany, waitFor, type Api, type Schemas } from './helpers.ts';

const t = useCompany({ name: 'Mail Tømrer ApS', env: { SMTP_FROM: 'faktura@tlr.test' } });
const db = testDb();
const FROM = 'faktura@tlr.test';
const DOMAIN = 'tlr.test';
const SELECTOR = 'tlr2026';

// The receiving end: every message it accepted, raw; `answer` decides what it says to the next one.
const received: { raw: Buffer; mail: ParsedMail; rcpt: string[] }[] = [];
let answer: 'accept' | 'refuse' = 'accept';
const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  logger: false,
  onData(stream, session, done) {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => {
      if (answer === 'refuse') return done(Object.assign(new Error('5.7.1 Message rejected by policy'), { responseCode: 554 }));
      const raw = Buffer.concat(chunks);
      void simpleParser(raw).then((mail) => {
        received.push({ raw, mail, rcpt: session.envelope.rcptTo.map((r) => r.address) });
        done();
      }, done);
    });
  },
});
let smtpPort = 0;
/** A port nothing listens on: an SMTP server that is down. */
let deadPort = 0;

const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
const publicKey = keys.publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
const resolver = async (name: string, type: string) => {
  if (type === 'TXT' && name === `${SELECTOR}._domainkey.${DOMAIN}`) return [[`v=DKIM1; k=rsa; p=${publicKey}`]];
  throw Object.assign(new Error(`no ${type} record for ${name}`), { code: 'ENOTFOUND' });
};

let settings: EmailSettings;
let keyFile = '';
let down: EmailSettings;
const logger = pino({ level: 'silent' });

beforeAll(async () => {
  await new Promise<void>((r) => smtp.listen(0, '127.0.0.1', r));
  smtpPort = (smtp.server.address() as AddressInfo).port;
  deadPort = await new Promise<number>((r) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const port = (probe.address() as AddressInfo).port;
      probe.close(() => r(port));
    });
  });
  const dir = mkdtempSync(join(tmpdir(), 'tlr-dkim-'));
  keyFile = join(dir, 'dkim.pem');
  writeFileSync(keyFile, keys.privateKey.export({ type: 'pkcs8', format: 'pem' }));
  const config = (url: string) =>
    loadConfig({
      SMTP_URL: url,
      SMTP_FROM: FROM,
      DKIM_DOMAIN: DOMAIN,
      DKIM_SELECTOR: SELECTOR,
      DKIM_PRIVATE_KEY_FILE: keyFile,
      EMAIL_SEND_TIMEOUT_MS: '5000',
    });
  settings = emailSettings(config(`smtp://127.0.0.1:${smtpPort}`), logger);
  down = emailSettings(config(`smtp://127.0.0.1:${deadPort}`), logger);
  await ok(
    t.api.PUT('/settings/company', {
      body: { email: 'kontor@mailtoemrer.dk', cvr: '12345674', address_line1: 'Vestergade 1', postal_code: '8000', city: 'Aarhus C' },
    }),
  );
});
afterAll(async () => {
  await new Promise<void>((r) => smtp.close(() => r()));
});

/** The deliver-email job, as a worker runs it, with `using` as its SMTP settings. */
const deliver = (id: string, using: EmailSettings = settings) => emailDeliverer(t.svc.db, using, async () => {})(id);
/** The delivery's due time moved to now: its retry's (or a dead worker's lease's) time has come. */
const timePasses = (id: string) => db.pool.query(`UPDATE email_deliveries SET next_attempt_at = now() WHERE id = $1 AND status = 'queued'`, [id]);
const row = async (id: string) =>
  (
    await db.pool.query<{ status: string; attempts: number; last_error: string; last_response: string; message_id: string }>(
      `SELECT status, attempts, last_error, last_response, message_id FROM email_deliveries WHERE id = $1`,
      [id],
    )
  ).rows[0]!;
const messagesWith = (messageId: string) => received.filter((r) => r.mail.messageId === messageId);

async function customer(c: Api, email = 'bogholderi@kunde.dk') {
  const body = { name: 'Kunde A/S', email, cvr: '12345674', address_line1: 'Nørregade 2', postal_code: '1000', city: 'København K' };
  return (await created(c.POST('/customers', { params: idem(), body }))).data.id;
}
async function invoice(customerId: string, issue = today(), due = addDays(today(), 14)) {
  const body = {
    customer_id: customerId,
    issue_date: issue,
    due_date: due,
    auto_approve: true,
    lines: [{ description: 'Tømrerarbejde', quantity: 2, unit_price: 625 }],
  };
  return (await created(t.api.POST('/invoices', { params: idem(), body }))).data;
}
const getInvoice = async (id: string) => (await ok(t.api.GET('/invoices/{id}', { params: { path: { id } } }))).data;
const sendByEmail = (id: string, body: { document?: 'invoice' | 'credit_note'; to?: string[] } = {}, key?: string) =>
  t.api.POST('/invoices/{id}/send', { params: { path: { id }, ...idem(key) }, body: { channel: 'email', ...body } });
/** The delivery a channel email send answers (the answer's type is either channel's). */
const delivery = (b: { data: unknown }) => b.data as Schemas['EmailDelivery'];

async function pdfText(bytes: Buffer) {
  const { text } = await extractText(await getDocumentProxy(new Uint8Array(bytes)), { mergePages: true });
  return text.replace(/\s+/g, ' ');
}

/** The one message of `messageId`, checked as every e-mail must be: From, Reply-To, DKIM, one PDF. */
async function theMessage(messageId: string) {
  const got = messagesWith(messageId);
  expect(got).toHaveLength(1);
  const { raw, mail, rcpt } = got[0]!;
  expect(mail.from?.value).toEqual([{ name: 'Mail Tømrer ApS', address: FROM }]);
  expect(mail.replyTo?.value).toEqual([{ name: '', address: 'kontor@mailtoemrer.dk' }]);
  const dkim = await dkimVerify(raw, { resolver });
  expect(dkim.results.map((r) => [r.signingDomain, r.selector, r.status.result])).toEqual([[DOMAIN, SELECTOR, 'pass']]);
  expect(mail.attachments).toHaveLength(1);
  const pdf = mail.attachments[0]!;
  expect(pdf.contentType).toBe('application/pdf');
  expect(pdf.content.subarray(0, 5).toString('latin1')).toBe('%PDF-');
  return { mail, rcpt, filename: pdf.filename, text: await pdfText(pdf.content) };
}

describe('an invoice by e-mail', () => {
  it("goes to the customer's e-mail with the PDF, DKIM-signed, and the invoice becomes sent once the SMTP server accepts it", async () => {
    const inv = await invoice(await customer(t.api));
    const r = await sendByEmail(inv.id);
    const d = delivery(bodyOf(202, r));
    expect(d).toMatchObject({
      status: 'queued',
      channel: 'email',
      document_kind: 'invoice',
      to: ['bogholderi@kunde.dk'],
      attachment: `faktura-${inv.invoice_number}.pdf`,
    });
    expect(d.message_id).toMatch(new RegExp(`^<${d.id}@${DOMAIN}>$`));
    // Queued, not yet accepted: the invoice is still approved, its delivery shown on it.
    expect(await getInvoice(inv.id)).toMatchObject({ status: 'approved', deliveries: [{ id: d.id, status: 'queued' }] });

    expect(await deliver(d.id)).toEqual({ next: null });
    const m = await theMessage(d.message_id);
    expect(m.rcpt).toEqual(['bogholderi@kunde.dk']);
    expect(m.mail.subject).toBe(`Faktura ${inv.invoice_number} fra Mail Tømrer ApS`);
    expect(m.mail.text).toContain('Kære Kunde A/S');
    expect(m.mail.text).toContain(`faktura ${inv.invoice_number} på 1.562,50 kr.`);
    expect(m.filename).toBe(`faktura-${inv.invoice_number}.pdf`);
    expect(m.text).toContain('FAKTURA');
    expect(m.text).toContain('1.562,50');

    const shown = await getInvoice(inv.id);
    expect(shown.status).toBe('sent');
    expect(shown.deliveries).toEqual([expect.objectContaining({ id: d.id, status: 'sent', attempts: 1, last_error: '', sent_at: expect.any(String) })]);
    expect(shown.deliveries[0]!.last_response).toMatch(/^250 /);
    // Settled: another run of its job sends nothing.
    expect(await deliver(d.id)).toBeNull();
    expect(messagesWith(d.message_id)).toHaveLength(1);
  });

  it('goes to the addresses given; a repeated request (same Idempotency-Key) is the same e-mail', async () => {
    const inv = await invoice(await customer(t.api, ''));
    const key = `mail-${inv.id}`;
    const first = delivery(bodyOf(202, await sendByEmail(inv.id, { to: ['a@kunde.dk', 'B@Kunde.dk'] }, key)));
    const again = await sendByEmail(inv.id, { to: ['a@kunde.dk', 'B@Kunde.dk'] }, key);
    expect(again.response.headers.get('x-idempotency-replayed')).toBe('true');
    expect(delivery(again.data!).id).toBe(first.id);
    await deliver(first.id);
    expect((await theMessage(first.message_id)).rcpt).toEqual(['a@kunde.dk', 'b@kunde.dk']);
    expect((await getInvoice(inv.id)).deliveries).toHaveLength(1);
  });

  it('refuses what cannot be e-mailed, naming the field', async () => {
    const noMail = await invoice(await customer(t.api, ''));
    const r1 = await t.raw.post(`/invoices/${noMail.id}/send`, { channel: 'email' });
    expect([r1.status, r1.body]).toMatchObject([422, { code: 'email_recipient_required', field: 'to' }]);
    const r2 = await t.raw.post(`/invoices/${noMail.id}/send`, { channel: 'peppol', to: ['a@kunde.dk'] });
    expect([r2.status, r2.body]).toMatchObject([400, { code: 'invalid_request', field: 'to' }]);
    const r3 = await t.raw.post(`/invoices/${noMail.id}/send`, { channel: 'email', to: ['ikke en adresse'] });
    expect([r3.status, r3.body]).toMatchObject([400, { code: 'invalid_request', field: 'to[0]' }]);
    const r4 = await t.raw.post(`/invoices/${noMail.id}/send`, { channel: 'email', document: 'credit_note', to: ['a@kunde.dk'] });
    expect([r4.status, r4.body]).toMatchObject([409, { code: 'invoice_not_sendable' }]);
    expect((await getInvoice(noMail.id)).deliveries).toEqual([]);
  });
});

describe('other documents by e-mail', () => {
  it('a credit note: the kreditnota PDF, and the invoice stays cancelled', async () => {
    const inv = await invoice(await customer(t.api));
    await ok(t.api.PUT('/invoices/{id}/status', { params: { path: { id: inv.id } }, body: { status: 'cancelled' } }));
    const d = delivery(bodyOf(202, await sendByEmail(inv.id, { document: 'credit_note' })));
    await deliver(d.id);
    const m = await theMessage(d.message_id);
    expect(m.mail.subject).toMatch(/^Kreditnota \d+ fra Mail Tømrer ApS$/);
    expect(m.filename).toMatch(/^kreditnota-\d+\.pdf$/);
    expect(m.text).toContain('KREDITNOTA');
    expect(await getInvoice(inv.id)).toMatchObject({ status: 'cancelled', deliveries: [{ id: d.id, document_kind: 'credit_note', status: 'sent' }] });
  });

  it('a reminder: issued and e-mailed in one request, the rykker PDF attached', async () => {
    const inv = await invoice(await customer(t.api), addDays(today(), -40), addDays(today(), -30));
    const r = await t.api.POST('/invoices/{id}/reminders', { params: { path: { id: inv.id }, ...idem() }, body: { channel: 'email' } });
    const reminder = bodyOf(201, r).data;
    expect(reminder).toMatchObject({ number: 1, delivery: { status: 'queued', document_kind: 'reminder', reminder_number: 1 } });
    await deliver(reminder.delivery!.id);
    const m = await theMessage(reminder.delivery!.message_id);
    expect(m.mail.subject).toBe(`Rykker 1 for faktura ${inv.invoice_number} fra Mail Tømrer ApS`);
    expect(m.filename).toBe(`rykker-1-faktura-${inv.invoice_number}.pdf`);
    expect(m.text).toContain('RYKKER 1');
    // A reminder's e-mail does not change the invoice's status.
    expect(await getInvoice(inv.id)).toMatchObject({ status: 'approved', deliveries: [{ document_kind: 'reminder', status: 'sent' }] });
    const plain = await t.raw.post(`/invoices/${inv.id}/reminders`, { to: ['a@kunde.dk'] });
    expect([plain.status, plain.body]).toMatchObject([400, { field: 'to' }]);
  });

  it('a quote: sent (numbered) and e-mailed with the tilbud PDF, shown on the quote', async () => {
    const customerId = await customer(t.api);
    const body = {
      customer_id: customerId,
      issue_date: today(),
      valid_until: addDays(today(), 30),
      lines: [{ description: 'Nyt tag', quantity: 1, unit_price: 40000 }],
    };
    const quote = (await created(t.api.POST('/quotes', { params: idem(), body }))).data;
    const sent = (
      await ok(t.api.POST('/quotes/{id}/send', { params: { path: { id: quote.id }, ...idem() }, body: { channel: 'email', to: ['tilbud@kunde.dk'] } }))
    ).data;
    expect(sent).toMatchObject({ status: 'sent', deliveries: [{ status: 'queued', document_kind: 'quote', to: ['tilbud@kunde.dk'] }] });
    const d = sent.deliveries[0]!;
    await deliver(d.id);
    const m = await theMessage(d.message_id);
    expect(m.mail.subject).toBe(`Tilbud ${sent.quote_number} fra Mail Tømrer ApS`);
    expect(m.mail.text).toContain('50.000,00 kr.');
    expect(m.filename).toBe(`tilbud-${sent.quote_number}.pdf`);
    expect(m.text).toContain('TILBUD');
    const shown = (await ok(t.api.GET('/quotes/{id}', { params: { path: { id: quote.id } } }))).data;
    expect(shown.deliveries).toEqual([expect.objectContaining({ id: d.id, status: 'sent' })]);
  });

  it("a customer statement: the kontoudtog PDF for the period, to the customer's e-mail", async () => {
    const customerId = await customer(t.api);
    await invoice(customerId);
    const r = await t.api.POST('/customers/{id}/statement/send', { params: { path: { id: customerId }, ...idem() }, body: { channel: 'email' } });
    const d = bodyOf(202, r).data;
    expect(d).toMatchObject({ document_kind: 'statement', customer_id: customerId, to: ['bogholderi@kunde.dk'] });
    await deliver(d.id);
    const m = await theMessage(d.message_id);
    expect(m.mail.subject).toBe('Kontoudtog fra Mail Tømrer ApS');
    expect(m.text).toContain('KONTOUDTOG');
    expect(m.text).toContain('1.562,50');
  });
});

describe('recurring invoices with action send', () => {
  it('e-mail each invoice made to a customer without a peppol_id, by its e-mail (decision 619)', async () => {
    const customer_id = await customer(t.api);
    const body = {
      customer_id,
      interval: 'month' as const,
      start_date: today(),
      action: 'send' as const,
      lines: [{ description: 'Service', quantity: 1, unit_price: 500 }],
    };
    const template = (await created(t.api.POST('/recurring-invoices', { params: idem(), body }))).data;
    // The hourly job, as it runs today.
    await makeRecurringInvoices((fn) => db.prisma.$transaction((tx) => fn(tx)), today());
    const made = (await ok(t.api.GET('/recurring-invoices/{id}', { params: { path: { id: template.id } } }))).data.invoices;
    expect(made).toHaveLength(1);
    const shown = await getInvoice(made[0]!.invoice_id!);
    expect(shown).toMatchObject({ status: 'approved', deliveries: [{ status: 'queued', document_kind: 'invoice', to: ['bogholderi@kunde.dk'] }] });
    await deliver(shown.deliveries[0]!.id);
    expect((await theMessage(shown.deliveries[0]!.message_id)).mail.subject).toBe(`Faktura ${shown.invoice_number} fra Mail Tømrer ApS`);
    expect((await getInvoice(shown.id)).status).toBe('sent');
  });
});

describe("the company's e-mail templates", () => {
  it('are listed per kind, changed with placeholders checked by kind, and used by the next e-mail', async () => {
    const list = (await ok(t.api.GET('/settings/email-templates'))).data;
    expect(list.map((x) => [x.kind, x.default])).toEqual([
      ['invoice', true],
      ['credit_note', true],
      ['reminder', true],
      ['quote', true],
      ['statement', true],
    ]);
    const bad = await t.raw.put('/settings/email-templates/invoice', { body: 'Betal inden {{valid_until}}' });
    expect([bad.status, bad.body]).toMatchObject([400, { code: 'invalid_request', field: 'body' }]);
    expect((bad.body as { detail: string }).detail).toContain('{{due_date}}');
    const twoLines = await t.raw.put('/settings/email-templates/invoice', { subject: 'a\nb' });
    expect([twoLines.status, twoLines.body]).toMatchObject([400, { field: 'subject' }]);
    const body = 'Hej {{ customer_name }}\n\nFaktura {{invoice_number}}: {{amount}}, senest {{due_date}}.\n\n{{company_name}}, {{company_email}}';
    const saved = (
      await ok(
        t.api.PUT('/settings/email-templates/{kind}', { params: { path: { kind: 'invoice' } }, body: { subject: 'Din faktura {{invoice_number}}', body } }),
      )
    ).data;
    expect(saved).toMatchObject({ kind: 'invoice', default: false, subject: 'Din faktura {{invoice_number}}' });

    const inv = await invoice(await customer(t.api));
    const d = delivery(bodyOf(202, await sendByEmail(inv.id)));
    await deliver(d.id);
    const m = await theMessage(d.message_id);
    expect(m.mail.subject).toBe(`Din faktura ${inv.invoice_number}`);
    expect(m.mail.text?.trim()).toBe(
      `Hej Kunde A/S\n\nFaktura ${inv.invoice_number}: 1.562,50 kr., senest ${addDays(today(), 14).split('-').reverse().join('.')}.\n\nMail Tømrer ApS, kontor@mailtoemrer.dk`,
    );

    const back = (await ok(t.api.PUT('/settings/email-templates/{kind}', { params: { path: { kind: 'invoice' } }, body: { default: true } }))).data;
    expect(back).toMatchObject({ default: true, subject: 'Faktura {{invoice_number}} fra {{company_name}}' });
  });
});

describe('delivery faults', () => {
  it('an SMTP server that refuses (5xx) is retried on the schedule, then the delivery is failed with its answer; nothing was sent', async () => {
    const inv = await invoice(await customer(t.api));
    const d = delivery(bodyOf(202, await sendByEmail(inv.id)));
    answer = 'refuse';
    try {
      for (let attempt = 1; attempt <= 8; attempt++) {
        const outcome = await deliver(d.id);
        expect(outcome).not.toBeNull();
        // Not due until its retry: a job run early does nothing.
        if (attempt < 8) expect(await deliver(d.id)).toBeNull();
        await timePasses(d.id);
      }
    } finally {
      answer = 'accept';
    }
    expect(await row(d.id)).toMatchObject({
      status: 'failed',
      attempts: 8,
      last_response: '554 5.7.1 Message rejected by policy',
      last_error: 'the SMTP server answered 554 5.7.1 Message rejected by policy',
    });
    expect(messagesWith(d.message_id)).toHaveLength(0);
    expect(await deliver(d.id)).toBeNull();
    expect(await getInvoice(inv.id)).toMatchObject({ status: 'approved', deliveries: [{ status: 'failed', attempts: 8 }] });
  });

  it('an SMTP server that is down is retried; once it is back the e-mail goes out once', async () => {
    const inv = await invoice(await customer(t.api));
    const d = delivery(bodyOf(202, await sendByEmail(inv.id)));
    expect(await deliver(d.id, down)).toMatchObject({ next: { id: d.id } });
    expect(await row(d.id)).toMatchObject({ status: 'queued', attempts: 1, last_response: '' });
    expect((await row(d.id)).last_error).toMatch(/^the SMTP server could not be reached: .*ECONNREFUSED/);
    await timePasses(d.id);
    expect(await deliver(d.id)).toEqual({ next: null });
    expect(await row(d.id)).toMatchObject({ status: 'sent', attempts: 2, last_error: '' });
    await theMessage(d.message_id);
  });

  it('two workers running its job at once send it once', async () => {
    const inv = await invoice(await customer(t.api));
    const d = delivery(bodyOf(202, await sendByEmail(inv.id)));
    const outcomes = await Promise.all([deliver(d.id), deliver(d.id), deliver(d.id)]);
    expect(outcomes.filter((o) => o !== null)).toHaveLength(1);
    await theMessage(d.message_id);
    expect(await row(d.id)).toMatchObject({ status: 'sent', attempts: 1 });
  });

  it('a worker killed mid-send: once its lease has run out another sends the same message (same Message-ID) again — at least once', async () => {
    const inv = await invoice(await customer(t.api));
    const d = delivery(bodyOf(202, await sendByEmail(inv.id)));
    // The dying worker: it claims the delivery, the SMTP server accepts the message, and it dies before recording that.
    const claimed = (await claimEmail(db.prisma, d.id, settings.sendTimeoutMs))!;
    expect(await settings.transport.send(outgoing(claimed))).toMatchObject({ outcome: 'accepted' });
    // Its lease holds: no other worker takes the delivery meanwhile.
    expect(await deliver(d.id)).toBeNull();
    expect(await row(d.id)).toMatchObject({ status: 'queued', attempts: 0 });
    // The lease runs out: the job at its end sends the message again, the same one.
    await timePasses(d.id);
    expect(await deliver(d.id)).toEqual({ next: null });
    const copies = messagesWith(d.message_id);
    expect(copies).toHaveLength(2);
    expect(copies[1]!.mail.subject).toBe(copies[0]!.mail.subject);
    expect(copies[1]!.mail.date).toEqual(copies[0]!.mail.date);
    expect(await row(d.id)).toMatchObject({ status: 'sent', attempts: 1 });
    expect((await getInvoice(inv.id)).status).toBe('sent');

    // Dying before the SMTP server had it: the message goes out exactly once.
    const inv2 = await invoice(await customer(t.api));
    const d2 = delivery(bodyOf(202, await sendByEmail(inv2.id)));
    expect(await claimEmail(db.prisma, d2.id, settings.sendTimeoutMs)).not.toBeNull();
    await timePasses(d2.id);
    await deliver(d2.id);
    await theMessage(d2.message_id);
  });
});

describe('TLS', () => {
  // A self-signed certificate for 127.0.0.1 (fixtures/smtp-tls, made once with openssl for this test): the
  // URL's tls.rejectUnauthorized=false is what an operator writes for a relay with such a certificate.
  const tls = {
    key: readFileSync(join(import.meta.dirname, 'fixtures/smtp-tls/key.pem')),
    cert: readFileSync(join(import.meta.dirname, 'fixtures/smtp-tls/cert.pem')),
  };
  /** An SMTP server with TLS (implicit, or STARTTLS): whether each message it took came over TLS. */
  async function tlsServer(secure: boolean) {
    const secured: boolean[] = [];
    const server = new SMTPServer({
      ...tls,
      secure,
      authOptional: true,
      logger: false,
      onData(stream, session, done) {
        stream.resume();
        stream.on('end', () => (secured.push(session.secure), done()));
      },
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return { port: (server.server.address() as AddressInfo).port, secured, close: () => new Promise<void>((r) => server.close(() => r())) };
  }

  it('smtps:// speaks TLS from the first byte; smtp:// with requireTLS upgrades with STARTTLS', async () => {
    for (const [scheme, secure, query] of [
      ['smtps', true, '?tls.rejectUnauthorized=false'],
      ['smtp', false, '?requireTLS=true&tls.rejectUnauthorized=false'],
    ] as const) {
      const server = await tlsServer(secure);
      try {
        const using = emailSettings(loadConfig({ SMTP_URL: `${scheme}://127.0.0.1:${server.port}/${query}`, SMTP_FROM: FROM }), logger);
        const inv = await invoice(await customer(t.api));
        const d = delivery(bodyOf(202, await sendByEmail(inv.id)));
        expect(await deliver(d.id, using)).toEqual({ next: null });
        expect(server.secured).toEqual([true]);
      } finally {
        await server.close();
      }
    }
  });
});

describe('without SMTP_URL', () => {
  it('says so once at start, and logs each e-mail instead of sending it (it counts as sent)', async () => {
    const lines: Record<string, unknown>[] = [];
    const log = pino({ level: 'info' }, { write: (s: string) => void lines.push(JSON.parse(s) as Record<string, unknown>) });
    const logged = emailSettings(loadConfig({ SMTP_FROM: FROM }), log);
    expect(logged.transport.kind).toBe('log');
    const inv = await invoice(await customer(t.api));
    const d = delivery(bodyOf(202, await sendByEmail(inv.id)));
    await deliver(d.id, logged);
    expect(await row(d.id)).toMatchObject({ status: 'sent', last_response: 'logged: SMTP_URL is not set' });
    expect(lines).toEqual([
      expect.objectContaining({ msg: 'SMTP_URL is not set: e-mails are written to the log, not sent (docs/email.md)' }),
      expect.objectContaining({ msg: 'e-mail not sent (SMTP_URL is not set): logged instead', message_id: d.message_id, to: ['bogholderi@kunde.dk'] }),
    ]);
    expect(messagesWith(d.message_id)).toHaveLength(0);
  });
});

describe('the worker', () => {
  it('delivers an e-mail once the request that queued it commits (the deliver-email job), DKIM-signed', async () => {
    const worker = await startTestService({
      RUN_WORKER: 'true',
      SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
      SMTP_FROM: FROM,
      DKIM_DOMAIN: DOMAIN,
      DKIM_SELECTOR: SELECTOR,
      DKIM_PRIVATE_KEY_FILE: keyFile,
    });
    try {
      const inv = await invoice(await customer(t.api));
      const r = await api(worker.url, t.key).POST('/invoices/{id}/send', { params: { path: { id: inv.id }, ...idem() }, body: { channel: 'email' } });
      const d = delivery(bodyOf(202, r));
      await waitFor(async () => (await row(d.id)).status === 'sent', 30_000);
      await theMessage(d.message_id);
      expect((await getInvoice(inv.id)).status).toBe('sent');
    } finally {
      await worker.stop();
    }
  }, 60_000);
});
