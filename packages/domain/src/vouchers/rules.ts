// Voucher (bilag) rules, pure: the upload limits, the strict base64 of the contract decoded as a stream
// (so a 10 MB document never sits in memory whole, however it arrives), the stored object's name and
// the retention date of bogføringsloven. Every entry point (REST stream, in-process caller) uses these.
import { daysInMonth, ymd } from '../calendar.ts';
import { fiscalYearContaining } from '../ledger/fiscal-years.ts';

/** Contract: "at most 10 MB decoded". 10,000,000 bytes are accepted; anything over 10 MiB is refused. */
export const MAX_VOUCHER_BYTES = 10 * 1024 * 1024;
const MAX_FILENAME_LENGTH = 255;
export const DEFAULT_MIME_TYPE = 'application/octet-stream';
/** Years a voucher is kept after the end of the financial year it documents (bogføringsloven § 12). */
const RETENTION_YEARS = 5;

/** A refusal of the upload body: 400 invalid_request naming the field and the rule. */
export class UploadRefusal extends Error {
  readonly field: string;
  constructor(field: string, message: string) {
    super(message);
    this.field = field;
    this.name = 'UploadRefusal';
  }
}

const B64 = new Int16Array(128).fill(-1);
'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'.split('').forEach((c, i) => (B64[c.charCodeAt(0)] = i));
const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
const isLineBreak = (c: number) => c === 0x0a || c === 0x0d;
const ALPHABET_RUN = /[A-Za-z0-9+/]*/y;
const TOO_LARGE = `decodes to more than ${MAX_VOUCHER_BYTES} bytes (10 MB is the limit)`;

/**
 * Decodes standard padded base64 (RFC 4648 § 4) fed in pieces of text, as the characters of one JSON
 * string arrive. Whitespace around the data is trimmed; a line break or space inside it, base64url's
 * `-` and `_`, a missing or misplaced `=` and more than MAX_VOUCHER_BYTES decoded are refused with the
 * rule broken. Decoded bytes are handed to `emit` as they complete.
 */
export class Base64StreamDecoder {
  private quantum = new Uint8Array(4);
  private filled = 0;
  private padding = 0;
  private started = false;
  /** Whitespace seen after data: anything but more whitespace after it is embedded. */
  private trailing = false;
  private trailingBreak = false;
  private out: Uint8Array;
  private outLength = 0;
  size = 0;

  private readonly emit: (bytes: Uint8Array) => void;
  private readonly field: string;
  constructor(emit: (bytes: Uint8Array) => void, field = 'content_base64', chunkBytes = 48 * 1024) {
    this.emit = emit;
    this.field = field;
    this.out = new Uint8Array(chunkBytes);
  }

  private refuse(message: string): never {
    throw new UploadRefusal(this.field, message);
  }

  /** One more piece of the text (already unescaped from JSON). */
  push(text: string): void {
    let i = 0;
    while (i < text.length) {
      // Fast path (the body of every real upload): between quanta, a long run of alphabet characters
      // is decoded natively; the character loop below then sees only the edges, padding and errors.
      if (this.filled === 0 && this.padding === 0 && !this.trailing) {
        ALPHABET_RUN.lastIndex = i;
        ALPHABET_RUN.exec(text);
        const whole = (ALPHABET_RUN.lastIndex - i) & ~3;
        if (whole >= 256) {
          this.size += (whole / 4) * 3;
          if (this.size > MAX_VOUCHER_BYTES) this.refuse(TOO_LARGE);
          this.drain();
          this.emit(Buffer.from(text.slice(i, i + whole), 'base64'));
          this.started = true;
          i += whole;
          continue;
        }
      }
      this.pushChar(text.charCodeAt(i));
      i += 1;
    }
  }

  private pushChar(c: number): void {
    if (isSpace(c)) {
      if (this.started) {
        this.trailing = true;
        if (isLineBreak(c)) this.trailingBreak = true;
      }
      return;
    }
    if (this.trailing) {
      this.refuse(
        this.trailingBreak
          ? 'must be one unbroken base64 string: embedded line breaks are invalid'
          : 'must be one unbroken base64 string: embedded whitespace is invalid',
      );
    }
    this.started = true;
    if (c === 0x3d /* = */) {
      if (this.filled < 2) this.refuse('is not valid base64: "=" padding in the wrong place');
      this.padding += 1;
      this.filled += 1;
      if (this.filled === 4) this.flushQuantum();
      return;
    }
    if (this.padding > 0) this.refuse('is not valid base64: data after the "=" padding');
    const v = c < 128 ? B64[c]! : -1;
    if (v < 0) {
      if (c === 0x2d || c === 0x5f) this.refuse('must be standard base64 (RFC 4648 section 4), not base64url ("-" and "_" are not allowed)');
      this.refuse(`is not valid base64: the character ${JSON.stringify(String.fromCharCode(c))} is not in the base64 alphabet`);
    }
    this.quantum[this.filled++] = v;
    if (this.filled === 4) this.flushQuantum();
  }

  private flushQuantum() {
    const [a, b, c, d] = this.quantum as unknown as [number, number, number, number];
    const bytes = 3 - this.padding;
    this.size += bytes;
    if (this.size > MAX_VOUCHER_BYTES) this.refuse(TOO_LARGE);
    if (this.out.length - this.outLength < 3) this.drain();
    this.out[this.outLength++] = (a << 2) | (b >> 4);
    if (bytes > 1) this.out[this.outLength++] = ((b & 15) << 4) | (c >> 2);
    if (bytes > 2) this.out[this.outLength++] = ((c & 3) << 6) | d;
    this.filled = 0;
  }

  private drain() {
    if (this.outLength === 0) return;
    this.emit(this.out.slice(0, this.outLength));
    this.outLength = 0;
  }

  /** The text ended: checks the length and padding, emits what is left; returns the decoded size. */
  end(): number {
    if (this.filled !== 0) this.refuse('is not valid base64: its length must be a multiple of 4 (standard base64 is padded with "=")');
    if (this.size === 0) this.refuse('is empty: a voucher has at least 1 byte');
    this.drain();
    return this.size;
  }
}

/**
 * Characters that are not seen but change how a name reads: every format character (Unicode Cf: the
 * bidirectional controls that show "faktura\u202Efdp.exe" as "fakturaexe.pdf", the zero-width space and
 * joiners, the word joiner, the byte order mark, the soft hyphen ...) and the line and paragraph separators.
 */
const INVISIBLE = /[\p{Cf}\u2028\u2029]/u;
/** What a download's name never shows: the invisible characters and the control characters (Cc, C1 too). */
const UNSHOWN = /[\p{Cc}\p{Cf}\u2028\u2029]/gu;

/** A character as Unicode writes it: U+202E. */
const codePointName = (c: string) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/**
 * The filename's rule: required, not blank, at most 255 characters, no path, control or invisible
 * characters (decision 178). A refusal names the rule, and the character as U+XXXX with its position.
 */
export function checkFilename(name: string): string | undefined {
  if (name.trim() === '') return 'must not be blank';
  if (name.length > MAX_FILENAME_LENGTH) return `must be at most ${MAX_FILENAME_LENGTH} characters`;
  if (/[\p{Cc}/\\]/u.test(name)) return 'must be a file name without a path or control characters';
  const invisible = INVISIBLE.exec(name);
  if (invisible) {
    const position = Array.from(name.slice(0, invisible.index)).length + 1;
    return (
      `must not contain the invisible character ${codePointName(invisible[0])} (character ${position}): format characters such as ` +
      'bidirectional controls and zero-width spaces, and line or paragraph separators, can make a name read as another'
    );
  }
  return undefined;
}

/** A MIME type as RFC 6838 writes one (type/subtype with optional parameters); at most 255 characters. */
export function checkMimeType(type: string): string | undefined {
  if (type.length > 255 || !/^[A-Za-z0-9][\w!#$&^.+-]*\/[A-Za-z0-9][\w!#$&^.+-]*(\s*;\s*[\w!#$&^.+-]+=("[^"\r\n]*"|[\w!#$&^.+-]+))*$/.test(type)) {
    return 'must be a MIME type such as application/pdf or image/jpeg';
  }
  return undefined;
}

/** The extension that names the stored object ("the extension determines storage"): ".pdf", or "". */
function storedExtension(filename: string): string {
  const m = /\.([A-Za-z0-9]{1,10})$/.exec(filename.trim());
  return m ? `.${m[1]!.toLowerCase()}` : '';
}

/** Where the bytes are kept: one folder per company, named by the voucher id and the file's extension. */
export const storageKey = (companyId: string, voucherId: string, filename: string) => `${companyId}/${voucherId}${storedExtension(filename)}`;

/**
 * Kept until five years after the end of the financial year of the posting it documents (fiscal year
 * ending 2026-12-31 -> 2031-12-31).
 */
export function retentionUntil(postingDate: string, fiscalYearStartMonth: number): string {
  // A fiscal year always ends on the last day of a month; so does the retention period.
  const [y, m] = fiscalYearContaining(postingDate, fiscalYearStartMonth).end.split('-').map(Number) as [number, number];
  return ymd(y + RETENTION_YEARS, m, daysInMonth(y + RETENTION_YEARS, m));
}

/**
 * RFC 6266/5987 Content-Disposition for a download: an ASCII fallback and the UTF-8 name, exact but for
 * the characters no name may show (a name stored before decision 178 may have them): each is a "_" in both.
 */
export function attachmentDisposition(stored: string): string {
  const filename = stored.replace(UNSHOWN, '_');
  const ascii = filename
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\x20-\x7e]|["\\]/g, '_');
  const encoded = encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}
