/**
 * node:util parseArgs's own messages are written for script authors (an unknown option's ends
 * with unbalanced quotes and advice about positionals); the CLIs say what a user needs instead.
 */
export function describeParseArgsError(error: unknown, options: readonly string[]): string {
  const message = error instanceof Error ? error.message : String(error);
  if ((error as { code?: unknown } | null)?.code !== 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return message;
  const given = /'(-{1,2}[^'=\s]+)/.exec(message)?.[1] ?? message;
  const suggestion = closest(given.replace(/^-+/, ''), options);
  return `Unknown option ${given}.${suggestion ? ` Did you mean --${suggestion}?` : ''}`;
}

/** The option a typo most likely meant: at most two edits away, and fewer than half its letters. */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of candidates) {
    const distance = editDistance(word.toLowerCase(), name);
    if (distance <= Math.min(2, Math.floor(name.length / 2)) && (!best || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}

/** Damerau-Levenshtein (optimal string alignment): a swapped pair of letters counts as one edit. */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, d[i - 2]![j - 2]! + 1);
      d[i]![j] = value;
    }
  }
  return d[a.length]![b.length]!;
}
