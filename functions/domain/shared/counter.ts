/** An atomic counter per key and window: the rate limit's and the provider budget's. */

export interface RateWindow {
  /** Unix minute number: floor(seconds / 60). */
  id: number;
  /** Unix seconds at which the window ends and the count starts again. */
  resetAt: number;
}

/** Consumes one request from a store that counts atomically and refuses past `limit`. */
export interface RateCounter {
  /** Returns the count after this request, or undefined when the window is already full. */
  increment(keyId: string, window: RateWindow, limit: number): Promise<number | undefined>;
  /**
   * Takes count `ticket` at once, skipping the ones before it (used by nobody), if the count is
   * still below it: true for one caller. The caller keeps `ticket` within its limit.
   */
  claimAt(keyId: string, window: RateWindow, ticket: number): Promise<boolean>;
}
