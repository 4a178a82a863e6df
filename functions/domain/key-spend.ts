/**
 * Per-key monthly spend limits (CONTRACT.md, "Self-serve API keys"): the credits charged through
 * a key in the current UTC calendar month, less refunds of those charges, never exceed its limit.
 * The store counts every key's spend in one item per key and month (`spent_this_month` of every
 * key), reserved in the start's path with the limit as its condition; a refund gives it back to
 * the month its charge counted in.
 */

/** `yyyy-mm` of an instant, in UTC: the month a charge counts in. */
export function spendMonthOf(at: Date): string {
  return at.toISOString().slice(0, 7);
}

/** What a start through an API key tells the store, so it counts (and limits) the key's spend. */
export interface KeySpend {
  keyId: string;
  /** `yyyy-mm`, the month the charge counts in (a refund gives it back to the same month). */
  month: string;
  /** Absent: no limit (the spend is still counted). */
  limit?: number;
}
