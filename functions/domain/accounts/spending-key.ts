import type { Principal } from './principal';

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
export interface MonthlyKeySpend {
  keyId: string;
  /** `yyyy-mm`, the month the charge counts in (a refund gives it back to the same month). */
  month: string;
  /** Absent: no limit (the spend is still counted). */
  limit?: number;
  /** The start's end user: its spend through this key this month is counted too (and limited by `endUserLimit`). */
  endUser?: string;
  endUserLimit?: number;
}

/** The key a start is made through, as the principal carries it (a session spends through none). */
export interface SpendingKey {
  keyId: string;
  monthlySpendLimit?: number;
  /** Per end user and month: with it, every start through the key names its end user. */
  endUserMonthlySpendLimit?: number;
}

/** The key whose spend a principal's starts count in: an API key's own; a session has none. */
export function spendingKeyOf(principal: Principal): SpendingKey | undefined {
  if (principal.kind !== 'apiKey') return undefined;
  return {
    keyId: principal.keyId,
    ...(principal.monthlySpendLimit !== undefined && { monthlySpendLimit: principal.monthlySpendLimit }),
    ...(principal.endUserMonthlySpendLimit !== undefined && { endUserMonthlySpendLimit: principal.endUserMonthlySpendLimit }),
  };
}
