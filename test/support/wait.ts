/**
 * Waiting in tests: on a condition, with a deadline, never on the clock alone (issue 33: a sleep
 * is a guess a loaded 2-core CI machine can miss). Where time passing is itself what is tested
 * (a queue's delay, a visibility timeout), inject the clock instead.
 */

/** What pollUntil throws at its deadline. */
export class PollTimeoutError extends Error {
  override name = 'PollTimeoutError';
}

/** The probe's first value that is neither undefined nor false; throws a PollTimeoutError at the deadline. */
export async function pollUntil<T>(
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  options: { timeoutMs?: number; everyMs?: number; what?: string } = {},
): Promise<T> {
  const { timeoutMs = 10_000, everyMs = 50, what = 'the condition' } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new PollTimeoutError(`Timed out after ${timeoutMs} ms waiting for ${what}.`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/**
 * Reads `probe` until `done` holds for what it read, and returns that; at the deadline, the last
 * read instead of an error, so that the caller's expectation shows what there was.
 */
export async function pollFor<T>(
  probe: () => Promise<T> | T,
  done: (value: T) => boolean,
  options: { timeoutMs?: number; everyMs?: number } = {},
): Promise<T> {
  let last: { value: T } | undefined;
  try {
    await pollUntil(async () => {
      last = { value: await probe() };
      return done(last.value);
    }, options);
  } catch (error) {
    if (!(error instanceof PollTimeoutError)) throw error;
  }
  return last!.value;
}
