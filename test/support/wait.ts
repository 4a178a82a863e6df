/**
 * Waiting in tests: on a condition, with a deadline, never on the clock alone. `pause` is for
 * the few tests where time passing is itself what is tested (a visibility timeout, a window).
 */
export async function pollUntil<T>(
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  options: { timeoutMs?: number; everyMs?: number; what?: string } = {},
): Promise<T> {
  const { timeoutMs = 10_000, everyMs = 50, what = 'the condition' } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}.`);
    await pause(everyMs);
  }
}

/** Lets `ms` milliseconds pass (only where the passing of time is what a test is about). */
export const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
