// Every relative link of the README and the docs resolves: the file or folder exists, and an anchor names a
// heading of its page (as GitHub makes anchors of headings). A moved or renamed page fails here.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..', '..', '..');

/** README.md and every Markdown file under docs/. */
function pages(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : e.name.endsWith('.md') ? [join(dir, e.name)] : []));
  return [join(ROOT, 'README.md'), ...walk(join(ROOT, 'docs'))];
}

/** The text outside fenced code blocks and inline code, where a link is a link. */
const prose = (md: string) => md.replace(/^```[\s\S]*?^```$/gm, '').replace(/`[^`\n]*`/g, '');

/** GitHub's anchor of a heading: lower case, punctuation dropped, each space a hyphen; repeats get -1, -2. */
export function anchorsOf(md: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const [, text] of md.replace(/^```[\s\S]*?^```$/gm, '').matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = text!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n ? `${slug}-${n}` : slug);
  }
  return anchors;
}

/** Every relative link target of a page: [text](target) and <a href="target">, without external ones. */
function links(md: string): string[] {
  const text = prose(md);
  const targets = [...text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g), ...text.matchAll(/href="([^"]+)"/g)].map((m) => m[1]!);
  return targets.filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t));
}

describe('links in the README and docs/', () => {
  it('reads GitHub anchors as GitHub makes them', () => {
    expect([...anchorsOf('# Backups (`tlr backup`)\n## Behind a reverse proxy (`TRUST_PROXY`)\n## A, b\n## A, b\n')]).toEqual([
      'backups-tlr-backup',
      'behind-a-reverse-proxy-trust_proxy',
      'a-b',
      'a-b-1',
    ]);
  });

  it('point to files and headings that exist', () => {
    const broken: string[] = [];
    for (const page of pages()) {
      const md = readFileSync(page, 'utf8');
      for (const link of links(md)) {
        const [path, anchor] = link.split('#') as [string, string | undefined];
        const target = path ? join(dirname(page), decodeURIComponent(path)) : page;
        const where = `${relative(ROOT, page)}: ${link}`;
        if (!existsSync(target)) broken.push(`${where} (no such file)`);
        else if (anchor && statSync(target).isFile() && target.endsWith('.md') && !anchorsOf(readFileSync(target, 'utf8')).has(anchor)) {
          broken.push(`${where} (no heading #${anchor})`);
        }
      }
    }
    expect(broken).toEqual([]);
  });
});
