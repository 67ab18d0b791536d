// The Peppol rules as SchXslt compiles them, made to cost in proportion to a document's lines. A rule
// whose context names a path from the document's root inside its predicate (the Swedish rules:
// `//cac:TaxCategory[//cac:AccountingSupplierParty/cac:Party[…] and cbc:ID = 'S'] | //cac:ClassifiedTaxCategory[…]`)
// makes SaxonJS scan the whole document once for every tax category it tries the pattern on, one per
// line: a 1,000-line invoice took 51 s of CPU. The same nodes are found by an xsl:key, which SaxonJS
// indexes once per document. key() answers the nodes the path selects, in document order, so the
// rules say exactly what they said (the same report, byte for byte, on every official example).

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
