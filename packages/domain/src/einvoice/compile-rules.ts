// `npm run einvoice:rules`: compiles the official e-invoice rules (CEN EN 16931 UBL and CII, Peppol BIS 3,
// the OIOUBL schematron) into the SEF cache and writes them, gzipped, into rules/compiled/ to be committed
// (validate.ts): after the rules' sources change, run it and commit what it wrote. Prints each file.
import { storeCompiledRules } from './validate.ts';

const started = Date.now();
for (const name of await storeCompiledRules()) process.stdout.write(`rules/compiled/${name}\n`);
process.stdout.write(`e-invoice rules ready in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
