import type { SubscriptionStatus, VideoTask } from '#client';

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

/** A delivery to the customer's storage in words: "delivered 17:02:31 (1 attempt)", "failed after 1 attempt: HTTP 403 (AccessDenied)". */
export function deliveryLine(delivery: NonNullable<VideoTask['delivery']>, time: (iso: string | null) => string): string {
  const attempts = plural(delivery.attempts, 'attempt');
  if (delivery.status === 'delivered') return `delivered ${time(delivery.delivered_at)} (${attempts})`;
  if (delivery.status === 'failed') return `failed after ${attempts}${delivery.last_error ? `: ${delivery.last_error}` : ''}`;
  return delivery.attempts === 0 ? 'pending' : `pending, retrying (${attempts} so far${delivery.last_error ? `; last: ${delivery.last_error}` : ''})`;
}
