// Reads the voucher upload body `{ "filename": ..., "content_base64": ..., "mime_type": ... }` as it
// streams in: the small fields are collected, the base64 text is decoded on the fly into `onBytes`, so
// a 13.4 MB body never becomes a 13.4 MB string. Anything else (another shape, another field, a value
// that is not a string, broken JSON) is refused with the field and the rule, like every other body.
import { Base64StreamDecoder, UploadRefusal } from './rules.ts';

export interface UploadFields {
  filename: string | undefined;
  mime_type: string | undefined;
  /** Decoded size of content_base64, or undefined when the field was absent. */
  size: number | undefined;
}

const FIELDS = ['filename', 'content_base64', 'mime_type'] as const;
type Field = (typeof FIELDS)[number];
const MAX_SMALL = 1024;
// eslint-disable-next-line no-control-regex -- JSON strings may not hold raw control characters
const PLAIN_RUN = /[^"\\\u0000-\u001f]*/y;
const ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

type State = 'start' | 'key-or-close' | 'key' | 'colon' | 'value' | 'comma-or-close' | 'done';

export class UploadBodyReader {
  private state: State = 'start';
  private text = ''; // the key or small value being read
  private field: Field | null = null;
  private inString = false;
  private escape: string | null = null; // "" after a backslash, "uXXX" while reading \u escapes
  private seen = new Set<string>();
  private values: Partial<Record<Field, string>> = {};
  private decoder: Base64StreamDecoder;
  private size: number | undefined;
  private utf8 = new TextDecoder('utf-8', { fatal: true });

  constructor(onBytes: (bytes: Uint8Array) => void) {
    this.decoder = new Base64StreamDecoder(onBytes);
  }

  private refuse(field: string, message: string): never {
    throw new UploadRefusal(field, message);
  }

  private invalidJson(): never {
    this.refuse('body', 'is not valid JSON');
  }

  /** A chunk of the request body. */
  write(bytes: Uint8Array): void {
    let s: string;
    try {
      s = this.utf8.decode(bytes, { stream: true });
    } catch {
      this.refuse('body', 'is not valid UTF-8');
    }
    this.scan(s);
  }

  /** The body ended; returns the fields. */
  end(): UploadFields {
    try {
      this.scan(this.utf8.decode());
    } catch (e) {
      if (e instanceof UploadRefusal) throw e;
      this.refuse('body', 'is not valid UTF-8');
    }
    if (this.state === 'start') this.refuse('body', 'must be a JSON object; it is empty');
    if (this.state !== 'done') this.invalidJson();
    return { filename: this.values.filename, mime_type: this.values.mime_type, size: this.size };
  }

  private scan(s: string): void {
    let i = 0;
    while (i < s.length) {
      if (this.inString) {
        i = this.scanString(s, i);
        continue;
      }
      const c = s[i]!;
      i += 1;
      if (c === ' ' || c === '\t' || c === '\n' || c === '\r') continue;
      switch (this.state) {
        case 'start':
          if (c !== '{') this.refuse('body', 'must be a JSON object');
          this.state = 'key-or-close';
          break;
        case 'key-or-close':
        case 'key':
          if (c === '}' && this.state === 'key-or-close') {
            this.state = 'done';
          } else if (c === '"') {
            this.inString = true;
            this.text = '';
          } else this.invalidJson();
          break;
        case 'colon':
          if (c !== ':') this.invalidJson();
          this.state = 'value';
          break;
        case 'value':
          if (c !== '"') this.refuse(this.field!, 'must be a string');
          this.inString = true;
          this.text = '';
          break;
        case 'comma-or-close':
          if (c === ',') this.state = 'key';
          else if (c === '}') this.state = 'done';
          else this.invalidJson();
          break;
        case 'done':
          this.invalidJson();
      }
    }
  }

  /** Inside a string from s[i]; returns where scanning continues. */
  private scanString(s: string, i: number): number {
    const streaming = this.state === 'value' && this.field === 'content_base64';
    while (i < s.length) {
      if (this.escape !== null) {
        i = this.scanEscape(s, i, streaming);
        continue;
      }
      // The run of plain characters up to the next quote, backslash or control character, in one piece.
      PLAIN_RUN.lastIndex = i;
      PLAIN_RUN.exec(s);
      const j = PLAIN_RUN.lastIndex;
      if (j > i) this.append(s.slice(i, j), streaming);
      if (j === s.length) return j;
      if (s.charCodeAt(j) < 0x20) this.invalidJson();
      if (s[j] === '\\') {
        this.escape = '';
        i = j + 1;
        continue;
      }
      this.inString = false;
      this.closeString();
      return j + 1;
    }
    return i;
  }

  private scanEscape(s: string, i: number, streaming: boolean): number {
    const c = s[i]!;
    if (this.escape === '') {
      if (c === 'u') {
        this.escape = 'u';
        return i + 1;
      }
      const ch = ESCAPES[c];
      if (ch === undefined) this.invalidJson();
      this.escape = null;
      this.append(ch, streaming);
      return i + 1;
    }
    const escape = `${this.escape}${c}`;
    this.escape = escape;
    if (!/^u[0-9a-fA-F]*$/.test(escape)) this.invalidJson();
    if (escape.length === 5) {
      const code = parseInt(escape.slice(1), 16);
      this.escape = null;
      this.append(String.fromCharCode(code), streaming);
    }
    return i + 1;
  }

  private append(text: string, streaming: boolean) {
    if (streaming) return this.decoder.push(text);
    this.text += text;
    if (this.text.length > MAX_SMALL) this.refuse(this.state === 'value' ? this.field! : 'body', `is longer than ${MAX_SMALL} characters`);
  }

  private closeString() {
    if (this.state === 'key-or-close' || this.state === 'key') {
      const key = this.text;
      if (!(FIELDS as readonly string[]).includes(key))
        this.refuse(key.slice(0, 100) || 'body', `is not a field of a voucher upload (filename, content_base64, mime_type)`);
      if (this.seen.has(key)) this.refuse(key, 'is given twice');
      this.seen.add(key);
      this.field = key as Field;
      this.state = 'colon';
      return;
    }
    // A value.
    if (this.field === 'content_base64') this.size = this.decoder.end();
    else {
      if (!this.text.isWellFormed()) this.refuse(this.field!, 'is not well-formed Unicode (a lone surrogate)');
      if (this.text.includes('\u0000')) this.refuse(this.field!, 'must not contain the NUL character');
      this.values[this.field!] = this.text;
    }
    this.state = 'comma-or-close';
  }
}
