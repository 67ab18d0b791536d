// The certificates of the RSU B2B gateway: the provider's OCES3 certificate and key from a PKCS#12 file
// (SKAT_CERT_FILE, SKAT_CERT_PASSPHRASE), and the checks a signer's certificate must pass: issued by a
// trusted CA (chain up to a trusted root, each signature verified), within its validity at the moment,
// not revoked. Node reads no PKCS#12, so node-forge unpacks it (PBES2/AES as OCES3 files are made, and the
// older 3DES/RC2 ones); the key and certificates then go on as Node KeyObject and X509Certificate.
import { createPrivateKey, X509Certificate } from 'node:crypto';
import forge from 'node-forge';
import type { SigningKey } from './ws-security.ts';

export class CertificateRefusal extends Error {
  readonly rule: 'pkcs12' | 'passphrase' | 'expired' | 'not_yet_valid' | 'untrusted' | 'revoked';
  constructor(rule: CertificateRefusal['rule'], message: string) {
    super(message);
    this.name = 'CertificateRefusal';
    this.rule = rule;
  }
}

const describeCertificate = (c: X509Certificate) => `${/CN=([^\n,]+)/.exec(c.subject)?.[1] ?? c.subject} (serial ${c.serialNumber})`;

/** The certificates of a PKCS#12 file, the key's own first, without opening the key (cert bags are often unencrypted). */
function bagsOf(p12: forge.pkcs12.Pkcs12Pfx, type: string): forge.pkcs12.Bag[] {
  return p12.getBags({ bagType: type })[type] ?? [];
}

/** The key and certificate of a PKCS#12 file; the CA certificates it carries come along. */
export function readPkcs12(bytes: Uint8Array, passphrase: string): SigningKey & { chain: X509Certificate[] } {
  let p12: forge.pkcs12.Pkcs12Pfx;
  try {
    const asn1 = forge.asn1.fromDer(forge.util.createBuffer(Buffer.from(bytes).toString('binary')));
    p12 = forge.pkcs12.pkcs12FromAsn1(asn1, false, passphrase);
  } catch (e) {
    const wrong = /mac|password|decrypt|pad/i.test(String((e as Error).message));
    throw wrong
      ? new CertificateRefusal('passphrase', 'The PKCS#12 file does not open with the passphrase given (SKAT_CERT_PASSPHRASE).')
      : new CertificateRefusal('pkcs12', `The file is not a PKCS#12 file (SKAT_CERT_FILE): ${(e as Error).message}.`);
  }
  const keyBag = [...bagsOf(p12, forge.pki.oids.pkcs8ShroudedKeyBag!), ...bagsOf(p12, forge.pki.oids.keyBag!)].find((b) => b.key);
  if (!keyBag?.key) throw new CertificateRefusal('pkcs12', 'The PKCS#12 file (SKAT_CERT_FILE) holds no private key.');
  const certificates = bagsOf(p12, forge.pki.oids.certBag!)
    .filter((b) => b.cert)
    .map((b) => new X509Certificate(Buffer.from(forge.asn1.toDer(forge.pki.certificateToAsn1(b.cert!)).getBytes(), 'binary')));
  const key = createPrivateKey(forge.pki.privateKeyToPem(keyBag.key));
  const own = certificates.find((c) => c.checkPrivateKey(key));
  if (!own) throw new CertificateRefusal('pkcs12', 'The PKCS#12 file (SKAT_CERT_FILE) holds no certificate of its private key.');
  return { key, certificate: own, chain: certificates.filter((c) => c !== own) };
}

/** The certificates of a PEM text (one or more). */
export function readPemCertificates(pem: string): X509Certificate[] {
  return [...pem.matchAll(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g)].map((m) => new X509Certificate(m[0]));
}

/**
 * Whether `certificate` may sign at `at`: within its validity, not revoked (by serial number), and issued
 * through `intermediates` or `trusted` up to a certificate of `trusted`, each link's signature verified
 * and each CA within its validity. Throws a CertificateRefusal naming the rule.
 */
export function checkCertificate(
  certificate: X509Certificate,
  opts: { trusted: readonly X509Certificate[]; intermediates?: readonly X509Certificate[]; revokedSerials?: ReadonlySet<string>; at: Date },
): void {
  const inTime = (c: X509Certificate) => {
    if (new Date(c.validFrom) > opts.at)
      throw new CertificateRefusal('not_yet_valid', `The certificate ${describeCertificate(c)} is valid only from ${new Date(c.validFrom).toISOString()}.`);
    if (new Date(c.validTo) < opts.at)
      throw new CertificateRefusal('expired', `The certificate ${describeCertificate(c)} expired on ${new Date(c.validTo).toISOString()}.`);
  };
  inTime(certificate);
  if (opts.revokedSerials?.has(certificate.serialNumber.toUpperCase().replace(/^0+/, ''))) {
    throw new CertificateRefusal('revoked', `The certificate ${describeCertificate(certificate)} is revoked.`);
  }
  const pool = [...(opts.intermediates ?? []), ...opts.trusted];
  let at = certificate;
  for (let depth = 0; depth < 8; depth++) {
    if (opts.trusted.some((t) => t.fingerprint256 === at.fingerprint256)) return;
    const issuer = pool.find((p) => at.checkIssued(p) && at.verify(p.publicKey));
    if (!issuer) break;
    inTime(issuer);
    at = issuer;
  }
  throw new CertificateRefusal('untrusted', `The certificate ${describeCertificate(certificate)} is not issued by a trusted CA.`);
}

/**
 * The serial numbers (upper-case hex) of the end-entity certificates of PKCS#12 files, read without their
 * passphrase: the official test files keep their certificates in an unencrypted bag (only the key is
 * encrypted), so each certificate's DER is in the file as it is; every DER SEQUENCE that reads as an X.509
 * certificate counts. (The passphrase also keys the file's MAC, so no PKCS#12 reader opens it without.)
 */
export function serialsOfPkcs12(files: Uint8Array[]): Set<string> {
  const serials = new Set<string>();
  for (const file of files) {
    const bytes = Buffer.from(file);
    for (let i = 0; i + 4 < bytes.length; i++) {
      if (bytes[i] !== 0x30 || bytes[i + 1] !== 0x82) continue;
      const end = i + 4 + bytes.readUInt16BE(i + 2);
      if (end > bytes.length) continue;
      let c: X509Certificate;
      try {
        c = new X509Certificate(bytes.subarray(i, end));
      } catch {
        continue;
      }
      if (!c.ca) serials.add(c.serialNumber.toUpperCase().replace(/^0+/, ''));
      i = end - 1;
    }
  }
  return serials;
}
