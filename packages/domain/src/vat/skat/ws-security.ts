// WS-Security for Skattestyrelsen's RSU B2B gateway, as services/rsu-policy-sign.xml of the reference asks
// (the sample client's WSS4J settings): action "Timestamp Signature"; the signed parts are the Timestamp,
// the SOAP Body and the BinarySecurityToken; the key is given by direct reference to the X.509 token
// (BinarySecurityToken, X509v3, Base64); rsa-sha1 with sha1 digests; every reference and the SignedInfo
// in exclusive canonical form without inclusive prefixes (addInclusivePrefixes=false). Both directions:
// tlr signs its requests and verifies the gateway's answers; the stand-in does the reverse.
import { createHash, createPublicKey, sign as rsaSign, verify as rsaVerify, X509Certificate, type KeyObject } from 'node:crypto';
import { randomUUID } from 'node:crypto';
import {
  exclusiveCanonical,
  readWrittenDocument,
  writtenAttribute,
  writtenChild,
  writtenDescendants,
  writtenText,
  type WrittenElement,
} from '../../xml/canonical.ts';

export const NS = {
  soap: 'http://schemas.xmlsoap.org/soap/envelope/',
  wsse: 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd',
  wsu: 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd',
  ds: 'http://www.w3.org/2000/09/xmldsig#',
} as const;
const EXC_C14N = 'http://www.w3.org/2001/10/xml-exc-c14n#';
const RSA_SHA1 = 'http://www.w3.org/2000/09/xmldsig#rsa-sha1';
const RSA_SHA256 = 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256';
const SHA1 = 'http://www.w3.org/2000/09/xmldsig#sha1';
const SHA256 = 'http://www.w3.org/2001/04/xmlenc#sha256';
const X509V3 = 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-x509-token-profile-1.0#X509v3';
const BASE64 = 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-soap-message-security-1.0#Base64Binary';

/** The most a SOAP message to or from the gateway may be (a receipt carries a PDF). */
export const SOAP_MAX_BYTES = 8 * 1024 * 1024;
/** The Timestamp's life, as the sample client sets it (WSS4J's default, 300 s). */
export const TIMESTAMP_SECONDS = 300;
/** The clock difference tolerated between sender and receiver. */
const SKEW_MS = 60_000;

export interface SigningKey {
  key: KeyObject;
  certificate: X509Certificate;
}

/** Why a message's signature is not accepted: the rule, for a problem or a SOAP fault. */
export class SignatureRefusal extends Error {
  readonly rule: string;
  constructor(rule: string, message: string) {
    super(message);
    this.name = 'SignatureRefusal';
    this.rule = rule;
  }
}

const digest = (algorithm: 'sha1' | 'sha256', text: string) => createHash(algorithm).update(text, 'utf8').digest('base64');
const canonicalOf = (xml: string) => exclusiveCanonical(readWrittenDocument(xml, { maxBytes: SOAP_MAX_BYTES }));
const der64 = (c: X509Certificate) => c.raw.toString('base64');

/**
 * The SOAP envelope of `bodyXml` (the request's root element with its namespace declarations), signed:
 * a BinarySecurityToken with the certificate, a Timestamp of `now` (five minutes) and the Signature over
 * the three, as WSS4J writes them.
 */
export function signEnvelope(bodyXml: string, signer: SigningKey, now: Date = new Date()): string {
  const ids = {
    bst: `X509-${randomUUID()}`,
    ts: `TS-${randomUUID()}`,
    body: `id-${randomUUID()}`,
    sig: `SIG-${randomUUID()}`,
    ki: `KI-${randomUUID()}`,
    str: `STR-${randomUUID()}`,
  };
  const created = now.toISOString();
  const expires = new Date(now.getTime() + TIMESTAMP_SECONDS * 1000).toISOString();
  const ns = `xmlns:wsse="${NS.wsse}" xmlns:wsu="${NS.wsu}"`;
  const bst = `<wsse:BinarySecurityToken ${ns} EncodingType="${BASE64}" ValueType="${X509V3}" wsu:Id="${ids.bst}">${der64(signer.certificate)}</wsse:BinarySecurityToken>`;
  const timestamp = `<wsu:Timestamp ${ns} wsu:Id="${ids.ts}"><wsu:Created>${created}</wsu:Created><wsu:Expires>${expires}</wsu:Expires></wsu:Timestamp>`;
  const body = `<soap:Body xmlns:soap="${NS.soap}" xmlns:wsu="${NS.wsu}" wsu:Id="${ids.body}">${bodyXml}</soap:Body>`;
  const reference = (id: string, part: string) =>
    `<ds:Reference URI="#${id}"><ds:Transforms><ds:Transform Algorithm="${EXC_C14N}"></ds:Transform></ds:Transforms><ds:DigestMethod Algorithm="${SHA1}"></ds:DigestMethod><ds:DigestValue>${digest('sha1', canonicalOf(part))}</ds:DigestValue></ds:Reference>`;
  const signedInfo =
    `<ds:SignedInfo xmlns:ds="${NS.ds}"><ds:CanonicalizationMethod Algorithm="${EXC_C14N}"></ds:CanonicalizationMethod><ds:SignatureMethod Algorithm="${RSA_SHA1}"></ds:SignatureMethod>` +
    `${reference(ids.ts, timestamp)}${reference(ids.body, body)}${reference(ids.bst, bst)}</ds:SignedInfo>`;
  const signatureValue = rsaSign('sha1', Buffer.from(canonicalOf(signedInfo), 'utf8'), signer.key).toString('base64');
  const signature =
    `<ds:Signature xmlns:ds="${NS.ds}" Id="${ids.sig}">${signedInfo}<ds:SignatureValue>${signatureValue}</ds:SignatureValue>` +
    `<ds:KeyInfo Id="${ids.ki}"><wsse:SecurityTokenReference ${ns} wsu:Id="${ids.str}"><wsse:Reference URI="#${ids.bst}" ValueType="${X509V3}"></wsse:Reference></wsse:SecurityTokenReference></ds:KeyInfo></ds:Signature>`;
  return (
    `<?xml version="1.0" encoding="UTF-8"?><soap:Envelope xmlns:soap="${NS.soap}"><soap:Header>` +
    `<wsse:Security ${ns} soap:mustUnderstand="1">${bst}${timestamp}${signature}</wsse:Security></soap:Header>${body}</soap:Envelope>`
  );
}

export interface VerifiedMessage {
  /** The certificate that signed (from the BinarySecurityToken). */
  certificate: X509Certificate;
  /** The Body's one element: the service's request or answer. */
  payload: WrittenElement;
  created: string;
  expires: string;
}

const idOf = (e: WrittenElement) => writtenAttribute(e, NS.wsu, 'Id') ?? writtenAttribute(e, '', 'Id');

/**
 * Checks a signed SOAP message: every reference's digest, the Body and the Timestamp among them (each id
 * once in the document, so no element can be swapped in), the signature over SignedInfo with the key of
 * the referenced BinarySecurityToken, and the Timestamp's life at `now`. Whether the certificate is to be
 * trusted is the caller's (certificates.ts). Throws a SignatureRefusal naming the rule.
 */
export function verifyEnvelope(xml: string | Uint8Array, now: Date = new Date()): VerifiedMessage {
  const root = readWrittenDocument(
    xml,
    { maxBytes: SOAP_MAX_BYTES },
    (r) => new SignatureRefusal('xml', `The message is not XML this service takes: ${r.message}.`),
  );
  if (root.uri !== NS.soap || root.name !== 'Envelope') throw new SignatureRefusal('envelope', 'The message is not a SOAP 1.1 envelope.');
  const body = writtenChild(root, NS.soap, 'Body');
  const security = writtenChild(writtenChild(root, NS.soap, 'Header'), NS.wsse, 'Security');
  const signature = writtenChild(security, NS.ds, 'Signature');
  if (!body || !security || !signature) throw new SignatureRefusal('unsigned', 'The message carries no WS-Security signature (Header/Security/Signature).');
  const byId = new Map<string, WrittenElement[]>();
  for (const e of writtenDescendants(root)) {
    const id = idOf(e);
    if (id) byId.set(id, [...(byId.get(id) ?? []), e]);
  }
  const signedInfo = writtenChild(signature, NS.ds, 'SignedInfo')!;
  if (!signedInfo) throw new SignatureRefusal('signature', 'The Signature has no SignedInfo.');
  const c14n = writtenAttribute(writtenChild(signedInfo, NS.ds, 'CanonicalizationMethod') ?? signedInfo, '', 'Algorithm');
  if (c14n !== EXC_C14N)
    throw new SignatureRefusal('signature', `The SignedInfo is canonicalized with ${c14n ?? 'nothing'}; exclusive canonicalization (${EXC_C14N}) is required.`);
  const method = writtenAttribute(writtenChild(signedInfo, NS.ds, 'SignatureMethod') ?? signedInfo, '', 'Algorithm');
  if (method !== RSA_SHA1 && method !== RSA_SHA256)
    throw new SignatureRefusal('signature', `The signature method ${method ?? '(none)'} is not rsa-sha1 or rsa-sha256.`);
  const signed = new Set<WrittenElement>();
  for (const ref of signedInfo.content) {
    if (typeof ref === 'string' || ref.uri !== NS.ds || ref.name !== 'Reference') continue;
    const uri = writtenAttribute(ref, '', 'URI') ?? '';
    const targets = uri.startsWith('#') ? (byId.get(uri.slice(1)) ?? []) : [];
    if (targets.length !== 1)
      throw new SignatureRefusal(
        'reference',
        `The reference ${uri || '(empty)'} names ${targets.length ? 'more than one element' : 'no element'} of the message.`,
      );
    const transforms = writtenChild(ref, NS.ds, 'Transforms')?.content.filter((t): t is WrittenElement => typeof t !== 'string') ?? [];
    if (transforms.some((t) => writtenAttribute(t, '', 'Algorithm') !== EXC_C14N))
      throw new SignatureRefusal('reference', `The reference ${uri} uses a transform other than exclusive canonicalization.`);
    const digestMethod = writtenAttribute(writtenChild(ref, NS.ds, 'DigestMethod') ?? ref, '', 'Algorithm');
    const algorithm = digestMethod === SHA1 ? 'sha1' : digestMethod === SHA256 ? 'sha256' : undefined;
    if (!algorithm) throw new SignatureRefusal('reference', `The reference ${uri} is digested with ${digestMethod ?? 'nothing'}; sha1 or sha256 is required.`);
    if (digest(algorithm, exclusiveCanonical(targets[0]!)) !== writtenText(writtenChild(ref, NS.ds, 'DigestValue')).replace(/\s+/g, '')) {
      throw new SignatureRefusal('digest', `The digest of ${targets[0]!.name} (${uri}) does not match: the part was changed after it was signed.`);
    }
    signed.add(targets[0]!);
  }
  const timestamp = writtenChild(security, NS.wsu, 'Timestamp');
  if (!signed.has(body) || !timestamp || !signed.has(timestamp))
    throw new SignatureRefusal('coverage', 'The signature does not cover both the SOAP Body and the Timestamp.');

  const tokenRef = writtenChild(writtenChild(writtenChild(signature, NS.ds, 'KeyInfo'), NS.wsse, 'SecurityTokenReference'), NS.wsse, 'Reference');
  const tokenUri = tokenRef ? (writtenAttribute(tokenRef, '', 'URI') ?? '') : '';
  const token = byId.get(tokenUri.slice(1))?.[0];
  if (!token || token.uri !== NS.wsse || token.name !== 'BinarySecurityToken')
    throw new SignatureRefusal('key', 'The signature names no BinarySecurityToken of the message as its key.');
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(Buffer.from(writtenText(token).replace(/\s+/g, ''), 'base64'));
  } catch {
    throw new SignatureRefusal('key', 'The BinarySecurityToken is not an X.509 certificate.');
  }
  const value = Buffer.from(writtenText(writtenChild(signature, NS.ds, 'SignatureValue')).replace(/\s+/g, ''), 'base64');
  const ok = rsaVerify(
    method === RSA_SHA1 ? 'sha1' : 'sha256',
    Buffer.from(exclusiveCanonical(signedInfo), 'utf8'),
    createPublicKey(certificate.publicKey.export({ format: 'pem', type: 'spki' })),
    value,
  );
  if (!ok) throw new SignatureRefusal('signature', 'The signature value does not verify with the certificate of the message.');

  const created = writtenText(writtenChild(timestamp, NS.wsu, 'Created'));
  const expires = writtenText(writtenChild(timestamp, NS.wsu, 'Expires'));
  const t = now.getTime();
  if (!(Date.parse(created) <= t + SKEW_MS) || (expires && !(Date.parse(expires) > t - SKEW_MS))) {
    throw new SignatureRefusal('timestamp', `The message's Timestamp (created ${created}, expires ${expires || 'never'}) is not current.`);
  }
  const payload = body.content.find((c): c is WrittenElement => typeof c !== 'string');
  if (!payload) throw new SignatureRefusal('envelope', 'The SOAP Body is empty.');
  return { certificate, payload, created, expires };
}
