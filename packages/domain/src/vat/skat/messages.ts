// The three RSU B2B services' messages, as their XSDs (prisma/seed/skat/services/) and the samples lay them
// out: the requests tlr sends (VirksomhedKalenderHent_I, ModtagMomsangivelseForeloebig_I,
// MomsangivelseKvitteringHent_I) and the answers it reads (the _O elements), and the same the other way
// round for the stand-in. Each request carries a fresh TransaktionIdentifikator and TransaktionTid.
import { randomUUID } from 'node:crypto';
import { writtenChild, writtenText, type WrittenElement } from '../../xml/canonical.ts';
import type { VatReturnField } from './../codes.ts';

export const SKAT_NS = {
  ws: 'urn:oio:skat:nemvirksomhed:ws:1.0.0',
  nv: 'urn:oio:skat:nemvirksomhed:1.0.0',
  ctx: 'http://rep.oio.dk/skat.dk/basis/kontekst/xml/schemas/2006/09/01/',
  virk: 'http://rep.oio.dk/skat.dk/motor/class/virksomhed/xml/schemas/20080401/',
  ang: 'http://rep.oio.dk/skat.dk/TSE/angivelse/xml/schemas/2006/09/01/',
} as const;

const DECLARATIONS = `xmlns:urn="${SKAT_NS.ws}" xmlns:ns="${SKAT_NS.ctx}" xmlns:ns1="${SKAT_NS.virk}" xmlns:urn1="${SKAT_NS.nv}"`;

export type SkatService = 'VirksomhedKalenderHent' | 'ModtagMomsangivelseForeloebig' | 'MomsangivelseKvitteringHent';
export const SKAT_SERVICES: readonly SkatService[] = ['VirksomhedKalenderHent', 'ModtagMomsangivelseForeloebig', 'MomsangivelseKvitteringHent'];
/** The WSDLs' soapAction of each service's one operation. */
export const SOAP_ACTION: Record<SkatService, string> = {
  VirksomhedKalenderHent: 'getVirksomhedKalenderHent',
  ModtagMomsangivelseForeloebig: 'getModtagMomsangivelseForeloebig',
  MomsangivelseKvitteringHent: 'getMomsangivelseKvitteringHent',
};

/**
 * The 17 fields of the return in the order of ModtagMomsangivelseForeloebig_I.xsd's Angivelsesafgifter
 * (the XSD's sequence, not the form's), each with tlr's field.
 */
export const SKAT_RETURN_ELEMENTS: readonly { element: string; field: VatReturnField }[] = [
  { element: 'MomsAngivelseAfgiftTilsvarBeloeb', field: 'net_vat' },
  { element: 'MomsAngivelseCO2AfgiftBeloeb', field: 'co2_duty' },
  { element: 'MomsAngivelseEUKoebBeloeb', field: 'box_a_goods' },
  { element: 'MomsAngivelseEUSalgBeloebVarerBeloeb', field: 'box_b_goods_reported' },
  { element: 'MomsAngivelseIkkeEUSalgBeloebVarerBeloeb', field: 'box_b_goods_not_reported' },
  { element: 'MomsAngivelseElAfgiftBeloeb', field: 'electricity_duty' },
  { element: 'MomsAngivelseEksportOmsaetningBeloeb', field: 'box_c' },
  { element: 'MomsAngivelseGasAfgiftBeloeb', field: 'natural_gas_and_town_gas_duty' },
  { element: 'MomsAngivelseKoebsMomsBeloeb', field: 'input_vat' },
  { element: 'MomsAngivelseKulAfgiftBeloeb', field: 'coal_duty' },
  { element: 'MomsAngivelseMomsEUKoebBeloeb', field: 'vat_on_goods_purchased_abroad' },
  { element: 'MomsAngivelseMomsEUYdelserBeloeb', field: 'vat_on_services_purchased_abroad' },
  { element: 'MomsAngivelseOlieAfgiftBeloeb', field: 'oil_and_bottled_gas_duty' },
  { element: 'MomsAngivelseSalgsMomsBeloeb', field: 'output_vat' },
  { element: 'MomsAngivelseVandAfgiftBeloeb', field: 'water_duty' },
  { element: 'MomsAngivelseEUKoebYdelseBeloeb', field: 'box_a_services' },
  { element: 'MomsAngivelseEUSalgYdelseBeloeb', field: 'box_b_services' },
];

const escape = (t: string) => t.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export interface Transaction {
  /** TransaktionIdentifikator: unique per request, never reused. */
  id: string;
  /** TransaktionTid. */
  time: string;
}
export const newTransaction = (now: Date = new Date()): Transaction => ({ id: randomUUID(), time: now.toISOString() });

const head = (t: Transaction) =>
  `<ns:HovedOplysninger><ns:TransaktionIdentifikator>${t.id}</ns:TransaktionIdentifikator><ns:TransaktionTid>${t.time}</ns:TransaktionTid></ns:HovedOplysninger>`;

/** VirksomhedKalenderHent_I: the company's VAT calendar between two dates. */
export function calendarRequest(t: Transaction, seNumber: string, from: string, to: string): string {
  return (
    `<urn:VirksomhedKalenderHent_I ${DECLARATIONS}>${head(t)}<ns1:VirksomhedSENummerIdentifikator>${seNumber}</ns1:VirksomhedSENummerIdentifikator>` +
    `<urn1:AngivelseTypeNavn>Moms</urn1:AngivelseTypeNavn><urn:AngivelseBetalingFristHentFra><urn1:SoegeDatoFraDate>${from}</urn1:SoegeDatoFraDate>` +
    `<urn1:SoegeDatoTilDate>${to}</urn1:SoegeDatoTilDate></urn:AngivelseBetalingFristHentFra></urn:VirksomhedKalenderHent_I>`
  );
}

/** ModtagMomsangivelseForeloebig_I: the return as a draft, every field in whole kroner in the XSD's order. */
export function draftRequest(t: Transaction, seNumber: string, start: string, end: string, kroner: Record<VatReturnField, number>): string {
  const fields = SKAT_RETURN_ELEMENTS.map((e) => `<urn1:${e.element}>${Math.trunc(kroner[e.field])}</urn1:${e.element}>`).join('');
  return (
    `<urn:ModtagMomsangivelseForeloebig_I ${DECLARATIONS}>${head(t)}<urn:Angivelse><urn:AngiverVirksomhedSENummer>` +
    `<ns1:VirksomhedSENummerIdentifikator>${seNumber}</ns1:VirksomhedSENummerIdentifikator></urn:AngiverVirksomhedSENummer>` +
    `<urn:Angivelsesoplysninger><urn1:AngivelsePeriodeFraDato>${start}</urn1:AngivelsePeriodeFraDato><urn1:AngivelsePeriodeTilDato>${end}</urn1:AngivelsePeriodeTilDato></urn:Angivelsesoplysninger>` +
    `<urn:Angivelsesafgifter>${fields}</urn:Angivelsesafgifter></urn:Angivelse></urn:ModtagMomsangivelseForeloebig_I>`
  );
}

/** MomsangivelseKvitteringHent_I: the receipt of the draft the gateway's TransaktionIdentifier names. */
export function receiptRequest(t: Transaction, seNumber: string, draftTransactionId: string): string {
  return (
    `<urn:MomsangivelseKvitteringHent_I ${DECLARATIONS}>${head(t)}<urn1:TransaktionIdentifier>${escape(draftTransactionId)}</urn1:TransaktionIdentifier>` +
    `<urn:Angiver><ns1:VirksomhedSENummerIdentifikator>${seNumber}</ns1:VirksomhedSENummerIdentifikator></urn:Angiver></urn:MomsangivelseKvitteringHent_I>`
  );
}

/** A message of Skattestyrelsen's SvarStruktur: an advice (Advis) or an error (Fejl). */
export interface SkatMessage {
  kind: 'advis' | 'fejl';
  code: string;
  text: string;
}

export interface SkatAnswer {
  service: SkatService;
  transactionId: string;
  messages: SkatMessage[];
  payload: WrittenElement;
}

const elements = (e: WrittenElement | undefined) => (e?.content ?? []).filter((c): c is WrittenElement => typeof c !== 'string');

/** The common part of every answer: HovedOplysningerSvar with its advices and errors. */
export function readAnswer(payload: WrittenElement, service: SkatService): SkatAnswer {
  if (payload.uri !== SKAT_NS.ws || payload.name !== `${service}_O`) throw new Error(`The gateway answered with ${payload.name}, not ${service}_O.`);
  const svar = writtenChild(payload, SKAT_NS.ctx, 'HovedOplysningerSvar');
  const messages = elements(writtenChild(svar, SKAT_NS.ctx, 'SvarStruktur')).map((m): SkatMessage => {
    const fejl = m.name === 'FejlStruktur';
    return {
      kind: fejl ? 'fejl' : 'advis',
      code: writtenText(writtenChild(m, SKAT_NS.ctx, fejl ? 'FejlIdentifikator' : 'AdvisIdentifikator')),
      text: writtenText(writtenChild(m, SKAT_NS.ctx, fejl ? 'FejlTekst' : 'AdvisTekst')),
    };
  });
  return { service, transactionId: writtenText(writtenChild(svar, SKAT_NS.ctx, 'TransaktionIdentifikator')), messages, payload };
}

/** ModtagMomsangivelseForeloebig_O: the gateway's id of the draft and the approval link (deep link on skat.dk). */
export function readDraftAnswer(a: SkatAnswer): { draftTransactionId: string; approvalUrl: string } {
  return {
    draftTransactionId: writtenText(writtenChild(a.payload, SKAT_NS.nv, 'TransaktionIdentifier')),
    approvalUrl: writtenText(writtenChild(writtenChild(a.payload, SKAT_NS.ws, 'Dybtlink'), SKAT_NS.nv, 'UrlIndicator')),
  };
}

export interface Receipt {
  pdf: Buffer | null;
  /** OCR line: card type (kortart), OCR number (16 digits) and creditor account. */
  ocr: { cardType: string; number: string; account: string } | null;
  /** BetalingIkkeBetaltBeloeb: what is to pay (negative: to be refunded), whole kroner. */
  amount: string | null;
  /** AngivelseFristKalenderBetalingDato: the last day to pay. */
  paymentDeadline: string | null;
}

/** MomsangivelseKvitteringHent_O: the receipt PDF and the payment details, once approved. */
export function readReceiptAnswer(a: SkatAnswer): Receipt {
  const pdf = writtenText(writtenChild(writtenChild(a.payload, SKAT_NS.ws, 'PDFkvittering'), SKAT_NS.nv, 'DokumentFilIndholdData')).replace(/\s+/g, '');
  const pay = writtenChild(a.payload, SKAT_NS.ws, 'Betalingsoplysninger');
  const ocr = writtenChild(pay, SKAT_NS.ws, 'OCRLinie');
  return {
    pdf: pdf ? Buffer.from(pdf, 'base64') : null,
    ocr: ocr
      ? {
          cardType: writtenText(writtenChild(ocr, SKAT_NS.nv, 'OCRKortTypeKode')),
          number: writtenText(writtenChild(ocr, SKAT_NS.ang, 'OCRnummerIdentifikator')),
          account: writtenText(writtenChild(ocr, SKAT_NS.nv, 'OCRKontoNummerIdentifikator')),
        }
      : null,
    amount: pay ? writtenText(writtenChild(pay, SKAT_NS.nv, 'BetalingIkkeBetaltBeloeb')) : null,
    paymentDeadline: pay ? writtenText(writtenChild(pay, SKAT_NS.nv, 'AngivelseFristKalenderBetalingDato')) || null : null,
  };
}

export interface CalendarFrequency {
  from: string;
  to: string | null;
  /** AngivelseFrekvensTypeCode: 07 monthly, 08 quarterly, 09 half-yearly (upstream README's table). */
  code: string;
  deadlines: { filing: string; due: string | null; payment: string | null }[];
}

/** VirksomhedKalenderHent_O: the frequencies in force and their deadlines. */
export function readCalendarAnswer(a: SkatAnswer): CalendarFrequency[] {
  return elements(writtenChild(a.payload, SKAT_NS.ws, 'AngivelseFrekvensListe')).map((f) => ({
    from: writtenText(writtenChild(f, SKAT_NS.nv, 'AngivelseFrekvensForholdGyldigFraDate')),
    to: writtenText(writtenChild(f, SKAT_NS.nv, 'AngivelseFrekvensForholdGyldigTilDate')) || null,
    code: writtenText(writtenChild(f, SKAT_NS.nv, 'AngivelseFrekvensTypeCode')),
    deadlines: elements(writtenChild(f, SKAT_NS.ws, 'AngivelseBetalingFristDatoListe')).map((d) => ({
      filing: writtenText(writtenChild(d, SKAT_NS.nv, 'AngivelseFristKalenderFristDato')),
      due: writtenText(writtenChild(d, SKAT_NS.nv, 'AngivelseFristKalenderForfaldDato')) || null,
      payment: writtenText(writtenChild(d, SKAT_NS.nv, 'AngivelseFristKalenderBetalingDato')) || null,
    })),
  }));
}

/** The frequency codes tlr files in. */
export const FREQUENCY_CODES = { monthly: '07', quarterly: '08', half_yearly: '09' } as const;

// The answers, as the gateway writes them (the stand-in's side).

const answerHead = (service: SkatService, t: Transaction, messages: SkatMessage[]) =>
  `<ns:HovedOplysningerSvar><ns:TransaktionIdentifikator>${t.id}</ns:TransaktionIdentifikator><ns:ServiceIdentifikator>${service}Service</ns:ServiceIdentifikator>` +
  `<ns:TransaktionTid>${t.time}</ns:TransaktionTid><ns:SvarStruktur>${messages
    .map((m) =>
      m.kind === 'fejl'
        ? `<ns:FejlStruktur><ns:FejlIdentifikator>${escape(m.code)}</ns:FejlIdentifikator><ns:FejlTekst>${escape(m.text)}</ns:FejlTekst></ns:FejlStruktur>`
        : `<ns:AdvisStruktur><ns:AdvisIdentifikator>${escape(m.code)}</ns:AdvisIdentifikator><ns:AdvisTekst>${escape(m.text)}</ns:AdvisTekst></ns:AdvisStruktur>`,
    )
    .join('')}</ns:SvarStruktur></ns:HovedOplysningerSvar>`;

export function answerXml(service: SkatService, t: Transaction, messages: SkatMessage[], rest = ''): string {
  return `<urn:${service}_O ${DECLARATIONS} xmlns:ang="${SKAT_NS.ang}">${answerHead(service, t, messages)}${rest}</urn:${service}_O>`;
}

export const draftAnswerRest = (draftTransactionId: string, url: string) =>
  `<urn1:TransaktionIdentifier>${escape(draftTransactionId)}</urn1:TransaktionIdentifier><urn:Dybtlink><urn1:UrlIndicator>${escape(url)}</urn1:UrlIndicator></urn:Dybtlink>`;

export const receiptAnswerRest = (pdf: Buffer, ocr: { cardType: string; number: string; account: string }, amount: number, paymentDeadline: string) =>
  `<urn:PDFkvittering><urn1:DokumentFilIndholdData>${pdf.toString('base64')}</urn1:DokumentFilIndholdData></urn:PDFkvittering>` +
  `<urn:Betalingsoplysninger><urn:OCRLinie><urn1:OCRKortTypeKode>${ocr.cardType}</urn1:OCRKortTypeKode><ang:OCRnummerIdentifikator>${ocr.number}</ang:OCRnummerIdentifikator>` +
  `<urn1:OCRKontoNummerIdentifikator>${ocr.account}</urn1:OCRKontoNummerIdentifikator></urn:OCRLinie><urn1:BetalingIkkeBetaltBeloeb>${amount}</urn1:BetalingIkkeBetaltBeloeb>` +
  `<urn1:AngivelseFristKalenderBetalingDato>${paymentDeadline}</urn1:AngivelseFristKalenderBetalingDato></urn:Betalingsoplysninger>`;

export const calendarAnswerRest = (seNumber: string, frequencies: CalendarFrequency[]) =>
  `<ns1:VirksomhedSENummerIdentifikator>${seNumber}</ns1:VirksomhedSENummerIdentifikator><urn:AngivelseFrekvensListe>${frequencies
    .map(
      (f) =>
        `<urn:AngivelseFrekvens><urn1:AngivelseFrekvensForholdGyldigFraDate>${f.from}</urn1:AngivelseFrekvensForholdGyldigFraDate>` +
        (f.to ? `<urn1:AngivelseFrekvensForholdGyldigTilDate>${f.to}</urn1:AngivelseFrekvensForholdGyldigTilDate>` : '') +
        `<urn1:AngivelseFrekvensTypeCode>${f.code}</urn1:AngivelseFrekvensTypeCode><urn:AngivelseBetalingFristDatoListe>${f.deadlines
          .map(
            (d) =>
              `<urn:AngivelseBetalingFristDato><urn1:AngivelseFristKalenderFristDato>${d.filing}</urn1:AngivelseFristKalenderFristDato>` +
              (d.due ? `<urn1:AngivelseFristKalenderForfaldDato>${d.due}</urn1:AngivelseFristKalenderForfaldDato>` : '') +
              (d.payment ? `<urn1:AngivelseFristKalenderBetalingDato>${d.payment}</urn1:AngivelseFristKalenderBetalingDato>` : '') +
              `</urn:AngivelseBetalingFristDato>`,
          )
          .join('')}</urn:AngivelseBetalingFristDatoListe></urn:AngivelseFrekvens>`,
    )
    .join('')}</urn:AngivelseFrekvensListe>`;
