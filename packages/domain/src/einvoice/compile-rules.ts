// `npm run einvoice:rules`: compiles the official e-invoice rules (CEN EN 16931 UBL, Peppol BIS 3, the
// OIOUBL schematron) into the SEF cache, as a build step does before the service first starts, so that
// no start and no document compiles them (minutes on a small machine). Prints each file.
import { compileEinvoiceRules } from './validate.ts';

const started = Date.now();
for (const [name, file] of Object.entries(await compileEinvoiceRules())) process.stdout.write(`${name}: ${file}\n`);
process.stdout.write(`e-invoice rules ready in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
