import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * A clone has only this repository: every relative link in README.md and docs/*.md must name a
 * file inside it (and an anchor into a Markdown file, a heading there), and no page may send a
 * reader to files beside the repository (the workspace's ../shared/ pages).
 */
const ROOT = path.resolve(__dirname, '..', '..');
const PAGES = ['README.md', ...readdirSync(path.join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];

/** Markdown links and images, outside code blocks: [text](target) and ![alt](target). */
function linksOf(markdown: string): string[] {
  const prose = markdown.replace(/^```[\s\S]*?^```/gm, '');
  return [...prose.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((match) => match[1]!);
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function anchorsOf(markdown: string): Set<string> {
  const prose = markdown.replace(/^```[\s\S]*?^```/gm, '');
  return new Set(
    [...prose.matchAll(/^#{1,6}\s+(.+)$/gm)].map((match) =>
      match[1]!
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, '')
        .replace(/\s/g, '-'),
    ),
  );
}

describe.each(PAGES)('%s', (page) => {
  const text = readFileSync(path.join(ROOT, page), 'utf8');

  it('links only to files inside the repository that exist', () => {
    const broken: string[] = [];
    for (const link of linksOf(text)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue; // https:, mailto:...
      const [target = '', anchor] = link.split('#');
      const file = target === '' ? path.join(ROOT, page) : path.resolve(ROOT, path.dirname(page), decodeURIComponent(target));
      const inside = file === ROOT || file.startsWith(`${ROOT}${path.sep}`);
      if (!inside || !existsSync(file)) {
        broken.push(`${link} (${inside ? 'missing' : 'outside the repository'})`);
        continue;
      }
      if (anchor && file.endsWith('.md') && !anchorsOf(readFileSync(file, 'utf8')).has(anchor)) broken.push(`${link} (no such heading)`);
    }
    expect(broken).toEqual([]);
  });

  it('does not send readers to pages beside the repository', () => {
    expect(text.match(/\.\.\/shared\/\S*/g) ?? []).toEqual([]);
  });
});
