/**
 * README.md's walk-through as one bash script: the ```bash blocks between two headings, with
 * the placeholders the reader fills from the `npm start` banner filled in, and what each command
 * prints kept for comparison with the output the README shows under it.
 *
 * The README's convention: the `# ` lines right under a command (no blank line between) are what
 * it prints, stdout and stderr together. In them `…` (or `...`) stands for any text, ids, keys,
 * request ids, times and ports may differ (placeholders.ts's `normalize`), whitespace does not
 * count (long JSON is wrapped), and a note at the end of a line after four or more spaces, in
 * parentheses, is for the reader only (`normalize`, `outputMatches`). A comment that explains
 * the next command sits above it, or after a blank line.
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

/** What check:readme's xtrace lines start with, so they can be told from a command's output. */
export const TRACE_PREFIX = '(check:readme) ';

export function readmeBlocks(readme: string): string[] {
  const start = readme.indexOf(WALKTHROUGH_FROM);
  const end = readme.indexOf(WALKTHROUGH_TO, start);
  if (start < 0 || end < 0) throw new Error(`README.md has no "${WALKTHROUGH_FROM}" ... "${WALKTHROUGH_TO}" section.`);
  return [...readme.slice(start, end).matchAll(/^```bash\n([\s\S]*?)^```/gm)].map((match) => match[1]!);
}

/** One command of the walk-through (its lines, continuations and here-document included) and the output the README shows for it. */
export interface ReadmeCommand {
  lines: string[];
  /** The `# ` lines under it, without the `# `; empty when the README shows none. */
  expected: string[];
  skipped: boolean;
}

/** The walk-through's commands in order; comment lines above a command are left out. */
export function readmeCommands(readme: string): ReadmeCommand[] {
  const commands: ReadmeCommand[] = [];
  for (const block of readmeBlocks(readme)) {
    const lines = block.split('\n');
    let i = 0;
    while (i < lines.length) {
      const line = lines[i]!;
      if (line.trim() === '' || line.startsWith('#')) {
        i += 1;
        continue;
      }
      const command = [line];
      const heredoc = /<<-?\s*'?"?(\w+)'?"?/.exec(line)?.[1];
      i += 1;
      if (heredoc) {
        while (i < lines.length && lines[i] !== heredoc) command.push(lines[i++]!);
        if (i < lines.length) command.push(lines[i++]!);
      } else {
        while (command.at(-1)!.endsWith('\\') && i < lines.length) command.push(lines[i++]!);
      }
      const expected: string[] = [];
      while (i < lines.length && /^#( |$)/.test(lines[i]!)) expected.push(lines[i++]!.slice(2));
      commands.push({ lines: command, expected, skipped: README_SKIPPED.some((pattern) => pattern.test(command[0]!)) });
    }
  }
  return commands;
}

export interface ReadmeScript {
  script: string;
  /** The commands whose output the README shows and the script keeps, each in `<outputDir>/<index>.out`. */
  compared: { index: number; command: ReadmeCommand }[];
}

/**
 * `values` replace the README's `NAME=placeholder` lines (KEY=vg_live_... becomes KEY=<the key>).
 * With `outputDir`, each command the README shows output for writes what it prints there too.
 */
export function readmeScript(readme: string, values: Record<string, string>, outputDir?: string): ReadmeScript {
  const filled = new Set<string>();
  const compared: ReadmeScript['compared'] = [];
  const lines = [`PS4='+${TRACE_PREFIX}'`];
  readmeCommands(readme).forEach((command, index) => {
    const [first, ...rest] = command.lines;
    lines.push(...README_PREPARED.filter(({ before }) => before.test(first!)).map(({ run }) => run));
    const assignment = /^([A-Z_]+)=(\S+)(\s+#.*)?$/.exec(first!);
    const name = assignment?.[1];
    if (name && name in values && !assignment[2]!.startsWith('$(')) {
      filled.add(name);
      lines.push(`${name}='${values[name]}'`);
      return;
    }
    if (command.skipped) {
      lines.push(...command.lines.map((line) => `# (not run by check:readme) ${line}`));
      return;
    }
    if (outputDir === undefined || command.expected.length === 0) {
      lines.push(...command.lines);
      return;
    }
    // A group, so a command of several lines (a here-document) is kept whole; stderr with stdout, as a terminal shows them.
    compared.push({ index, command });
    lines.push(`{ ${first}`, ...rest, `} 2>&1 | tee '${outputDir}/${index}.out'`);
  });
  const unfilled = Object.keys(values).filter((name) => !filled.has(name));
  if (unfilled.length) throw new Error(`README.md's walk-through no longer sets ${unfilled.join(', ')} from the banner.`);
  return { script: lines.join('\n'), compared };
}

/** Ids, keys, request ids, times and ports: what differs from run to run, the same placeholder on both sides. */
export function normalize(text: string): string {
  return text
    .replace(/\b(vid|img|acc|key|evt|whk|upl|sim|del)_[0-9A-HJKMNP-TV-Z]{26}\b/g, '$1_<id>')
    .replace(/\bvg_(live|test)_[0-9A-Za-z]{40}\b/g, 'vg_$1_<key>')
    .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g, '<uuid>')
    .replace(/\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z\b/g, '<time>')
    .replace(/\b\d{4}-\d{2}-\d{2} \d{2}:\d{2}Z/g, '<time>')
    .replace(/\b1\d{9}\b/g, '<epoch>')
    .replace(/\/\/(127\.0\.0\.1|localhost):\d+/g, '//$1:<port>');
}

/** A reader's note at the end of a line shown as output: four or more spaces, then (…). */
const NOTE = /\s{4,}\([^()]*(\([^()]*\)[^()]*)*\)\s*$/;

/** Whether `actual` (what the command printed) is what the README shows (`expected`, its `# ` lines). */
export function outputMatches(expected: readonly string[], actual: string): boolean {
  const shown = expected.map((line) => line.replace(NOTE, '')).join('\n');
  const squash = (text: string) => normalize(text).replace(/\s+/g, '');
  const pattern = squash(shown)
    .split(/…|\.\.\./)
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('[\\s\\S]*?');
  const printed = squash(printedOutput(actual));
  return new RegExp(`^${pattern}$`).test(printed);
}

const TRACE_LINE = new RegExp(`^\\++${TRACE_PREFIX.replace(/[()]/g, '\\$&')}`);

/** The printed output less check:readme's own trace lines (bash -x writes them to the same stderr). */
export function printedOutput(actual: string): string {
  return actual
    .split('\n')
    .filter((line) => !TRACE_LINE.test(line))
    .join('\n')
    .trimEnd();
}
