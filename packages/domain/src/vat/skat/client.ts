// The SOAP client of the RSU B2B gateway: a request of one of the three services, signed with the
// provider's certificate, POSTed to SKAT_GATEWAY_URL/<Service> (SOAP 1.1, the WSDL's soapAction); the
// answer's signature verified and its certificate required to be the gateway's (SKAT_GATEWAY_CERT_FILE,
// issued by SKAT_GATEWAY_CA_FILE). What can go wrong is told apart: a transport failure (no answer, a
// timeout, an HTTP error without a SOAP fault) may be retried with the same TransaktionIdentifikator; a
// SOAP fault (the gateway refused the signature, the certificate or the XML) and an answer that is not
// the gateway's may not.
import type { X509Certificate } from 'node:crypto';
import { readWrittenDocument, writtenChild, writtenText } from '../../xml/canonical.ts';
import { checkCertificate, CertificateRefusal } from './certificates.ts';
import { readAnswer, SOAP_ACTION, type SkatAnswer, type SkatService } from './messages.ts';
import { NS, signEnvelope, SignatureRefusal, SOAP_MAX_BYTES, verifyEnvelope, type SigningKey } from './ws-security.ts';

export interface SkatGateway {
  /** The base the services' paths hang from (SKAT_GATEWAY_URL). */
  url: string;
  signer: SigningKey & { chain: X509Certificate[] };
  /** The gateway's signing certificate: an answer signed by another is refused. */
  gatewayCertificate: X509Certificate;
  /** The CA the gateway's certificate is checked against. */
  gatewayCa: X509Certificate[];
  timeoutMs: number;
  now?: () => Date;
}

/** No answer, or no SOAP answer: the same request may be sent again. */
export class SkatTransportError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SkatTransportError';
  }
}

/** The gateway refused the message (a SOAP fault), or its answer is not to be trusted: never retried. */
export class SkatFaultError extends Error {
  readonly faultCode: string;
  constructor(faultCode: string, message: string) {
    super(message);
    this.name = 'SkatFaultError';
    this.faultCode = faultCode;
  }
}

/** Sends the service's request (its root element as written by messages.ts) and reads the verified answer. */
export async function callSkat(gateway: SkatGateway, service: SkatService, requestXml: string): Promise<SkatAnswer> {
  const now = gateway.now ?? (() => new Date());
  const envelope = signEnvelope(requestXml, gateway.signer, now());
  let response: Response;
  let body: Buffer;
  try {
    response = await fetch(`${gateway.url.replace(/\/+$/, '')}/${service}`, {
      method: 'POST',
      headers: { 'content-type': 'text/xml; charset=utf-8', soapaction: `"${SOAP_ACTION[service]}"` },
      body: envelope,
      signal: AbortSignal.timeout(gateway.timeoutMs),
    });
    body = Buffer.from(await response.arrayBuffer());
  } catch (e) {
    throw new SkatTransportError(`The gateway did not answer ${service}: ${(e as Error).message}`);
  }
  if (body.length > SOAP_MAX_BYTES) throw new SkatTransportError(`The gateway's answer to ${service} is larger than ${SOAP_MAX_BYTES} bytes.`);
  let fault: { code: string; text: string } | undefined;
  try {
    const root = readWrittenDocument(body, { maxBytes: SOAP_MAX_BYTES });
    const f = writtenChild(writtenChild(root, NS.soap, 'Body'), NS.soap, 'Fault');
    if (f) fault = { code: writtenText(writtenChild(f, '', 'faultcode')), text: writtenText(writtenChild(f, '', 'faultstring')) };
  } catch {
    throw new SkatTransportError(`The gateway answered ${service} with HTTP ${response.status} and no SOAP message.`);
  }
  if (fault) throw new SkatFaultError(fault.code, `The gateway refused the ${service} request (${fault.code}): ${fault.text}`);
  if (response.status !== 200) throw new SkatTransportError(`The gateway answered ${service} with HTTP ${response.status}.`);
  try {
    const at = now();
    const verified = verifyEnvelope(body, at);
    if (verified.certificate.fingerprint256 !== gateway.gatewayCertificate.fingerprint256) {
      throw new SignatureRefusal(
        'key',
        `The answer is signed by ${verified.certificate.subject.replace(/\n/g, ', ')}, not by the gateway's certificate (SKAT_GATEWAY_CERT_FILE).`,
      );
    }
    checkCertificate(verified.certificate, { trusted: gateway.gatewayCa, at });
    return readAnswer(verified.payload, service);
  } catch (e) {
    if (e instanceof SignatureRefusal || e instanceof CertificateRefusal)
      throw new SkatFaultError('answer', `The gateway's answer to ${service} is not accepted: ${e.message}`);
    throw e;
  }
}
