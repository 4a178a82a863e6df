import { ServiceBusyError } from '#domain/shared/errors';
import { TransactionRefused } from './transaction';

/**
 * One way to try a DynamoDB write again (issue 32): every loop that waits for another writer
 * (a transaction holding an item, a ledger or feed position taken first) goes through
 * `withRetries`, with one set of limits and full jitter, so no caller spins or gives up early.
 */
/**
 * As many tries as the most patient loop before (the feed's 50). Bounded by tries only, as every
 * loop was before: a time bound (5 s, then 20 s) let slow calls on a loaded machine end the loop
 * after a few tries, so 40 concurrent grants or feed appends on DynamoDB Local gave up.
 */
export const RETRY_LIMITS = { baseMs: 5, capMs: 200, maxAttempts: 50 } as const;

/** What an attempt answers when it should be tried again after a pause. */
export const AGAIN = Symbol('again');

/**
 * The bound was reached: another writer kept the item (or the position) for too long. The API
 * answers it as the busy service it is (503, retry in a second), never a 500; what was tried is
 * for the logs, not the client.
 */
export class RetriesExhaustedError extends ServiceBusyError {
  readonly detail: string;

  constructor(what: string, attempts: number) {
    super();
    this.name = 'RetriesExhaustedError';
    this.detail = `${what}: still contended after ${attempts} attempts.`;
  }
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs `attempt` until it answers something other than AGAIN, sleeping random() × min(cap,
 * base × 2^round) between tries; RetriesExhaustedError after maxAttempts.
 * The error an attempt throws ends the loop (a conflict to retry is the attempt's to map to AGAIN).
 */
export async function withRetries<T>(
  what: string,
  attempt: (round: number) => Promise<T | typeof AGAIN>,
  sleep: (ms: number) => Promise<void> = defaultSleep,
): Promise<T> {
  for (let round = 0; ; round += 1) {
    const result = await attempt(round);
    if (result !== AGAIN) return result;
    if (round + 1 >= RETRY_LIMITS.maxAttempts) {
      throw new RetriesExhaustedError(what, round + 1);
    }
    await sleep(Math.random() * Math.min(RETRY_LIMITS.capMs, RETRY_LIMITS.baseMs * 2 ** Math.min(round, 10)));
  }
}

/**
 * Another writer held an item: a single write refused while a transaction runs on its item
 * (TransactionConflictException, which the SDK does not retry), or a transaction cancelled
 * because of another one (a TransactionConflict reason).
 */
export function isConflict(error: unknown): boolean {
  if (error instanceof TransactionRefused) return error.conflict;
  if (!(error instanceof Error)) return false;
  if (error.name === 'TransactionConflictException') return true;
  const reasons = (error as Error & { CancellationReasons?: { Code?: string }[] }).CancellationReasons;
  return error.name === 'TransactionCanceledException' && (reasons ?? []).some((reason) => reason.Code === 'TransactionConflict');
}

/** `write` again while it meets another writer (isConflict); any other outcome is its own. */
export function retryOnConflict<T>(what: string, write: () => Promise<T>): Promise<T> {
  return withRetries(what, async () => {
    try {
      return await write();
    } catch (error) {
      if (isConflict(error)) return AGAIN;
      throw error;
    }
  });
}
