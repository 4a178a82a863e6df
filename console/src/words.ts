import type { SubscriptionStatus } from '#client';

/** Counts and statuses in words (unit-tested in test/unit/console-words.test.ts). */

/** "1 image", "2 images", "1,200 credits": the noun agrees with the count. */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count.toLocaleString('en-US')} ${count === 1 ? one : many}`;
}

/** The API's subscription statuses as a holder reads them. */
const SUBSCRIPTION_LABELS: Readonly<Record<SubscriptionStatus, string>> = {
  none: 'None',
  active: 'Active',
  past_due: 'Past due: the last payment failed',
  canceled: 'Canceled',
};

export function subscriptionLabel(status: SubscriptionStatus): string {
  return SUBSCRIPTION_LABELS[status] ?? status;
}
