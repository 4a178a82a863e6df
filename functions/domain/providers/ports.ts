/** What provider routing needs from shared storage: the budget of creates (the circuit's store is below). */

/**
 * The provider's request budget, shared by every function: turns at most `perSecond` a
 * second, evenly spaced, so no burst of ours becomes the provider's 429s.
 */
export interface ProviderBudget {
  /**
   * Reserves the next free turn for `provider` no later than `maxWaitMs` after `now` (ms since
   * the epoch) and returns its time; undefined when every turn until then is taken.
   */
  reserve(provider: string, perSecond: number, now: number, maxWaitMs: number): Promise<number | undefined>;
}

/** A provider's circuit as stored (times in ms since the epoch). */
export interface CircuitRecord {
  /** Consecutive failures since the last answer. */
  failures: number;
  /** Set while the circuit is open (and after, until a probe closes it): skipped before this time. */
  openUntil?: number;
  /** The claimed probe's deadline, while one is out. */
  probeUntil?: number;
}

/** Where circuits live: one item per provider, every change a single conditional write. */
export interface CircuitStore {
  /** The provider's circuit (strongly consistent); `{ failures: 0 }` when it has none. */
  read(provider: string): Promise<CircuitRecord>;
  /** Adds one consecutive failure atomically and returns the circuit after it. */
  addFailure(provider: string): Promise<CircuitRecord>;
  /**
   * Opens the circuit until `until`, only if its `openUntil` is still `seenOpenUntil` (unset:
   * it was closed), so racing failures open it once. Clears any probe. True if this call opened it.
   */
  open(provider: string, seenOpenUntil: number | undefined, until: number): Promise<boolean>;
  /**
   * Claims the half-open circuit's one probe: true for exactly one caller while `openUntil` is
   * unchanged and no unexpired probe (`probeUntil` > now) is out.
   */
  claimProbe(provider: string, openUntil: number, now: number, probeUntil: number): Promise<boolean>;
  /** Closes the circuit: no failures, not open, no probe. */
  close(provider: string): Promise<void>;
}
