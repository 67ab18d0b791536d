// The WS-Security signature against Skattestyrelsen's own signed messages (the reference's
// full-sample-request.xml, signed by the sample client with a LucaPacioli test certificate, and
// full-sample-response.xml, signed by the test gateway): their digests and signatures verify, so the
// canonical form is the one WSS4J computes; a changed byte is refused.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { signEnvelope, verifyEnvelope, SignatureRefusal } from './ws-security.ts';
import { checkCertificate, readPemCertificates, serialsOfPkcs12 } from './certificates.ts';
import { REFERENCE_DIR, testProvider } from './test-certificates.ts';

// The published samples were pretty-printed after they were signed (indentation between the elements and
// around the Base64 texts): taken out again, they are the messages as sent, and every digest and signature
// value in them verifies. Left in, the digests do not match (checked below), which is what a verifier must say.
const published = (name: string) => readFileSync(join(REFERENCE_DIR, 'samples', name), 'utf8');
const sample = (name: string) =>
  published(name)
    .replace(/>\s+</g, '><')
    .replace(/>\s+([A-Za-z0-9+/=]+)\s+</g, '>$1<');
const ocesTest = ['Den_Danske_Stat_OCES_rod_CA_Test_cti.pem', 'Den_Danske_Stat_OCES_udstedende_CA_1_Test_cti.pem'].flatMap((f) =>
  readPemCertificates(readFileSync(join(REFERENCE_DIR, 'pem', 'ws-security', f), 'utf8')),
);

describe('verifyEnvelope on the official samples', () => {
  it("verifies the sample client's signed request (Timestamp, Body and token signed, rsa-sha1)", () => {
    const v = verifyEnvelope(sample('full-sample-request.xml'), new Date('2023-06-07T08:06:00Z'));
    expect(v.payload.name).toBe('VirksomhedKalenderHent_I');
    expect(v.certificate.subject).toContain('LucaPacioli_ApS_System_Integrationstest_S1');
    expect(v.created).toBe('2023-06-07T08:05:28.253Z');
  });

  it("verifies the test gateway's signed answer, its certificate issued by the OCES test CA of pem/ws-security", () => {
    const at = new Date('2023-06-07T08:06:00Z');
    const v = verifyEnvelope(sample('full-sample-response.xml'), at);
    // The test gateway's certificate of 2023 (upstream pem/README.md gives its SHA-256 fingerprint).
    expect(v.certificate.fingerprint256).toMatch(/^E2:BD:10:46:21:B5:07:D7:11:B3:C1:CB:6B:24:0B:6C/);
    expect(() => checkCertificate(v.certificate, { trusted: ocesTest, at })).not.toThrow();
    expect(() => checkCertificate(v.certificate, { trusted: ocesTest, at: new Date('2026-11-01') })).toThrow(/expired on 2026-04-10/);
    expect(v.payload.name).toBe('VirksomhedKalenderHent_O');
  });

  it('refuses the sample once a figure of its Body changed, and once its Timestamp expired', () => {
    const changed = sample('full-sample-request.xml').replace('<ns3:SoegeDatoTilDate>2017-03-31', '<ns3:SoegeDatoTilDate>2017-06-30');
    expect(() => verifyEnvelope(changed, new Date('2023-06-07T08:06:00Z'))).toThrow(/digest of Body/);
    expect(() => verifyEnvelope(sample('full-sample-request.xml'), new Date('2023-06-07T09:00:00Z'))).toThrow(/Timestamp/);
    expect(() => verifyEnvelope(published('full-sample-request.xml'), new Date('2023-06-07T08:06:00Z'))).toThrow(SignatureRefusal);
  });
});

describe('signEnvelope', () => {
  it('signs so that the verifier (and so WSS4J) accepts it, and a changed amount is refused', () => {
    const signer = testProvider().valid;
    const body = '<urn:X xmlns:urn="urn:oio:skat:nemvirksomhed:ws:1.0.0"><urn:Beloeb>1500</urn:Beloeb></urn:X>';
    const xml = signEnvelope(body, signer, new Date());
    expect(verifyEnvelope(xml).certificate.fingerprint256).toBe(signer.certificate.fingerprint256);
    const err = (() => {
      try {
        verifyEnvelope(xml.replace('>1500<', '>1501<'));
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(SignatureRefusal);
    expect((err as SignatureRefusal).rule).toBe('digest');
  });
});

describe('the official test certificates (p12/)', () => {
  it('lists the serial numbers of the revoked ones without their passphrase, which the stand-in refuses', () => {
    const dir = join(REFERENCE_DIR, 'p12');
    const revoked = serialsOfPkcs12(
      readdirSync(dir)
        .filter((f) => f.includes('_revoked'))
        .map((f) => readFileSync(join(dir, f))),
    );
    // openssl pkcs12 -nokeys: LucaPacioli_ApS_System_Integrationstest_S1_revoked and ..._Organisation_..._O1_revoked.
    expect([...revoked].sort()).toEqual(['159CE7F66B3BA182F61552BC295B632BAA245C41', '30007471A0389AE76DD74A435F9F661650AB1B95']);
    // The certificate that signed the sample request is the revoked S1: refused as revoked while still valid.
    const v = verifyEnvelope(sample('full-sample-request.xml'), new Date('2023-06-07T08:06:00Z'));
    expect(() =>
      checkCertificate(v.certificate, {
        trusted: ocesTest.slice(0, 1),
        intermediates: ocesTest.slice(1),
        revokedSerials: revoked,
        at: new Date('2023-06-07T08:06:00Z'),
      }),
    ).toThrow(/is revoked/);
  });
});
