// Hostile input, refused in one place before any schema sees it: a NUL character (PostgreSQL cannot
// store it in text, and no field of ours means one), text that is not well-formed Unicode (a lone
// surrogate would be stored as U+FFFD, silently changing what the client sent) and JSON nested deeper
// than any of our bodies needs (deep enough input overflows the stack of recursive code downstream).
// The HTTP layer runs it on every body and query string, the procedure pipeline on every in-process
// input; the walk is iterative, so no input can overflow it.
import { fieldName } from './problem.ts';

/** Deeper than any body of ours (an invoice's lines are at depth 3). */
export const MAX_JSON_DEPTH = 64;

export interface InputFault {
  field: string;
  message: string;
}

export function textFault(s: string): string | undefined {
  if (s.includes('\u0000')) return 'must not contain a NUL character (\\u0000)';
  if (!s.isWellFormed()) return 'must be well-formed Unicode text (it contains a lone surrogate)';
  return undefined;
}

/** The first hostile thing in `value` (keys included), or undefined. `root` names the whole value. */
export function inspectInput(value: unknown, root = 'body'): InputFault | undefined {
  const stack: { value: unknown; path: PropertyKey[]; depth: number }[] = [{ value, path: [], depth: 0 }];
  while (stack.length) {
    const { value: v, path, depth } = stack.pop()!;
    const field = () => fieldName(path) || root;
    if (typeof v === 'string') {
      const message = textFault(v);
      if (message) return { field: field(), message };
    } else if (v !== null && typeof v === 'object') {
      if (depth >= MAX_JSON_DEPTH) return { field: field(), message: `is nested deeper than ${MAX_JSON_DEPTH} levels` };
      for (const [k, child] of Object.entries(v)) {
        const message = textFault(k);
        if (message) return { field: fieldName([...path, k]), message: `field name ${message}` };
        stack.push({ value: child, path: [...path, Array.isArray(v) ? Number(k) : k], depth: depth + 1 });
      }
    }
  }
  return undefined;
}

/**
 * The nesting depth of JSON text, counted on the raw bytes before it is parsed (parsing with a reviver
 * recurses, so a deep enough body would overflow the parser itself). Brackets inside strings do not count.
 */
export function jsonTextDepth(buf: Uint8Array): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < buf.length; i++) {
    const c = buf[i];
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) max = Math.max(max, ++depth);
    else if (c === 0x5d || c === 0x7d) depth--;
  }
  return max;
}
