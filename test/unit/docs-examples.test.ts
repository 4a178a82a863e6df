import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The CLI examples in README.md and docs/client.md, run as written from the repository's root:
 * what they download goes to the git-ignored out/ (a file in the root leaves the tree dirty, and
 * .ci/run fails on that), and a local file they upload exists where they say.
 */
const ROOT = path.resolve(__dirname, '..', '..');
const DOCS = ['README.md', 'docs/client.md'];
const examples = DOCS.flatMap((doc) =>
  readFileSync(path.join(ROOT, doc), 'utf8')
    .split('\n')
    .filter((line) => /(npx vidgen|npm run -s vidgen --) (generate|image|status)\b/.test(line))
    .map((line) => ({ doc, line })),
);

describe('vidgen examples in the docs', () => {
  it('exist', () => {
    expect(examples.length).toBeGreaterThanOrEqual(6);
  });

  it.each(examples)('$doc: $line writes under out/ and uploads a file that exists', ({ line }) => {
    for (const [, file] of line.matchAll(/--out (\S+)/g)) expect(file).toMatch(/^out\//);
    for (const [, file] of line.matchAll(/--(?:image|end-image|ref) (\S+)/g)) {
      if (!/^https?:\/\//.test(file!)) expect(existsSync(path.join(ROOT, file!))).toBe(true);
    }
  });
});
