import { describe, expect, it } from 'vitest';
import { keyRootPathsInPatterns } from './document-keys.ts';

const stylesheet = (templates: string) => `<xsl:transform xmlns:xsl="http://www.w3.org/1999/XSL/Transform" version="2.0">\n${templates}\n</xsl:transform>`;

describe('paths from the root in the rules’ patterns, looked up by keys', () => {
  it('replaces each path from the root inside a predicate by a key of its own, once per distinct path, and declares the keys', () => {
    const se = "//cac:AccountingSupplierParty/cac:Party[cac:PostalAddress/cac:Country/cbc:IdentificationCode = 'SE']";
    const xslt = stylesheet(
      `<xsl:template match="//cac:TaxCategory[${se} and cbc:ID = 'S'] | //cac:ClassifiedTaxCategory[${se} and cbc:ID = 'S']" priority="52" mode="m">` +
        `<xsl:value-of select="//cac:Kept[//cac:InSelect]"/></xsl:template>\n` +
        `<xsl:template match="cac:InvoiceLine[a//b]" mode="m"/>`,
    );
    const keyed = keyRootPathsInPatterns(xslt);
    expect(keyed).toContain(
      `<xsl:template match="//cac:TaxCategory[key('tlr-root-path-1', '') and cbc:ID = 'S'] | //cac:ClassifiedTaxCategory[key('tlr-root-path-1', '') and cbc:ID = 'S']"`,
    );
    expect(keyed).toContain(`<xsl:key name="tlr-root-path-1" match="${se.slice(2)}" use="''"/>`);
    expect(keyed.match(/<xsl:key /g)).toHaveLength(1);
    // A select expression, a step's a//b and the pattern's own start are left as they are.
    expect(keyed).toContain('select="//cac:Kept[//cac:InSelect]"');
    expect(keyed).toContain('match="cac:InvoiceLine[a//b]"');
  });

  it('leaves a stylesheet without such a path as it is', () => {
    const xslt = stylesheet('<xsl:template match="//*[not(*) and not(normalize-space())]" mode="m"/>');
    expect(keyRootPathsInPatterns(xslt)).toBe(xslt);
  });
});
