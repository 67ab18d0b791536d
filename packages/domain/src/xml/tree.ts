// A whole small document (an e-invoice, an answer to one, a rate file, a rules report) as a tree of
// elements, read under the safe-XML policy of reader.ts, and the few steps its readers walk it with.
// Elements are found by local name: a document's prefixes are its own choice.
import { XmlReader, XmlRefusal, type XmlLimits } from './reader.ts';

export interface XmlElement {
  name: string;
  uri: string;
  attributes: Readonly<Record<string, string>>;
  children: XmlElement[];
  /** Its own character data (entities decoded, not trimmed); '' for an element that has children. */
  text: string;
  /** Where its start tag ends (1-based). */
  line: number;
  column: number;
}

/**
 * Reads a document whole (text or UTF-8 bytes) into its root element. A refusal is thrown as what
 * `refused` makes of it (the reader's own problem), else as the XmlRefusal itself.
 */
export function readXmlDocument(
  xml: string | Uint8Array,
  limits: Partial<XmlLimits> & Pick<XmlLimits, 'maxBytes'>,
  refused?: (r: XmlRefusal) => Error,
): XmlElement {
  try {
    const tree = treeReader(limits);
    if (typeof xml === 'string') tree.reader.write(xml);
    else tree.reader.writeBytes(xml);
    return tree.end();
  } catch (e) {
    throw e instanceof XmlRefusal && refused ? refused(e) : e;
  }
}

/**
 * Characters readXmlDocumentYielding gives the parser between two turns of the event loop: about 4 ms of
 * reading on an idle core (a 13 MiB document took 300–380 ms in one piece), so that a request waits for
 * at most one slice, not for the document (decision 687).
 */
export const XML_YIELD_CHARS = 128 * 1024;

/**
 * readXmlDocument for a large text in the main thread: the same reader and limits, fed XML_YIELD_CHARS
 * at a time with a turn of the event loop (setImmediate) between them, so that other requests, timers
 * and jobs go on while it reads. A slice never ends between the two halves of a surrogate pair.
 */
export async function readXmlDocumentYielding(
  xml: string,
  limits: Partial<XmlLimits> & Pick<XmlLimits, 'maxBytes'>,
  refused?: (r: XmlRefusal) => Error,
): Promise<XmlElement> {
  try {
    const tree = treeReader(limits);
    for (let at = 0; at < xml.length;) {
      let end = Math.min(xml.length, at + XML_YIELD_CHARS);
      const last = xml.charCodeAt(end - 1);
      if (end < xml.length && last >= 0xd800 && last <= 0xdbff) end++;
      tree.reader.write(xml.slice(at, end));
      at = end;
      if (at < xml.length) await new Promise((resolve) => setImmediate(resolve));
    }
    return tree.end();
  } catch (e) {
    throw e instanceof XmlRefusal && refused ? refused(e) : e;
  }
}

/** A reader that builds the tree of what it is given; `end` closes it and answers the root. */
function treeReader(limits: Partial<XmlLimits> & Pick<XmlLimits, 'maxBytes'>): { reader: XmlReader; end(): XmlElement } {
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  const reader = new XmlReader(
    {
      open: (s) => {
        const element: XmlElement = { name: s.name, uri: s.uri, attributes: s.attributes, children: [], text: '', line: s.line, column: s.column };
        if (stack.length) stack[stack.length - 1]!.children.push(element);
        else root = element;
        stack.push(element);
      },
      close: (e) => {
        const element = stack.pop()!;
        // Whitespace between an element's children is layout, not content: not kept.
        element.text = element.children.length ? '' : e.text;
      },
    },
    limits,
  );
  return {
    reader,
    end: () => {
      reader.close();
      return root!;
    },
  };
}

/** The first element down a path of local names, or undefined. */
export function child(element: XmlElement | undefined, ...path: string[]): XmlElement | undefined {
  let at = element;
  for (const name of path) at = at?.children.find((c) => c.name === name);
  return at;
}

/** Every child of that local name, in document order. */
export const children = (element: XmlElement | undefined, name: string): XmlElement[] => element?.children.filter((c) => c.name === name) ?? [];

/** An element's text, trimmed; '' when there is no element. */
export const textOf = (element: XmlElement | undefined): string => element?.text.trim() ?? '';

/** An attribute of an element (by local name), trimmed; '' when absent. */
export const attributeOf = (element: XmlElement | undefined, name: string): string => element?.attributes[name]?.trim() ?? '';

/** Every element of the tree below `element` (itself included), depth first, in document order. */
export function* descendants(element: XmlElement): Generator<XmlElement> {
  const stack = [element];
  while (stack.length) {
    const e = stack.pop()!;
    yield e;
    for (let i = e.children.length - 1; i >= 0; i--) stack.push(e.children[i]!);
  }
}
