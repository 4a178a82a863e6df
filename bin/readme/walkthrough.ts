/**
 * README.md's walk-through as one bash script: the ```bash blocks between two headings, with
 * the placeholders the reader fills from the `npm start` banner filled in.
 */
export const WALKTHROUGH_FROM = '## Try it with curl';
export const WALKTHROUGH_TO = '## Configuration';

/** Lines a script cannot run: they open a viewer, wait for Ctrl-C, or need AWS. */
export const README_SKIPPED: readonly RegExp[] = [/^xdg-open /, /webhooks listen/, /--aws\b/];

/**
 * Lines the script runs before a README line that matches. The rate-limit demo sends its requests
 * within one window aligned to the minute: it starts with 10 s of the minute left, or a run that
 * crossed the minute would see no 429.
 */
export const README_PREPARED: readonly { before: RegExp; run: string }[] = [
  { before: /^for i in \$\(seq \d+\).*\$SLOW\b/, run: 'while [ $(( $(date +%s) % 60 )) -ge 50 ]; do sleep 1; done # (check:readme) room in the minute' },
];

export function readmeBlocks(readme: string): string[] {
  const start = readme.indexOf(WALKTHROUGH_FROM);
  const end = readme.indexOf(WALKTHROUGH_TO, start);
  if (start < 0 || end < 0) throw new Error(`README.md has no "${WALKTHROUGH_FROM}" ... "${WALKTHROUGH_TO}" section.`);
  return [...readme.slice(start, end).matchAll(/^```bash\n([\s\S]*?)^```/gm)].map((match) => match[1]!);
}

/** `values` replace the README's `NAME=placeholder` lines (KEY=vg_live_... becomes KEY=<the key>). */
export function readmeScript(readme: string, values: Record<string, string>): string {
  const filled = new Set<string>();
  const lines = readmeBlocks(readme)
    .join('\n')
    .split('\n')
    .flatMap((line) => [...README_PREPARED.filter(({ before }) => before.test(line)).map(({ run }) => run), line])
    .map((line) => {
      const assignment = /^([A-Z_]+)=(\S+)(\s+#.*)?$/.exec(line);
      const name = assignment?.[1];
      if (name && name in values && !assignment[2]!.startsWith('$(')) {
        filled.add(name);
        return `${name}='${values[name]}'`;
      }
      return README_SKIPPED.some((pattern) => pattern.test(line)) ? `# (not run by check:readme) ${line}` : line;
    });
  const unfilled = Object.keys(values).filter((name) => !filled.has(name));
  if (unfilled.length) throw new Error(`README.md's walk-through no longer sets ${unfilled.join(', ')} from the banner.`);
  return lines.join('\n');
}
