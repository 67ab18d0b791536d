// A local stand-in for Skattestyrelsen's RSU B2B gateway, for tests and demos (`npm run skat:stand-in`):
// the three SOAP services of the same WSDLs and XSDs. Each request's WS-Security signature is verified,
// its certificate checked against the OCES test CA of pem/ws-security (plus a CA a test names), the
// expired and revoked test certificates of p12/ refused, and its payload validated against the service's
// XSD; the answers are written like the samples and signed. It simulates the company approving (or
// rejecting) a draft on skat.dk and every error code of the upstream README's test cases:
//   POST /approve/{id}, POST /reject/{id}   the company approves or rejects the draft of that TransaktionIdentifier
//   POST /fail-next {code, service?}        the next call (of that service) answers with that error code
//   POST /drop-next {service?, after?}      the next call (of that service) gets no answer (the connection is cut): a
//                                           transport failure; after: true cuts it once the call is done (the answer is lost)
//   GET  /state                             the drafts received (what tests count), as JSON
// The real gateway is reached only with real settings (SKAT_GATEWAY_URL and a production certificate).
import { randomUUID, type X509Certificate } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import PDFDocument from 'pdfkit';
import { addDays } from '../../calendar.ts';
import { exclusiveCanonical, writtenChild, writtenText } from '../../xml/canonical.ts';
import { filingDeadline, parseVatPeriod, periodContaining, type VatPeriod } from '../periods.ts';
import type { VatFrequency } from '../../ledger/fiscal-years.ts';
import { CertificateRefusal, checkCertificate, readPemCertificates, serialsOfPkcs12 } from './certificates.ts';
import {
  answerXml,
  calendarAnswerRest,
  draftAnswerRest,
  FREQUENCY_CODES,
  receiptAnswerRest,
  SKAT_NS,
  SKAT_SERVICES,
  type CalendarFrequency,
  type SkatMessage,
  type SkatService,
} from './messages.ts';
import { schemaErrors } from './schemas.ts';
import { NS, signEnvelope, SignatureRefusal, SOAP_MAX_BYTES, verifyEnvelope, type SigningKey } from './ws-security.ts';

const REFERENCE = join(import.meta.dirname, '..', '..', '..', '..', '..', 'prisma', 'seed', 'skat');

/** The upstream README's error codes and their texts (Danish, as the gateway writes them). */
export const SKAT_ERRORS: Record<string, string> = {
  '4801': 'RSU er ikke delegeret af virksomheden',
  '4802': 'Ikke åben periode',
  '4803': 'Periode ikke afsluttet',
  '4804': 'Periode er mere end 3 år gammel',
  '4810': 'Foreløbig statement ikke godkendt',
  '4811': 'Ingen kvittering, den foreløbige momsangivelse er afvist',
  '4812': 'Kvittering findes ikke',
  '4813': 'Der findes ingen foreløbig momsindberetning',
  '4816': 'Værdien i <Angivelsestype> findes ikke. Skal være "Moms".',
  '4817': 'Søgedato start er efter søgedatoslut',
};

export interface StandInCompany {
  /** tlr's frequency, as Skattestyrelsen registers it. */
  frequency: VatFrequency;
  /** The first day the company is registered for VAT: earlier periods are not in its calendar. */
  registeredFrom: string;
}

export interface StandInOptions {
  port?: number;
  host?: string;
  /** The stand-in's own signing key and certificate (the gateway's). */
  signer: SigningKey;
  /** CA certificates trusted besides the OCES test CA (a test's throwaway CA). */
  extraCa?: X509Certificate[];
  /** Serial numbers refused as revoked besides those of p12/*_revoked.p12. */
  extraRevoked?: string[];
  /** The companies that delegated to the provider, by SE number; others answer 4801 (unless `anyCompany`). */
  companies?: Record<string, StandInCompany>;
  /** For demos: every SE number not in `companies` is taken as this. */
  anyCompany?: StandInCompany;
  /** The link the draft answer carries: this base and the draft's id. */
  approvalBase?: string;
  now?: () => Date;
}

interface Draft {
  id: string;
  requestTransactionId: string;
  seNumber: string;
  start: string;
  end: string;
  fields: Record<string, number>;
  state: 'draft' | 'approved' | 'rejected';
  followUp: boolean;
  receivedAt: string;
}

export interface StandIn {
  url: string;
  drafts: Draft[];
  close(): Promise<void>;
}

class Fault extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}

const xmlEscape = (t: string) => t.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const soapFault = (code: string, text: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><soap:Envelope xmlns:soap="${NS.soap}"><soap:Body><soap:Fault><faultcode xmlns:wsse="${NS.wsse}">${code}</faultcode>` +
  `<faultstring>${xmlEscape(text)}</faultstring></soap:Fault></soap:Body></soap:Envelope>`;

async function readBody(req: IncomingMessage, max: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > max) throw new Fault('soap:Client', `The message is larger than ${max} bytes.`);
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks);
}

async function receiptPdf(d: Draft): Promise<Buffer> {
  const doc = new PDFDocument({ size: 'A4', info: { Title: `Kvittering for momsangivelse ${d.start} - ${d.end}` } });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<void>((resolve) => doc.on('end', () => resolve()));
  doc.fontSize(16).text('Kvittering for momsangivelse (stand-in)');
  doc.fontSize(11).text(`SE-nr. ${d.seNumber}, periode ${d.start} - ${d.end}, transaktion ${d.id}`);
  doc.text(`Afgiftstilsvar: ${d.fields.MomsAngivelseAfgiftTilsvarBeloeb ?? 0} kr.`);
  doc.end();
  await done;
  return Buffer.concat(chunks);
}

/** The 16-digit OCR number of a draft: the SE number, the period's end (yymmdd) and a modulus-10 check digit. */
function ocrNumber(d: Draft): string {
  const body = `${d.seNumber}${d.end.slice(2, 4)}${d.end.slice(5, 7)}${d.end.slice(8, 10)}0`;
  let sum = 0;
  for (let i = 0; i < body.length; i++) {
    let n = Number(body[body.length - 1 - i]) * (i % 2 === 0 ? 2 : 1);
    if (n > 9) n -= 9;
    sum += n;
  }
  return `${body}${(10 - (sum % 10)) % 10}`;
}

/** The creditor number on the stand-in's OCR lines (FI card 71); a real receipt carries Skattestyrelsen's own. */
export const STAND_IN_CREDITOR = '85432199';

export function startStandIn(opts: StandInOptions): Promise<StandIn> {
  const now = opts.now ?? (() => new Date());
  const pem = (f: string) => readPemCertificates(readFileSync(join(REFERENCE, 'pem', 'ws-security', f), 'utf8'));
  const trusted = [...pem('Den_Danske_Stat_OCES_rod_CA_Test_cti.pem'), ...(opts.extraCa ?? [])];
  const intermediates = pem('Den_Danske_Stat_OCES_udstedende_CA_1_Test_cti.pem');
  const p12Dir = join(REFERENCE, 'p12');
  const revoked = serialsOfPkcs12(
    readdirSync(p12Dir)
      .filter((f) => f.includes('_revoked'))
      .map((f) => readFileSync(join(p12Dir, f))),
  );
  for (const s of opts.extraRevoked ?? []) revoked.add(s.toUpperCase().replace(/^0+/, ''));
  const drafts: Draft[] = [];
  const companyOf = (se: string): StandInCompany | undefined => opts.companies?.[se] ?? opts.anyCompany;
  const failNext: { code: string; service?: SkatService }[] = [];
  const drops: { service?: SkatService; after: boolean }[] = [];
  const takeDrop = (service: SkatService, after: boolean) => {
    const i = drops.findIndex((d) => (!d.service || d.service === service) && d.after === after);
    return i >= 0 && drops.splice(i, 1).length > 0;
  };

  const calendar = (company: StandInCompany, from: string, to: string): CalendarFrequency[] => {
    const deadlines: CalendarFrequency['deadlines'] = [];
    let p: VatPeriod = periodContaining(from < company.registeredFrom ? company.registeredFrom : from, company.frequency);
    for (let i = 0; i < 200 && p.start <= to; i++) {
      const d = filingDeadline(p);
      deadlines.push({ filing: d, due: addDays(d, 1), payment: d });
      p = periodContaining(addDays(p.end, 1), company.frequency);
    }
    return [{ from: company.registeredFrom, to: null, code: FREQUENCY_CODES[company.frequency], deadlines }];
  };

  const answer = async (service: SkatService, requestTransaction: string, payload: ReturnType<typeof verifyEnvelope>['payload']): Promise<string> => {
    const t = { id: requestTransaction, time: now().toISOString() };
    const forced = failNext.findIndex((f) => !f.service || f.service === service);
    const fejl = (code: string): string => answerXml(service, t, [{ kind: 'fejl', code, text: SKAT_ERRORS[code] ?? 'Ukendt fejl' }]);
    if (forced >= 0) return fejl(failNext.splice(forced, 1)[0]!.code);
    const text = (name: string, uri: string = SKAT_NS.nv) => writtenText(writtenChild(payload, uri, name));
    if (service === 'VirksomhedKalenderHent') {
      const se = text('VirksomhedSENummerIdentifikator', SKAT_NS.virk);
      const company = companyOf(se);
      if (!company) return fejl('4801');
      if (text('AngivelseTypeNavn') !== 'Moms') return fejl('4816');
      const range = writtenChild(payload, SKAT_NS.ws, 'AngivelseBetalingFristHentFra');
      const from = writtenText(writtenChild(range, SKAT_NS.nv, 'SoegeDatoFraDate'));
      const to = writtenText(writtenChild(range, SKAT_NS.nv, 'SoegeDatoTilDate'));
      if (from > to) return fejl('4817');
      return answerXml(service, t, [], calendarAnswerRest(se, to < company.registeredFrom ? [] : calendar(company, from, to)));
    }
    if (service === 'ModtagMomsangivelseForeloebig') {
      const angivelse = writtenChild(payload, SKAT_NS.ws, 'Angivelse');
      const se = writtenText(writtenChild(writtenChild(angivelse, SKAT_NS.ws, 'AngiverVirksomhedSENummer'), SKAT_NS.virk, 'VirksomhedSENummerIdentifikator'));
      const company = companyOf(se);
      if (!company) return fejl('4801');
      const info = writtenChild(angivelse, SKAT_NS.ws, 'Angivelsesoplysninger');
      const start = writtenText(writtenChild(info, SKAT_NS.nv, 'AngivelsePeriodeFraDato')).slice(0, 10);
      const end = writtenText(writtenChild(info, SKAT_NS.nv, 'AngivelsePeriodeTilDato')).slice(0, 10);
      // Not open: before the registration, or not a month, quarter or half-year. (Whether the real gateway takes a period of
      // another frequency than the registered one is not documented; the stand-in takes it, and tlr warns of the mismatch.)
      const shapes = (['monthly', 'quarterly', 'half_yearly'] as const).map((f) => periodContaining(start, f));
      if (!shapes.some((s) => s.start === start && s.end === end) || start < company.registeredFrom) return fejl('4802');
      const day = now().toISOString().slice(0, 10);
      if (end >= day) return fejl('4803');
      if (end < addDays(day, -3 * 365)) return fejl('4804');
      // A request resent with the same TransaktionIdentifikator (a retry after a lost answer) gets the same draft.
      const again = drafts.find((d) => d.requestTransactionId === requestTransaction);
      if (again) return answerXml(service, t, [advis(again)], draftAnswerRest(again.id, `${approvalBase}/angivelse/${again.id}`));
      const fields = Object.fromEntries(
        (writtenChild(angivelse, SKAT_NS.ws, 'Angivelsesafgifter')?.content ?? []).flatMap((c) =>
          typeof c === 'string' ? [] : [[c.name, Number(writtenText(c))]],
        ),
      );
      const followUp = drafts.some((d) => d.seNumber === se && d.start === start && d.end === end && d.state === 'approved');
      const draft: Draft = {
        id: randomUUID(),
        requestTransactionId: requestTransaction,
        seNumber: se,
        start,
        end,
        fields,
        state: 'draft',
        followUp,
        receivedAt: now().toISOString(),
      };
      drafts.push(draft);
      return answerXml(service, t, [advis(draft)], draftAnswerRest(draft.id, `${approvalBase}/angivelse/${draft.id}`));
    }
    const id = text('TransaktionIdentifier');
    const se = writtenText(writtenChild(writtenChild(payload, SKAT_NS.ws, 'Angiver'), SKAT_NS.virk, 'VirksomhedSENummerIdentifikator'));
    const company = companyOf(se);
    if (!company) return fejl('4801');
    const draft = drafts.find((d) => d.id === id);
    if (!draft) return fejl('4813');
    if (draft.seNumber !== se) return fejl('4812');
    if (draft.state === 'rejected') return fejl('4811');
    if (draft.state === 'draft') return fejl('4810');
    const amount = draft.fields.MomsAngivelseAfgiftTilsvarBeloeb ?? 0;
    const deadline = filingDeadline(parseVatPeriod(periodContaining(draft.start, company.frequency).period) as VatPeriod);
    return answerXml(
      service,
      t,
      [],
      receiptAnswerRest(await receiptPdf(draft), { cardType: '71', number: ocrNumber(draft), account: STAND_IN_CREDITOR }, amount, deadline),
    );
  };
  const advis = (d: Draft): SkatMessage =>
    d.followUp
      ? { kind: 'advis', code: '5002', text: 'Dette er en foreløbig efterangivelse' }
      : { kind: 'advis', code: '5001', text: 'Dette er en foreløbig ordinær angivelse' };

  let approvalBase = opts.approvalBase ?? '';
  const server: Server = createServer((req, res) => {
    void (async () => {
      const path = (req.url ?? '/').split('?')[0]!;
      const json = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      const control = /^\/(approve|reject)\/([^/]+)$/.exec(path);
      if (req.method === 'POST' && control) {
        const d = drafts.find((x) => x.id === decodeURIComponent(control[2]!));
        if (!d) return json(404, { error: 'no draft of that TransaktionIdentifier' });
        d.state = control[1] === 'approve' ? 'approved' : 'rejected';
        return json(200, d);
      }
      if (req.method === 'POST' && path === '/fail-next') {
        const body = JSON.parse((await readBody(req, 4096)).toString('utf8') || '{}') as { code?: string; service?: SkatService };
        if (!body.code || !SKAT_ERRORS[body.code]) return json(400, { error: `code: one of ${Object.keys(SKAT_ERRORS).join(', ')}` });
        failNext.push({ code: body.code, service: body.service });
        return json(200, { queued: failNext.length });
      }
      if (req.method === 'POST' && path === '/drop-next') {
        const body = JSON.parse((await readBody(req, 4096)).toString('utf8') || '{}') as { service?: SkatService; after?: boolean };
        drops.push({ service: body.service, after: body.after ?? false });
        return json(200, { queued: drops.length });
      }
      if (req.method === 'GET' && path === '/state') return json(200, { drafts });
      if (req.method === 'GET' && path.startsWith('/angivelse/')) {
        res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
        return res.end('Stand-in for the approval page on skat.dk: POST /approve/{id} plays the company approving.\n');
      }
      const service = SKAT_SERVICES.find((s) => path === `/${s}` || path.endsWith(`/${s}`));
      if (req.method !== 'POST' || !service) return json(404, { error: `POST /${SKAT_SERVICES.join(', /')}` });
      if (takeDrop(service, false)) {
        req.socket.destroy();
        return;
      }
      const send = (status: number, xml: string) => {
        res.writeHead(status, { 'content-type': 'text/xml; charset=utf-8' });
        res.end(xml);
      };
      try {
        const body = await readBody(req, SOAP_MAX_BYTES);
        const at = now();
        const message = verifyEnvelope(body, at);
        checkCertificate(message.certificate, { trusted, intermediates, revokedSerials: revoked, at });
        const xml = exclusiveCanonical(message.payload);
        if (message.payload.name !== `${service}_I`) throw new Fault('soap:Client', `The service ${service} takes ${service}_I, not ${message.payload.name}.`);
        const invalid = await schemaErrors(service, xml);
        if (invalid.length) throw new Fault('soap:Client', `The request is not valid against ${service}_I.xsd: ${invalid.join(' ')}`);
        const head = writtenChild(message.payload, SKAT_NS.ctx, 'HovedOplysninger');
        const transaction = writtenText(writtenChild(head, SKAT_NS.ctx, 'TransaktionIdentifikator'));
        const signed = signEnvelope(await answer(service, transaction, message.payload), opts.signer, now());
        if (takeDrop(service, true)) {
          req.socket.destroy();
          return;
        }
        send(200, signed);
      } catch (e) {
        if (e instanceof SignatureRefusal) return send(500, soapFault('wsse:FailedCheck', e.message));
        if (e instanceof CertificateRefusal) return send(500, soapFault('wsse:FailedAuthentication', e.message));
        if (e instanceof Fault) return send(500, soapFault(e.code, e.message));
        send(500, soapFault('soap:Server', (e as Error).message));
      }
    })();
  });
  return new Promise((resolve) => {
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => {
      const a = server.address() as AddressInfo;
      const url = `http://${opts.host ?? '127.0.0.1'}:${a.port}`;
      approvalBase ||= url;
      resolve({ url, drafts, close: () => new Promise((r) => server.close(() => r())) });
    });
  });
}
