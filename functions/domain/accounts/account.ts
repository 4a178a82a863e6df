/** Accounts: who pays, and what they may use. */

export const SUBSCRIPTION_STATUSES = ['none', 'active', 'past_due', 'canceled'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

export function isSubscriptionStatus(value: string): value is SubscriptionStatus {
  return (SUBSCRIPTION_STATUSES as readonly string[]).includes(value);
}

export interface Account {
  accountId: string;
  credits: number;
  paidAccess: boolean;
  subscriptionStatus: SubscriptionStatus;
  /** How many tasks of each kind the account has started: the next history position - 1. */
  taskCounts: { video: number; image: number };
  createdAt: string;
  updatedAt: string;
  /** Outputs of tasks completed longer ago than this are deleted (retention.ts); absent: kept for good. */
  outputRetentionDays?: number;
}

/** Models marked "Subscription: Required" need paid access and an active subscription. */
export function hasPaidAccess(account: Account): boolean {
  return account.paidAccess && account.subscriptionStatus === 'active';
}

/** An account with that id exists already: a concurrent first use (a test balance opening) got there first. */
export class AccountExistsError extends Error {
  constructor(accountId: string) {
    super(`Account ${accountId} already exists.`);
    this.name = 'AccountExistsError';
  }
}
