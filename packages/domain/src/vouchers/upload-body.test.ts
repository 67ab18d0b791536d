import { describe, expect, it } from 'vitest';
import { UploadRefusal } from './rules.ts';
import { UploadBodyReader } from './upload-body.ts';

/** Reads `body` in pieces of `piece` bytes; the fields and bytes, or [field, message] of the refusal. */
function read(body: string, piece = 5) {
  const parts: Uint8Array[] = [];
  const r = new UploadBodyReader((b) => parts.push(b));
  const bytes = Buffer.from(body, 'utf8');
  try {
    for (let i = 0; i < bytes.length; i += piece) r.write(bytes.subarray(i, i + piece));
    return { ...r.end(), content: Buffer.concat(parts).toString('utf8') };
  } catch (e) {
    if (e instanceof UploadRefusal) return [e.field, e.message];
    throw e;
  }
}

const b64 = (s: string) => Buffer.from(s).toString('base64');

describe('UploadBodyReader', () => {
  it('reads the three fields in any order, with JSON escapes and multi-byte UTF-8 split across chunks', () => {
    for (const piece of [1, 2, 3, 7, 1000]) {
      expect(
        read(`{"mime_type":"application/pdf","content_base64":"${b64('Kvittering æøå')}","filename":"Kvittering \\u00e6\\u00f8\\u00e5 ø.pdf"}`, piece),
      ).toEqual({
        filename: 'Kvittering æøå ø.pdf',
        mime_type: 'application/pdf',
        size: Buffer.byteLength('Kvittering æøå'),
        content: 'Kvittering æøå',
      });
    }
    expect(read(` \n{ "filename" : "a.txt" , "content_base64" : "  ${b64('x')}\\n" } \n`)).toMatchObject({ filename: 'a.txt', mime_type: undefined, size: 1 });
    // "\/" is an escaped "/", which base64 uses.
    expect(read(`{"filename":"a","content_base64":"\\/w=="}`)).toMatchObject({ size: 1 });
  });

  it('reports absent fields for the caller to name', () => {
    expect(read('{}')).toEqual({ filename: undefined, mime_type: undefined, size: undefined, content: '' });
  });

  it('refuses what is not the upload object', () => {
    expect(read('')).toEqual(['body', 'must be a JSON object; it is empty']);
    expect(read('[1]')).toEqual(['body', 'must be a JSON object']);
    expect(read('{"filename":"a"')).toEqual(['body', 'is not valid JSON']);
    expect(read('{"filename":"a"}}')).toEqual(['body', 'is not valid JSON']);
    expect(read('{"filename":"a",}')).toEqual(['body', 'is not valid JSON']);
    expect(read('{"filename":"a\u0001"}')).toEqual(['body', 'is not valid JSON']);
    expect(read('{"size":1}')).toEqual(['size', 'is not a field of a voucher upload (filename, content_base64, mime_type)']);
    expect(read('{"filename":"a","filename":"b"}')).toEqual(['filename', 'is given twice']);
    expect(read('{"filename":7}')).toEqual(['filename', 'must be a string']);
    expect(read('{"content_base64":null}')).toEqual(['content_base64', 'must be a string']);
    expect(read(`{"filename":"${'x'.repeat(1025)}"}`)).toEqual(['filename', 'is longer than 1024 characters']);
    expect(read('{"filename":"a\\ud800"}')).toEqual(['filename', 'is not well-formed Unicode (a lone surrogate)']);
    expect(read('{"filename":"a\\u0000"}')).toEqual(['filename', 'must not contain the NUL character']);
  });

  it("refuses invalid content with the decoder's rule, naming content_base64", () => {
    expect(read(`{"content_base64":"aGVq\\naGVq"}`)).toEqual(['content_base64', 'must be one unbroken base64 string: embedded line breaks are invalid']);
    expect(read(`{"content_base64":"a-_q"}`)).toEqual(['content_base64', expect.stringMatching(/not base64url/)]);
    expect(read(`{"content_base64":""}`)).toEqual(['content_base64', 'is empty: a voucher has at least 1 byte']);
  });

  it('refuses bytes that are not UTF-8', () => {
    const r = new UploadBodyReader(() => {});
    expect(() => {
      r.write(Buffer.from([0x7b, 0x22, 0xff]));
      r.end();
    }).toThrow(/not valid UTF-8/);
  });
});
