// Certificates for tests and the stand-in's demo: the official test certificates' private keys are
// protected by a passphrase Skattestyrelsen hands out with access to its test environment (the sample
// client's "secret" opens only their certificate bags), so nothing can sign with them here. A throwaway
// CA made once per process issues what is needed: a provider certificate (valid, expired, revoked) and
// the stand-in gateway's own. They are never written to the repository and are trusted only by a
// stand-in told to (SKAT_STAND_IN_EXTRA_CA). The official material is used for what it can be:
// verifying the signed samples, the OCES test CA, and the revoked certificates' serial numbers.
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import forge from 'node-forge';
import type { SigningKey } from './ws-security.ts';

/** The Skattestyrelsen reference material as copied into the repository (origin: prisma/seed/skat/README.md). */
export const REFERENCE_DIR = join(import.meta.dirname, '..', '..', '..', '..', '..', 'prisma', 'seed', 'skat');
if (!existsSync(REFERENCE_DIR)) throw new Error(`The Skattestyrelsen reference is missing: ${REFERENCE_DIR}`);

export interface TestIssued extends SigningKey {
  pem: string;
  keyPem: string;
  /** The key and certificate as PKCS#12 (DER), with TEST_PKCS12_PASSPHRASE. */
  p12: Buffer;
}

export const TEST_PKCS12_PASSPHRASE = 'tlr-test';

function keyPair(): forge.pki.rsa.KeyPair {
  return forge.pki.rsa.generateKeyPair({ bits: 2048, e: 0x10001 });
}

function issue(
  subject: string,
  keys: forge.pki.rsa.KeyPair,
  issuer: { cert: forge.pki.Certificate; key: forge.pki.rsa.PrivateKey } | undefined,
  serial: string,
  from: Date,
  to: Date,
  ca: boolean,
): forge.pki.Certificate {
  const cert = forge.pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = serial;
  cert.validity.notBefore = from;
  cert.validity.notAfter = to;
  const attrs = [
    { name: 'commonName', value: subject },
    { name: 'organizationName', value: 'tlr test' },
    { name: 'countryName', value: 'DK' },
  ];
  cert.setSubject(attrs);
  cert.setIssuer(issuer ? issuer.cert.subject.attributes : attrs);
  cert.setExtensions([
    { name: 'basicConstraints', cA: ca, critical: true },
    { name: 'keyUsage', critical: true, ...(ca ? { keyCertSign: true, cRLSign: true } : { digitalSignature: true, nonRepudiation: true }) },
  ]);
  cert.sign(issuer?.key ?? keys.privateKey, forge.md.sha256.create());
  return cert;
}

function asIssued(cert: forge.pki.Certificate, keys: forge.pki.rsa.KeyPair, chain: forge.pki.Certificate[]): TestIssued {
  const pem = forge.pki.certificateToPem(cert);
  const keyPem = forge.pki.privateKeyToPem(keys.privateKey);
  const p12 = forge.pkcs12.toPkcs12Asn1(keys.privateKey, [cert, ...chain], TEST_PKCS12_PASSPHRASE, { algorithm: 'aes256' });
  return { key: createPrivateKey(keyPem), certificate: new X509Certificate(pem), pem, keyPem, p12: Buffer.from(forge.asn1.toDer(p12).getBytes(), 'binary') };
}

export interface TestPki {
  caPem: string;
  ca: X509Certificate;
  valid: TestIssued;
  expired: TestIssued;
  revoked: TestIssued;
  gateway: TestIssued;
}

let made: TestPki | undefined;

/** The throwaway PKI (made once per process: RSA key generation takes a moment). */
export function testProvider(): TestPki {
  if (made) return made;
  const year = 365 * 24 * 3600 * 1000;
  const now = Date.now();
  const caKeys = keyPair();
  const ca = issue('tlr test OCES CA', caKeys, undefined, '01', new Date(now - year), new Date(now + 10 * year), true);
  const signer = { cert: ca, key: caKeys.privateKey };
  const leaf = (cn: string, serial: string, from: number, to: number) => {
    const keys = keyPair();
    return asIssued(issue(cn, keys, signer, serial, new Date(from), new Date(to), false), keys, [ca]);
  };
  const caPem = forge.pki.certificateToPem(ca);
  made = {
    caPem,
    ca: new X509Certificate(caPem),
    valid: leaf('tlr test provider S1', '1001', now - year, now + year),
    expired: leaf('tlr test provider S1 expired', '1002', now - 2 * year, now - 24 * 3600 * 1000),
    revoked: leaf('tlr test provider S1 revoked', '1003', now - year, now + year),
    gateway: leaf('tlr test B2B gateway stand-in', '1004', now - year, now + year),
  };
  return made;
}
