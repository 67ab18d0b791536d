import { describe, expect, it } from 'vitest';
import { inspectInput, jsonTextDepth, MAX_JSON_DEPTH } from './inspect.ts';

describe('inspectInput', () => {
  it('finds a NUL anywhere, naming the field', () => {
    expect(inspectInput({ name: 'a\u0000b' })).toEqual({ field: 'name', message: 'must not contain a NUL character (\\u0000)' });
    expect(inspectInput({ lines: [{ description: 'ok' }, { description: '\u0000' }] })?.field).toBe('lines[1].description');
    expect(inspectInput('x\u0000', 'search')?.field).toBe('search');
  });

  it('finds a lone surrogate, and lets well-formed astral text through', () => {
    expect(inspectInput({ notes: 'a\ud800b' })?.message).toMatch(/lone surrogate/);
    expect(inspectInput({ notes: 'a\udc00' })?.field).toBe('notes');
    expect(inspectInput({ notes: 'Smørrebrød 🍞 æøå' })).toBeUndefined();
  });

  it('checks keys too', () => {
    expect(inspectInput({ ['a\u0000']: 1 })?.message).toMatch(/^field name must not contain a NUL/);
  });

  it(`refuses nesting deeper than ${MAX_JSON_DEPTH} levels without recursing (4,500 levels do not overflow)`, () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 4500; i++) deep = [deep];
    expect(inspectInput(deep)?.message).toBe(`is nested deeper than ${MAX_JSON_DEPTH} levels`);
    let ok: unknown = 1;
    for (let i = 0; i < MAX_JSON_DEPTH; i++) ok = { a: ok };
    expect(inspectInput(ok)).toBeUndefined();
    expect(inspectInput({ a: ok })?.message).toMatch(/nested/);
  });
});

describe('jsonTextDepth', () => {
  it('counts brackets outside strings only', () => {
    const depth = (t: string) => jsonTextDepth(Buffer.from(t));
    expect(depth('{"a":[1,{"b":2}]}')).toBe(3);
    expect(depth('{"a":"[[[{{{\\"]]]"}')).toBe(1);
    expect(depth('"x"')).toBe(0);
    expect(depth('['.repeat(5000))).toBe(5000);
  });
});
