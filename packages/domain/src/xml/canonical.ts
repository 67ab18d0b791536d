// A signed document as written (prefixes, namespace declarations, the text between elements), read under
// the safe-XML policy of reader.ts, and the exclusive canonical form of any of its elements (Exclusive XML
// Canonicalization 1.0 without comments, http://www.w3.org/2001/10/xml-exc-c14n#, no inclusive prefixes):
// what an XML signature digests and signs (WS-Security, xml/… and vat/skat/ws-security.ts).
import { XmlReader, XmlRefusal, type XmlLimits, type XmlWritten } from './reader.ts';

export interface WrittenElement {
  name: string;
  uri: string;
  prefix: string;
  declared: Readonly<Record<string, string>>;
  attributes: XmlWritten['attributes'];
  /** Children in document order: text (entities decoded) and elements. */
  content: (string | WrittenElement)[];
  parent: WrittenElement | undefined;
}

/** Reads a whole document as written. A refusal is thrown as what `refused` makes of it, else as the XmlRefusal. */
export function readWrittenDocument(
  xml: string | Uint8Array,
  limits: Partial<XmlLimits> & Pick<XmlLimits, 'maxBytes'>,
  refused?: (r: XmlRefusal) => Error,
): WrittenElement {
  const stack: WrittenElement[] = [];
  let root: WrittenElement | undefined;
  const reader = new XmlReader(
    {
      open: (s) => {
        const w = s.written!;
        const parent = stack[stack.length - 1];
        const element: WrittenElement = { name: s.name, uri: s.uri, prefix: w.prefix, declared: w.declared, attributes: w.attributes, content: [], parent };
        if (parent) {
          if (w.before) parent.content.push(w.before);
          parent.content.push(element);
        } else root = element;
        stack.push(element);
      },
      close: (e) => {
        const element = stack.pop()!;
        if (e.text) element.content.push(e.text);
      },
    },
    limits,
    { names: true },
  );
  try {
    if (typeof xml === 'string') reader.write(xml);
    else reader.writeBytes(xml);
    reader.close();
  } catch (e) {
    throw e instanceof XmlRefusal && refused ? refused(e) : e;
  }
  return root!;
}

/** The namespace a prefix stands for at `element` ('' for the default namespace when none is declared). */
function inScope(element: WrittenElement | undefined, prefix: string): string {
  for (let at = element; at; at = at.parent) {
    const uri = at.declared[prefix];
    if (uri !== undefined) return uri;
  }
  return prefix === 'xml' ? 'http://www.w3.org/XML/1998/namespace' : '';
}

const escapeText = (t: string) => t.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\r/g, '&#xD;');
const escapeAttribute = (t: string) =>
  t.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;').replace(/\t/g, '&#x9;').replace(/\n/g, '&#xA;').replace(/\r/g, '&#xD;');

const qname = (prefix: string, local: string) => (prefix ? `${prefix}:${local}` : local);

/**
 * The exclusive canonical form of `element` and what it contains: a namespace is declared where it is
 * first visibly used (by the element's or an attribute's prefix) in the output and not already declared
 * with the same URI by an output ancestor; declarations sorted by prefix, attributes by namespace URI then
 * local name; empty elements as start and end tag; text and attribute values escaped as the spec says.
 */
export function exclusiveCanonical(element: WrittenElement): string {
  const out: string[] = [];
  const walk = (e: WrittenElement, rendered: ReadonlyMap<string, string>) => {
    const used = new Set<string>([e.prefix]);
    for (const a of e.attributes) if (a.prefix) used.add(a.prefix);
    const own = new Map(rendered);
    const declarations: [string, string][] = [];
    for (const prefix of used) {
      if (prefix === 'xml') continue;
      const uri = inScope(e, prefix);
      const had = rendered.get(prefix) ?? '';
      if (uri === had && (prefix === '' || rendered.has(prefix))) continue;
      declarations.push([prefix, uri]);
      own.set(prefix, uri);
    }
    declarations.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const attributes = [...e.attributes].sort((a, b) => (a.uri !== b.uri ? (a.uri < b.uri ? -1 : 1) : a.local < b.local ? -1 : a.local > b.local ? 1 : 0));
    out.push(`<${qname(e.prefix, e.name)}`);
    for (const [prefix, uri] of declarations) out.push(prefix ? ` xmlns:${prefix}="${escapeAttribute(uri)}"` : ` xmlns="${escapeAttribute(uri)}"`);
    for (const a of attributes) out.push(` ${qname(a.prefix, a.local)}="${escapeAttribute(a.value)}"`);
    out.push('>');
    for (const c of e.content) {
      if (typeof c === 'string') out.push(escapeText(c));
      else walk(c, own);
    }
    out.push(`</${qname(e.prefix, e.name)}>`);
  };
  walk(element, new Map());
  return out.join('');
}

/** Every element below `element` (itself included), depth first, in document order. */
export function* writtenDescendants(element: WrittenElement): Generator<WrittenElement> {
  yield element;
  for (const c of element.content) if (typeof c !== 'string') yield* writtenDescendants(c);
}

/** The first child element of that namespace and local name. */
export const writtenChild = (element: WrittenElement | undefined, uri: string, name: string): WrittenElement | undefined =>
  element?.content.find((c): c is WrittenElement => typeof c !== 'string' && c.uri === uri && c.name === name);

/** An element's own text (its text children joined), trimmed. */
export const writtenText = (element: WrittenElement | undefined): string =>
  element
    ? element.content
        .filter((c): c is string => typeof c === 'string')
        .join('')
        .trim()
    : '';

/** An attribute by namespace and local name, or undefined. */
export const writtenAttribute = (element: WrittenElement, uri: string, local: string): string | undefined =>
  element.attributes.find((a) => a.uri === uri && a.local === local)?.value;
