// The official rules as SaxonJS runs them, made to cost in proportion to a document's lines: their XSLT
// is rewritten before SaxonJS compiles it (the published sources stay as published):
//
// - Decision 489, the Peppol rules' match patterns. A rule whose context names a path from the document's
//   root inside its predicate (the Swedish rules:
//   `//cac:TaxCategory[//cac:AccountingSupplierParty/cac:Party[…] and cbc:ID = 'S'] | //cac:ClassifiedTaxCategory[…]`)
//   makes SaxonJS scan the whole document once for every tax category it tries the pattern on, one per
//   line: a 1,000-line invoice took 51 s of CPU. The same nodes are found by an xsl:key, which SaxonJS
//   indexes once per document. key() answers the nodes the path selects, in document order, so the
//   rules say exactly what they said (the same report, byte for byte, on every official example).
// - Decision 490, the rules' expressions (CEN EN 16931 and Peppol): below.

/** Characters that may stand before a path from the root inside an expression (not a step's `a//b`). */
const BEFORE_ROOT_PATH = new Set(['[', '(', ' ', ',', '=', '\n', '\t']);
/** Characters that end a path at its own nesting level. */
const PATH_END = new Set([' ', ')', ']', ',', '|', '=', '!', '<', '>', '\n', '\t']);

/** The path from the root that starts at `from` (at its `//`): up to the first end character outside its own brackets and quotes. */
function rootPathAt(text: string, from: number): string {
  let depth = 0;
  let quote = '';
  let i = from;
  for (; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === quote) quote = '';
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '[' || c === '(') depth++;
    else if (depth > 0 && (c === ']' || c === ')')) depth--;
    else if (depth === 0 && PATH_END.has(c)) break;
  }
  return text.slice(from, i);
}

/** The paths from the root that a pattern (an attribute's text, escaped as written) names inside its predicates, with where each starts. */
function rootPathsInPredicates(pattern: string): { at: number; path: string }[] {
  const paths: { at: number; path: string }[] = [];
  let depth = 0;
  let quote = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (quote) {
      if (c === quote) quote = '';
      continue;
    }
    if (c === "'" || c === '"') quote = c;
    else if (c === '[') depth++;
    else if (c === ']') depth--;
    else if (depth > 0 && pattern.startsWith('//', i) && BEFORE_ROOT_PATH.has(pattern[i - 1]!)) {
      const path = rootPathAt(pattern, i);
      paths.push({ at: i, path });
      i += path.length - 1;
    }
  }
  return paths;
}

/**
 * The compiled XSLT with every path from the root inside a template's match pattern looked up by a key
 * of its own (`tlr-root-path-N`), declared at the top of the stylesheet. Nothing else changes.
 */
export function keyRootPathsInPatterns(xslt: string): string {
  const keys = new Map<string, string>();
  const rewritten = xslt.replace(/(<xsl:template\b[^>]*?\bmatch=")([^"]*)"/g, (_all, head: string, pattern: string) => {
    let out = '';
    let done = 0;
    for (const { at, path } of rootPathsInPredicates(pattern)) {
      let name = keys.get(path);
      if (!name) keys.set(path, (name = `tlr-root-path-${keys.size + 1}`));
      out += `${pattern.slice(done, at)}key('${name}', '')`;
      done = at + path.length;
    }
    return `${head}${out}${pattern.slice(done)}"`;
  });
  if (!keys.size) return xslt;
  const declarations = [...keys].map(([path, name]) => `<xsl:key name="${name}" match="${path.slice(2)}" use="''"/>`).join('\n');
  // After the root element's start tag: a top-level declaration, in the scope of the rules' namespaces.
  return rewritten.replace(/<xsl:(stylesheet|transform)\b[^>]*>/, (root) => `${root}\n${declarations}\n`);
}

// ---------------------------------------------------------------------------------------------------
// Paths from the root in the rules' expressions (decision 490)
//
// The CEN rules' context on the document element asserts some 200 times what the document holds
// anywhere (`exists(//cac:ClassifiedTaxCategory[…])`, `count(//cac:AllowanceCharge/cac:TaxCategory[…])`):
// SaxonJS walks the whole document for each, and each walk tests the name of every element. A
// 1,000-line invoice has some 40,000 elements: 200 walks of it were most of the rules' CPU. The same
// elements are found by one key of every element by its local name, which SaxonJS indexes in one walk:
// `//cac:X` is `key('tlr-local-name', 'X')[self::cac:X]`, the elements named cac:X in document order,
// exactly what `//cac:X` selects (the key searches the context node's document, as `//` does).

/** The key of every element by its local name. */
export const LOCAL_NAME_KEY = 'tlr-local-name';

/** An element's QName, as a step names it. */
const QNAME = /[A-Za-z_][\w.-]*(?::[A-Za-z_][\w.-]*)?/y;

/** The QName (prefix:local or local) at `from`, or '' when no element name starts there. */
function qnameAt(text: string, from: number): string {
  QNAME.lastIndex = from;
  const m = QNAME.exec(text);
  if (!m) return '';
  const end = from + m[0].length;
  // An axis (`descendant::`) or a function call (`name(`) is no element name.
  if (text.startsWith('::', end) || text[end] === '(') return '';
  return m[0];
}

/** The predicate starting at `from` (its `[`): up to its own `]`, quotes and nesting minded. */
function predicateAt(text: string, from: number): string {
  let depth = 0;
  let quote = '';
  for (let i = from; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === quote) quote = '';
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '[' || c === '(') depth++;
    else if (c === ']' || c === ')') {
      depth--;
      if (depth === 0) return text.slice(from, i + 1);
    }
  }
  return text.slice(from);
}

/** The text of a predicate with its quoted strings and nested brackets blanked: what its top level says. */
function topLevel(inner: string): string {
  let depth = 0;
  let quote = '';
  let out = '';
  for (const c of inner) {
    if (quote) {
      if (c === quote) quote = '';
      out += ' ';
    } else if (c === "'" || c === '"') {
      quote = c;
      out += ' ';
    } else if (c === '[' || c === '(') {
      out += depth === 0 ? c : ' ';
      depth++;
    } else if (c === ']' || c === ')') {
      depth--;
      out += depth === 0 ? c : ' ';
    } else out += depth === 0 ? c : ' ';
  }
  return out;
}

/**
 * Whether a predicate is a condition whatever its context's position: a comparison or a test at its top
 * level. Only then does `[p]` on the document's elements select what it selects on a parent's children
 * (a number, `position()` or `last()` would count among siblings there): any other predicate keeps its path.
 */
export function isConditionPredicate(predicate: string): boolean {
  const inner = predicate.slice(1, -1);
  if (/\b(position|last)\s*\(/.test(inner)) return false;
  const top = topLevel(inner);
  if (/(!?=|&lt;|&gt;|<|>)|\s(eq|ne|lt|le|gt|ge|and|or)\s/.test(top)) return true;
  const t = inner.trim();
  if (/^(not|exists|empty|boolean|true|false|contains|starts-with|ends-with|matches)\s*\(/.test(t)) return true;
  // A relative path of element names (a node test): true when it selects a node, never a number.
  return /^@?[A-Za-z_][\w.-]*(:[A-Za-z_][\w.-]*)?(\s*\/\s*@?[A-Za-z_][\w.-]*(:[A-Za-z_][\w.-]*)?)*$/.test(top.trim());
}

/** The key of every attribute by its local name. */
export const ATTRIBUTE_NAME_KEY = 'tlr-attribute-name';

const localOf = (name: string) => (name.includes(':') ? name.slice(name.indexOf(':') + 1) : name);

/**
 * The step after a `//` from the root at `from`, looked up by a key, with where it ends: an element's
 * name `cac:X` and the condition predicates after it; an attribute's `@x`; a union of element names
 * `(cac:A|cac:B)`. Anything else (`*`, a function, a positional predicate) is left as it is (undefined).
 */
function keyedStepAt(expression: string, from: number): { text: string; end: number } | undefined {
  const byName = (name: string) => `key('${LOCAL_NAME_KEY}', '${localOf(name)}')[self::${name}]`;
  if (expression[from] === '@') {
    const name = qnameAt(expression, from + 1);
    if (!name || expression[from + 1 + name.length] === '[') return undefined;
    return { text: `key('${ATTRIBUTE_NAME_KEY}', '${localOf(name)}')[self::attribute(${name})]`, end: from + 1 + name.length };
  }
  if (expression[from] === '(') {
    const close = expression.indexOf(')', from);
    const names =
      close < 0
        ? []
        : expression
            .slice(from + 1, close)
            .split('|')
            .map((n) => n.trim());
    if (!names.length || names.some((n) => !n || qnameAt(n, 0) !== n)) return undefined;
    return { text: `(${names.map(byName).join(' | ')})`, end: close + 1 };
  }
  const name = qnameAt(expression, from);
  if (!name) return undefined;
  let end = from + name.length;
  let predicates = '';
  while (expression[end] === '[') {
    const p = predicateAt(expression, end);
    if (!isConditionPredicate(p)) return undefined;
    predicates += p;
    end += p.length;
  }
  return { text: `${byName(name)}${predicates}`, end };
}

/**
 * An XPath expression (an attribute's text, escaped as written) with each `//name` from the root, and
 * the condition predicates right after it, looked up by the local-name key. Counts what it replaced.
 */
export function keyRootNameSteps(expression: string): { text: string; replaced: number } {
  let out = '';
  let replaced = 0;
  let quote = '';
  for (let i = 0; i < expression.length; i++) {
    const c = expression[i]!;
    if (quote) {
      if (c === quote) quote = '';
      out += c;
      continue;
    }
    if (c === "'" || c === '"') {
      quote = c;
      out += c;
      continue;
    }
    // A path from the root: `//` at the start of an expression or after an operator or bracket, not a step's `a//b`.
    if (expression.startsWith('//', i) && (i === 0 || BEFORE_ROOT_PATH.has(expression[i - 1]!) || expression[i - 1] === '|')) {
      const step = keyedStepAt(expression, i + 2);
      if (step) {
        out += step.text;
        replaced++;
        i = step.end - 1;
        continue;
      }
    }
    out += c;
  }
  return { text: out, replaced };
}

/** The XSLT instructions whose expression attributes are XPath the rules evaluate (not a report's literal text). */
const EXPRESSIONS =
  /(<xsl:(?:when|if)\b[^>]*?\btest=")([^"]*)"|(<xsl:(?:variable|param|with-param|value-of|sequence|for-each|apply-templates|copy-of)\b[^>]*?\bselect=")([^"]*)"/g;

/**
 * The compiled XSLT with every `//name` from the root in the rules' expressions (tests and selects; not
 * the match patterns, which 489 keys, nor a report's literal attributes) found by the local-name key,
 * declared at the top of the stylesheet. Nothing else changes.
 */
export function keyRootNamesInExpressions(xslt: string): string {
  let replaced = 0;
  const rewritten = xslt.replace(EXPRESSIONS, (all, testHead?: string, test?: string, selectHead?: string, select?: string) => {
    const head = testHead ?? selectHead!;
    const keyed = keyRootNameSteps(test ?? select!);
    replaced += keyed.replaced;
    return keyed.replaced ? `${head}${keyed.text}"` : all;
  });
  if (!replaced) return xslt;
  const declarations = `<xsl:key name="${LOCAL_NAME_KEY}" match="*" use="local-name()"/>\n<xsl:key name="${ATTRIBUTE_NAME_KEY}" match="@*" use="local-name()"/>`;
  return rewritten.replace(/<xsl:(stylesheet|transform)\b[^>]*>/, (root) => `${root}\n${declarations}\n`);
}
