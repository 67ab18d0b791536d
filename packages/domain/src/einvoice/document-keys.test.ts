import { describe, expect, it } from 'vitest';
import { isConditionPredicate, keyRootNamesInExpressions, keyRootNameSteps, keyRootPathsInPatterns } from './document-keys.ts';

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

describe('paths from the root in the rules’ expressions, looked up by the local-name key (decision 490)', () => {
  const byName = (n: string, l: string) => `key('tlr-local-name', '${l}')[self::${n}]`;

  it('replaces //name (with its condition predicates) at the start of an expression or after an operator, and leaves strings and a//b alone', () => {
    expect(keyRootNameSteps("exists(//cac:TaxCategory[cac:TaxScheme/normalize-space(upper-case(cbc:ID))='VAT']/cbc:ID[normalize-space(.) = 'AE'])").text).toBe(
      `exists(${byName('cac:TaxCategory', 'TaxCategory')}[cac:TaxScheme/normalize-space(upper-case(cbc:ID))='VAT']/cbc:ID[normalize-space(.) = 'AE'])`,
    );
    expect(keyRootNameSteps('//cac:AllowanceCharge[cbc:ChargeIndicator=false()]/cac:TaxCategory').text).toBe(
      `${byName('cac:AllowanceCharge', 'AllowanceCharge')}[cbc:ChargeIndicator=false()]/cac:TaxCategory`,
    );
    expect(keyRootNameSteps('sum(//(cac:InvoiceLine|cac:CreditNoteLine)/xs:decimal(cbc:LineExtensionAmount))').text).toBe(
      `sum((${byName('cac:InvoiceLine', 'InvoiceLine')} | ${byName('cac:CreditNoteLine', 'CreditNoteLine')})/xs:decimal(cbc:LineExtensionAmount))`,
    );
    expect(keyRootNameSteps('not(//@unitCodeListID)').text).toBe("not(key('tlr-attribute-name', 'unitCodeListID')[self::attribute(unitCodeListID)])");
    for (const kept of ["concat('//cac:X', a//b)", 'cac:Item//cac:Kept', 'count(//*)', '//cac:X[1]', '//cac:X[last()]', '//cac:X[$n]', '//descendant::cac:X'])
      expect(keyRootNameSteps(kept)).toEqual({ text: kept, replaced: 0 });
  });

  it('keys only conditions: a predicate that could count among siblings keeps its path', () => {
    expect(isConditionPredicate("[cbc:ID = 'S']")).toBe(true);
    expect(isConditionPredicate('[cbc:ChargeIndicator=false()]')).toBe(true);
    expect(isConditionPredicate('[not(cbc:ID)]')).toBe(true);
    expect(isConditionPredicate('[cac:Item/cbc:Name]')).toBe(true);
    expect(isConditionPredicate('[1]')).toBe(false);
    expect(isConditionPredicate('[position() = 1]')).toBe(false);
    expect(isConditionPredicate('[$i]')).toBe(false);
    expect(isConditionPredicate('[count(x)]')).toBe(false);
  });

  it('rewrites tests and selects, not patterns nor a report’s literal attributes, and declares the keys once', () => {
    const xslt = stylesheet(
      `<xsl:template match="//cac:InvoiceLine" mode="m"><xsl:choose><xsl:when test="exists(//cac:Party)"/>` +
        `<xsl:otherwise><svrl:failed-assert test="exists(//cac:Party)"/></xsl:otherwise></xsl:choose>` +
        `<xsl:if test="//cac:Party"/><xsl:value-of select="count(//cac:Party)"/></xsl:template>`,
    );
    const keyed = keyRootNamesInExpressions(xslt);
    expect(keyed).toContain(`<xsl:when test="exists(${byName('cac:Party', 'Party')})"/>`);
    expect(keyed).toContain(`<xsl:if test="${byName('cac:Party', 'Party')}"/>`);
    expect(keyed).toContain(`<xsl:value-of select="count(${byName('cac:Party', 'Party')})"/>`);
    expect(keyed).toContain('<svrl:failed-assert test="exists(//cac:Party)"/>');
    expect(keyed).toContain('match="//cac:InvoiceLine"');
    expect(keyed.match(/<xsl:key name="tlr-local-name" match="\*" use="local-name\(\)"\/>/g)).toHaveLength(1);
    expect(keyed.match(/<xsl:key name="tlr-attribute-name" match="@\*" use="local-name\(\)"\/>/g)).toHaveLength(1);
    expect(keyRootNamesInExpressions(stylesheet('<xsl:if test="a//b"/>'))).toBe(stylesheet('<xsl:if test="a//b"/>'));
  });
});
