// The Danish SAF-T Financial XSD and a validator of an export against it (libxml2 as WebAssembly), for
// every test that exports SAF-T.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { memoryPages, validateXML } from 'xmllint-wasm';

const XSD = readFileSync(join(import.meta.dirname, '..', '..', '..', 'prisma', 'seed', 'saft', 'Danish_SAF-T_Financial_Schema.xsd'), 'utf8');

/** Whether `xml` is valid against the schema, with the first 10 of libxml2's errors. */
export async function validateSaft(xml: string) {
  const result = await validateXML({
    xml: [{ fileName: 'export.xml', contents: xml }],
    schema: [{ fileName: 'saft.xsd', contents: XSD }],
    initialMemoryPages: 16 * memoryPages.MiB,
    maxMemoryPages: 2 * memoryPages.GiB,
  });
  return { valid: result.valid, errors: result.errors.slice(0, 10).map((e) => e.rawMessage) };
}
