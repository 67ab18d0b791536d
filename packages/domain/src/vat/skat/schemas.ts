// The XSD check of a service's request or answer against Skattestyrelsen's own schemas
// (prisma/seed/skat/services/<Service>/, unchanged): libxml2 (xmllint-wasm) with every schema of the
// service's folder preloaded under its relative path, so the imports resolve as they are written. The
// schemas import one namespace many times, each time from another file; libxml2 reads only the first import
// of a namespace, so a driver schema first includes every file of each namespace (a bundle per namespace),
// and the services' own imports then find their components already there.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { validateXML } from 'xmllint-wasm';
import type { SkatService } from './messages.ts';

const SERVICES_DIR = join(import.meta.dirname, '..', '..', '..', '..', '..', 'prisma', 'seed', 'skat', 'services');

const SERVICE_NS = 'urn:oio:skat:nemvirksomhed:ws:1.0.0';

const loaded = new Map<SkatService, { fileName: string; contents: string }[]>();

function schemasOf(service: SkatService): { fileName: string; contents: string }[] {
  let files = loaded.get(service);
  if (!files) {
    const root = join(SERVICES_DIR, service);
    files = (readdirSync(root, { recursive: true }) as string[])
      .filter((f) => f.endsWith('.xsd'))
      .map((f) => ({ fileName: relative(root, join(root, f)), contents: readFileSync(join(root, f), 'utf8') }));
    loaded.set(service, files);
  }
  return files;
}

function driver(service: SkatService): { main: { fileName: string; contents: string }; rest: { fileName: string; contents: string }[] } {
  const files = schemasOf(service);
  const byNamespace = new Map<string, string[]>();
  for (const f of files) {
    const ns = /targetNamespace="([^"]*)"/.exec(f.contents)?.[1] ?? '';
    byNamespace.set(ns, [...(byNamespace.get(ns) ?? []), f.fileName]);
  }
  // The services' own namespace last: its schemas import the others, which must be whole by then.
  const ordered = [...byNamespace].sort(([a], [b]) => Number(a === SERVICE_NS) - Number(b === SERVICE_NS));
  const bundles = ordered.map(([ns, names], i) => ({
    ns,
    fileName: `bundle-${i}.xsd`,
    contents: `<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" targetNamespace="${ns}" elementFormDefault="qualified">${names.map((n) => `<xs:include schemaLocation="${n}"/>`).join('')}</xs:schema>`,
  }));
  const main = {
    fileName: 'driver.xsd',
    contents: `<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">${bundles.map((b) => `<xs:import namespace="${b.ns}" schemaLocation="${b.fileName}"/>`).join('')}</xs:schema>`,
  };
  return { main, rest: [...bundles, ...files] };
}

/** The schema errors of `xml` (a request or answer element, as a document), or [] when it is valid. */
export async function schemaErrors(service: SkatService, xml: string): Promise<string[]> {
  const { main, rest } = driver(service);
  const result = await validateXML({ xml: [{ fileName: 'message.xml', contents: xml }], schema: [main], preload: rest });
  return result.valid ? [] : result.errors.map((e) => e.message.trim());
}
