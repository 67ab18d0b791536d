// The one safe-XML policy for every file and document read from outside (camt.053, e-invoices and the
// answers to them, Nationalbanken's rates, SAF-T): one streaming parser (saxes), bounded while it reads.
// No document type is accepted (no DTD, no entity declared, nothing fetched); the five predefined
// entities and character references are decoded; the size, the nesting and each piece the parser
// holds (a text, an attribute, a tag, a comment) have limits, checked as the text arrives, never after.
// Characters XML does not allow are refused by name. Every refusal is an XmlRefusal: the rule, the
// limit, and the line and column where the parser stood.
import { SaxesParser, type SaxesAttributeNS, type SaxesTag, type SaxesTagNS } from 'saxes';
import { DomainError, type XML_RULES } from '../errors.ts';
import type { ErrorCode } from '../error-codes.ts';
import { byteSize } from '../files/staged-upload.ts';

export interface XmlLimits {
  /** UTF-8 bytes of the whole document. */
  maxBytes: number;
  /** Elements nested in one another. */
  maxDepth: number;
  /** Characters of one piece held at a time: a text (an element's own, CDATA included), a tag with its attributes, a comment. */
  maxToken: number;
}

/**
 * Nesting: the deepest real document read here (a UBL invoice's sub-lines, camt.053's remittance
 * details) is about 15 levels; 64 leaves room, and keeps the work of a deep hostile file linear.
 */
export const XML_MAX_DEPTH = 64;
/** A piece: the longest real text (a SAF-T description, a camt.053 remittance) is a few hundred characters. */
export const XML_MAX_TOKEN = 1024 * 1024;

export type XmlRule = (typeof XML_RULES)[number];

/** What a refusal says in a problem (the `xml` extension member), the same for every reader. */
export interface XmlProblem {
  rule: XmlRule;
  /** The limit broken (size: bytes, depth: levels, token: characters). */
  limit?: number;
  line?: number;
  column?: number;
}

// No parameter properties in this module: validate.ts's worker threads load it with Node's own type
// stripping (decision 238), which refuses them.
export class XmlRefusal extends Error {
  readonly problem: XmlProblem;
  readonly detail: string;
  constructor(problem: XmlProblem, detail: string) {
    super(problem.line ? `line ${problem.line}, column ${problem.column}: ${detail}` : detail);
    this.name = 'XmlRefusal';
    this.problem = problem;
    this.detail = detail;
  }
}

/**
 * A refusal as the reader's own problem: `prefix` says what the file is ("Not an e-invoice this service
 * takes: "), the message the rule and where, the `xml` member the same for a program.
 */
export function xmlRefused(r: XmlRefusal, code: ErrorCode, prefix: string, field = 'body'): DomainError {
  return new DomainError(code, `${prefix}${r.message}.`, field, { xml: r.problem });
}

export interface XmlStart {
  /** The local name (a prefix is never part of it). */
  name: string;
  /** The namespace; '' without one, and always '' when the reader does not resolve namespaces. */
  uri: string;
  /** By local name; namespace declarations are not attributes. */
  attributes: Record<string, string>;
  /** 1 for the root. */
  depth: number;
  /** Where the start tag ends (1-based line, column). */
  line: number;
  column: number;
  /** Only for a reader made with `names: true` (a signature's canonical form needs the document as written). */
  written?: XmlWritten;
}

/** An element as written: what exclusive canonicalization (xml/canonical.ts) needs beyond the local name. */
export interface XmlWritten {
  /** The prefix of the element's name ('' for none). */
  prefix: string;
  /** The namespaces this start tag declares: prefix ('' the default) to URI. */
  declared: Record<string, string>;
  /** Every attribute but the declarations, with its prefix and namespace. */
  attributes: { prefix: string; local: string; uri: string; value: string }[];
  /** The parent's character data since its start or its last child, up to this element. */
  before: string;
}

export interface XmlEnd {
  name: string;
  depth: number;
  /** The element's character data since its start or its last child (CDATA included, entities decoded, not trimmed). */
  text: string;
}

export interface XmlHandlers {
  open?(start: XmlStart): void;
  close?(end: XmlEnd): void;
}

/** XML 1.0's Char production refuses these (tab, LF and CR are allowed; surrogates are the decoder's). */
// eslint-disable-next-line no-control-regex -- these are exactly the characters refused
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;
/** The parser gets the text in slices this long, so a piece is checked against its limit at least this often. */
const SLICE = 64 * 1024;

const localOf = (name: string) => name.slice(name.indexOf(':') + 1);

/**
 * A document as it streams: write() its text (or writeBytes() its UTF-8 bytes) chunk by chunk, then
 * close(). Handlers run inside write(); what they throw comes out of it. A refusal is thrown as an
 * XmlRefusal, and the reader is then spent.
 */
export class XmlReader {
  private readonly parser: SaxesParser;
  private readonly limits: XmlLimits;
  private readonly decoder = new TextDecoder('utf-8', { fatal: true });
  private bytes = 0;
  private depth = 0;
  private started = false;
  /** Characters given to the parser so far. */
  private fed = 0;
  /** Where the parser stood at its last event: what it holds unhanded is at most fed − this. */
  private handed = 0;
  /** The current element's own text so far (bounded: a piece). */
  private text = '';

  constructor(
    handlers: XmlHandlers,
    limits: Partial<XmlLimits> & Pick<XmlLimits, 'maxBytes'>,
    opts: { namespaces?: boolean; /** Hand on each element as written (XmlStart.written); needs namespaces. */ names?: boolean } = {},
  ) {
    const { open, close } = handlers;
    const names = opts.names ?? false;
    this.limits = { maxDepth: XML_MAX_DEPTH, maxToken: XML_MAX_TOKEN, ...limits };
    const namespaces = opts.namespaces ?? true;
    const parser = new SaxesParser({ xmlns: namespaces, position: true });
    this.parser = parser;
    // Each event hands on what the parser held since the one before: a tag, a text, a comment. None may be longer than a piece.
    const seen = () => {
      // + 1: a text is handed on when the parser has read the "<" after it.
      if (parser.position - this.handed > this.limits.maxToken + 1) this.tooLong();
      this.handed = parser.position;
    };
    parser.on('doctype', () => {
      throw this.refusal({ rule: 'doctype' }, 'it declares a document type (DOCTYPE or ENTITY), which is refused: entities are never expanded nor fetched');
    });
    parser.on('error', (e) => {
      throw this.refusal({ rule: 'syntax' }, `it is not well-formed XML: ${e.message.replace(/^(?:[^:]*:)?\d+:\d+: /, '').replace(/\.$/, '')}`);
    });
    parser.on('opentag', (tag: SaxesTag | SaxesTagNS) => {
      seen();
      this.depth += 1;
      if (this.depth > this.limits.maxDepth) {
        throw this.refusal({ rule: 'depth', limit: this.limits.maxDepth }, `elements are nested deeper than ${this.limits.maxDepth} levels`);
      }
      const before = this.text;
      this.text = '';
      // Nothing is made for a reader that only checks (the policy pass of the SAF-T schema check).
      if (!open) return;
      open({
        name: namespaces ? (tag as SaxesTagNS).local : localOf(tag.name),
        uri: namespaces ? (tag as SaxesTagNS).uri : '',
        attributes: namespaces ? attributesNS(tag as SaxesTagNS) : attributes(tag as SaxesTag),
        depth: this.depth,
        line: parser.line,
        column: parser.column,
        ...(names && namespaces ? { written: written(tag as SaxesTagNS, before) } : {}),
      });
    });
    parser.on('closetag', (tag: SaxesTag | SaxesTagNS) => {
      seen();
      const text = this.text;
      this.text = '';
      const depth = this.depth;
      this.depth -= 1;
      close?.({ name: namespaces ? (tag as SaxesTagNS).local : localOf(tag.name), depth, text });
    });
    const addText = (t: string) => {
      seen();
      // The element's own text is one piece however many events bring it (text, CDATA, text between comments).
      if (this.text.length + t.length > this.limits.maxToken) this.tooLong();
      this.text += t;
    };
    parser.on('text', addText);
    parser.on('cdata', addText);
    // No more handlers than these six: saxes keeps each as a property of the parser, and past about
    // seven V8 turns the parser into a dictionary object that reads five times slower (measured). A
    // comment or processing instruction is therefore counted with the piece that follows it.
  }

  /** A refusal where the parser stands; `whole` for the rules of the whole document (size, encoding), which have no place. */
  private refusal(problem: XmlProblem, detail: string, whole = false): XmlRefusal {
    return new XmlRefusal(whole ? problem : { ...problem, line: this.parser.line, column: this.parser.column }, detail);
  }

  private tooLong(): never {
    throw this.refusal(
      { rule: 'token', limit: this.limits.maxToken },
      `a text, tag or comment is longer than ${this.limits.maxToken} characters, the most a piece of this document may have`,
    );
  }

  /** The next chunk of the document's text. */
  write(chunk: string): void {
    this.bytes += Buffer.byteLength(chunk);
    this.take(chunk);
  }

  /** The next chunk of the document's bytes, UTF-8 (anything else is refused, never guessed). */
  writeBytes(chunk: Uint8Array): void {
    this.bytes += chunk.length;
    let text: string;
    try {
      text = this.decoder.decode(chunk, { stream: true });
    } catch {
      throw this.notUtf8();
    }
    this.take(text);
  }

  /** The end of the document: it must be whole. */
  close(): void {
    let rest: string;
    try {
      rest = this.decoder.decode();
    } catch {
      throw this.notUtf8();
    }
    if (rest) this.take(rest);
    this.parser.close();
  }

  private notUtf8(): XmlRefusal {
    return this.refusal({ rule: 'encoding' }, 'it is not UTF-8 text (a byte sequence that UTF-8 does not have)', true);
  }

  private take(chunk: string): void {
    if (this.bytes > this.limits.maxBytes) {
      throw this.refusal({ rule: 'size', limit: this.limits.maxBytes }, `the document is larger than ${byteSize(this.limits.maxBytes)}`, true);
    }
    // A byte order mark is not part of the document (the decoder drops it from bytes; a string may still have it).
    const text = !this.started && chunk.startsWith('\uFEFF') ? chunk.slice(1) : chunk;
    if (text) this.started = true;
    for (let i = 0; i < text.length; i += SLICE) {
      const slice = text.slice(i, i + SLICE);
      const bad = NOT_XML.exec(slice);
      if (bad) {
        // The parser reads up to the character first, so that the refusal says where it is.
        this.parser.write(slice.slice(0, bad.index));
        this.fed += bad.index;
        const code = bad[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');
        const r = this.refusal({ rule: 'character' }, `it contains the character U+${code}, which XML does not allow`);
        throw new XmlRefusal({ ...r.problem, column: (r.problem.column ?? 0) + 1 }, r.detail);
      }
      this.parser.write(slice);
      this.fed += slice.length;
      if (this.fed - this.handed > this.limits.maxToken + 1) this.tooLong();
    }
  }
}

/**
 * Reads a streamed document with `reader`, handing on after each chunk what its handlers finished
 * (`take` gives it and starts the next batch), so a caller's memory holds one chunk's worth, never the
 * file. `atEnd` runs before the document's end is checked; a refusal is thrown as `refused` makes it.
 */
export async function* readXmlStream<T>(
  reader: XmlReader,
  source: AsyncIterable<string | Uint8Array>,
  take: () => T[],
  refused: (r: XmlRefusal) => Error,
  atEnd?: () => void,
): AsyncGenerator<T[]> {
  try {
    for await (const chunk of source) {
      if (typeof chunk === 'string') reader.write(chunk);
      else reader.writeBytes(chunk);
      const batch = take();
      if (batch.length) yield batch;
    }
    atEnd?.();
    reader.close();
  } catch (e) {
    throw e instanceof XmlRefusal ? refused(e) : e;
  }
  const last = take();
  if (last.length) yield last;
}

const NONE: Record<string, string> = Object.freeze({}) as Record<string, string>;

function attributesNS(tag: SaxesTagNS): Record<string, string> {
  let out = NONE;
  for (const a of Object.values(tag.attributes) as SaxesAttributeNS[]) {
    if (a.prefix === 'xmlns' || a.name === 'xmlns') continue;
    if (out === NONE) out = {};
    out[a.local] = a.value;
  }
  return out;
}

function written(tag: SaxesTagNS, before: string): XmlWritten {
  const attributes: XmlWritten['attributes'] = [];
  for (const a of Object.values(tag.attributes) as SaxesAttributeNS[]) {
    if (a.prefix === 'xmlns' || a.name === 'xmlns') continue;
    attributes.push({ prefix: a.prefix, local: a.local, uri: a.uri, value: a.value });
  }
  return { prefix: tag.prefix, declared: { ...tag.ns }, attributes, before };
}

function attributes(tag: SaxesTag): Record<string, string> {
  let out = NONE;
  for (const [name, value] of Object.entries(tag.attributes as Record<string, string>)) {
    if (name === 'xmlns' || name.startsWith('xmlns:')) continue;
    if (out === NONE) out = {};
    out[localOf(name)] = value;
  }
  return out;
}

/**
 * Paths below an anchor element ("NtryDtls/TxDtls/Refs/EndToEndId" below Ntry), kept as a reader
 * descends without joining the element stack at every tag: each level's path is made once, from its
 * parent's, and only while it can still lead to a path asked for (when paths are named), so the work
 * per tag stays bounded by the longest path asked for however deep the document goes.
 */
export class XmlPaths {
  private readonly prefixes: Set<string> | undefined;
  private stack: (string | null)[] = [];

  constructor(wanted?: Iterable<string>) {
    if (wanted) {
      this.prefixes = new Set();
      for (const path of wanted) {
        const parts = path.split('/');
        for (let i = 1; i <= parts.length; i++) this.prefixes.add(parts.slice(0, i).join('/'));
      }
    }
  }

  /** At the anchor: the paths start again below it. */
  reset(): void {
    this.stack = [];
  }

  /** An element below the anchor opens: its path, or null when it leads to no path asked for. */
  enter(name: string): string | null {
    const parent = this.stack.length ? this.stack[this.stack.length - 1]! : '';
    const path = parent === null ? null : parent ? `${parent}/${name}` : name;
    const kept = path !== null && (!this.prefixes || this.prefixes.has(path)) ? path : null;
    this.stack.push(kept);
    return kept;
  }

  /** The element entered last closes: its path, as enter() gave it. */
  leave(): string | null {
    return this.stack.pop() ?? null;
  }
}
