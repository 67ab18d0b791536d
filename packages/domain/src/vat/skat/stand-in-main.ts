// `npm run skat:stand-in`: the stand-in RSU B2B gateway (stand-in.ts) on PORT (default 3944), for demos
// and trying the filing by hand. It makes a throwaway PKI (test-certificates.ts) and writes what tlr needs
// to reach it into SKAT_STAND_IN_DIR (default .data/skat-stand-in): the provider's PKCS#12, the stand-in's
// certificate and the CA, then prints the settings to start tlr with. Every SE number is taken as a
// company filing quarterly since 2020 (SKAT_STAND_IN_FREQUENCY: monthly, quarterly or half_yearly).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { startStandIn } from './stand-in.ts';
import { TEST_PKCS12_PASSPHRASE, testProvider } from './test-certificates.ts';
import type { VatFrequency } from '../../ledger/fiscal-years.ts';

const port = Number(process.env.PORT ?? 3944);
const dir = resolve(process.env.SKAT_STAND_IN_DIR ?? join('.data', 'skat-stand-in'));
const frequency = (process.env.SKAT_STAND_IN_FREQUENCY ?? 'quarterly') as VatFrequency;
const pki = testProvider();
mkdirSync(dir, { recursive: true });
writeFileSync(join(dir, 'provider.p12'), pki.valid.p12);
writeFileSync(join(dir, 'gateway.pem'), pki.gateway.pem);
writeFileSync(join(dir, 'ca.pem'), pki.caPem);
const standIn = await startStandIn({ port, signer: pki.gateway, extraCa: [pki.ca], anyCompany: { frequency, registeredFrom: '2020-01-01' } });
console.log(`RSU B2B stand-in: ${standIn.url} (POST /approve/{id} approves a draft; GET /state lists them)`);
console.log('Start tlr with:');
console.log(`  SKAT_GATEWAY_URL=${standIn.url}`);
console.log(`  SKAT_CERT_FILE=${join(dir, 'provider.p12')} SKAT_CERT_PASSPHRASE=${TEST_PKCS12_PASSPHRASE}`);
console.log(`  SKAT_GATEWAY_CERT_FILE=${join(dir, 'gateway.pem')} SKAT_GATEWAY_CA_FILE=${join(dir, 'ca.pem')}`);
const stop = () => void standIn.close().then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
