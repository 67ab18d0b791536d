// The stand-in gateway's own checks, over HTTP on a free port: a request is refused (a SOAP fault, as the
// real gateway does) when it fails the service's XSD, when its signature or certificate does not pass
// (another CA, expired, revoked), and answered, signed, when it is the official sample as sent.
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import forge from 'node-forge';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readWrittenDocument } from '../../xml/canonical.ts';
import { readCalendarAnswer, readAnswer, newTransaction, draftRequest, SOAP_ACTION, type SkatService } from './messages.ts';
import { startStandIn, type StandIn } from './stand-in.ts';
import { REFERENCE_DIR, testProvider } from './test-certificates.ts';
import { signEnvelope, verifyEnvelope, type SigningKey } from './ws-security.ts';

const pki = testProvider();
let standIn: StandIn;
beforeAll(async () => {
  standIn = await startStandIn({
    signer: pki.gateway,
    extraCa: [pki.ca],
    extraRevoked: [pki.revoked.certificate.serialNumber],
    companies: { '12345678': { frequency: 'quarterly', registeredFrom: '2017-01-01' } },
  });
});
afterAll(() => standIn?.close());

async function call(service: SkatService, body: string, signer: SigningKey = pki.valid) {
  const res = await fetch(`${standIn.url}/${service}`, {
    method: 'POST',
    headers: { 'content-type': 'text/xml; charset=utf-8', soapaction: SOAP_ACTION[service] },
    body: signEnvelope(body, signer),
  });
  return { status: res.status, text: await res.text() };
}
const sample = (name: string) => readFileSync(join(REFERENCE_DIR, 'samples', name), 'utf8').replace(/^<\?xml[^>]*>\s*/, '');
const fault = (text: string) => /<faultstring>([^<]*)<\/faultstring>/.exec(text)?.[1] ?? '';

describe('the stand-in gateway', () => {
  it("answers the official VirksomhedKalenderHent sample, signed as the gateway: 4816 for its AngivelseTypeNavn 'qwerty'", async () => {
    const r = await call('VirksomhedKalenderHent', sample('VirksomhedKalenderHent_I_Sample.xml'));
    expect(r.status).toBe(200);
    const answer = readAnswer(verifyEnvelope(r.text).payload, 'VirksomhedKalenderHent');
    expect(answer.messages).toEqual([{ kind: 'fejl', code: '4816', text: 'Værdien i <Angivelsestype> findes ikke. Skal være "Moms".' }]);
    expect(verifyEnvelope(r.text).certificate.fingerprint256).toBe(pki.gateway.certificate.fingerprint256);
    const fixed = sample('VirksomhedKalenderHent_I_Sample.xml').replace('>qwerty<', '>Moms<');
    const calendar = readCalendarAnswer(readAnswer(verifyEnvelope((await call('VirksomhedKalenderHent', fixed)).text).payload, 'VirksomhedKalenderHent'));
    expect(calendar[0]).toMatchObject({ code: '08', deadlines: [{ filing: '2017-06-01' }] });
  });

  it('refuses a request its XSD refuses, naming the schema', async () => {
    const bad = draftRequest(newTransaction(), '1234567', '2026-07-01', '2026-09-30', new Proxy({}, { get: () => 0 }) as never);
    const r = await call('ModtagMomsangivelseForeloebig', bad);
    expect(r.status).toBe(500);
    expect(fault(r.text)).toMatch(/not valid against ModtagMomsangivelseForeloebig_I\.xsd: .*VirksomhedSENummerIdentifikator.*length/);
    // The official sample's stray quote after the SE number is refused too: character content in an element-only Angiver.
    const receipt = await call('MomsangivelseKvitteringHent', sample('MomsangivelseKvitteringHent_I_Sample.xml'));
    expect(fault(receipt.text)).toMatch(/Angiver.*element-only/);
  });

  it('refuses a certificate of another CA, an expired one and a revoked one; and a message changed after signing', async () => {
    const body = sample('VirksomhedKalenderHent_I_Sample.xml');
    // A certificate of its own making (self-signed): no trusted CA issued it.
    const keys = forge.pki.rsa.generateKeyPair({ bits: 2048 });
    const own = forge.pki.createCertificate();
    own.publicKey = keys.publicKey;
    own.serialNumber = '05';
    own.validity.notBefore = new Date(Date.now() - 86_400_000);
    own.validity.notAfter = new Date(Date.now() + 86_400_000);
    own.setSubject([{ name: 'commonName', value: 'Not OCES' }]);
    own.setIssuer([{ name: 'commonName', value: 'Not OCES' }]);
    own.sign(keys.privateKey, forge.md.sha256.create());
    const untrusted = { key: createPrivateKey(forge.pki.privateKeyToPem(keys.privateKey)), certificate: new X509Certificate(forge.pki.certificateToPem(own)) };
    expect(fault((await call('VirksomhedKalenderHent', body, untrusted)).text)).toMatch(/not issued by a trusted CA/);
    expect(fault((await call('VirksomhedKalenderHent', body, pki.expired)).text)).toMatch(/expired on/);
    expect(fault((await call('VirksomhedKalenderHent', body, pki.revoked)).text)).toMatch(/is revoked/);
    const signed = signEnvelope(body, pki.valid).replace('12345678</ns1:VirksomhedSENummerIdentifikator>', '87654321</ns1:VirksomhedSENummerIdentifikator>');
    const res = await fetch(`${standIn.url}/VirksomhedKalenderHent`, { method: 'POST', body: signed });
    expect(fault(await res.text())).toMatch(/digest of Body/);
    // The official sample request, signed in 2023 by a certificate since expired (and revoked), is refused.
    const official = readFileSync(join(REFERENCE_DIR, 'samples', 'full-sample-request.xml'), 'utf8');
    expect(fault(await (await fetch(`${standIn.url}/VirksomhedKalenderHent`, { method: 'POST', body: official })).text())).not.toBe('');
    expect(readWrittenDocument(official, { maxBytes: 1e6 }).name).toBe('Envelope');
  });
});
