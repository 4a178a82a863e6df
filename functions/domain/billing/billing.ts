import type { SubscriptionStatus } from '../accounts/account';
import type { LedgerEntry } from '../accounts/ledger';

/**
 * Billing: what customers can buy (credit packs, one subscription plan), and the events of the
 * payment provider (Stripe) as the use cases see them. The adapter turns the provider's signed
 * events into these; nothing here knows Stripe's wire format.
 */

/** A credit pack, as operators configure it (the provider's price id and what it gives). */
export interface CreditPack {
  packId: string;
  /** The provider's price (Stripe `price_…`). */
  priceId: string;
  credits: number;
  /** In the currency's minor unit (cents). */
  amount: number;
  /** ISO 4217, lower case (Stripe's spelling). */
  currency: string;
}

export const PLAN_INTERVALS = ['day', 'week', 'month', 'year'] as const;
export type PlanInterval = (typeof PLAN_INTERVALS)[number];

/** The subscription plan: paid access and an active subscription while it is paid. */
export interface SubscriptionPlan {
  priceId: string;
  amount: number;
  currency: string;
  interval: PlanInterval;
}

export interface BillingCatalogue {
  packs: readonly CreditPack[];
  plan?: SubscriptionPlan;
}

/**
 * The provider's subscription statuses, as ours (CONTRACT.md). `incomplete` (the first payment
 * is pending) changes nothing; `paused` (a trial ended without a payment method) stops access
 * as `past_due` does, until it resumes.
 */
const STATUS_MAP: Readonly<Record<string, SubscriptionStatus>> = {
  active: 'active',
  trialing: 'active',
  past_due: 'past_due',
  unpaid: 'past_due',
  paused: 'past_due',
  canceled: 'canceled',
  incomplete_expired: 'canceled',
};

export function subscriptionStatusOf(providerStatus: string): SubscriptionStatus | undefined {
  return STATUS_MAP[providerStatus];
}

/**
 * Which of two subscription events of the same second wins: the one further along a
 * subscription's life (the provider's timestamps are whole seconds, so a tie is possible).
 */
export function statusRank(status: SubscriptionStatus): number {
  return { none: 0, active: 1, past_due: 2, canceled: 3 }[status];
}

/** A verified event of the payment provider, reduced to what changes an account. */
export type BillingEvent =
  /** A Checkout Session paid: for a pack, its credits; for the plan, paid access. */
  | {
      type: 'checkout_paid';
      eventId: string;
      checkoutId: string;
      /** Ours, put in the session when we created it (client_reference_id / metadata). */
      accountId?: string;
      customerId?: string;
      /** Present for a pack's session. */
      purchase?: { packId: string; credits?: number; paymentId?: string };
    }
  /** Any other successful payment (a subscription's invoice); `payment` when it says what was paid. */
  | { type: 'payment_succeeded'; eventId: string; accountId?: string; customerId?: string; payment?: InvoicePayment }
  | {
      type: 'subscription_changed';
      eventId: string;
      accountId?: string;
      customerId?: string;
      /** The provider's status (subscriptionStatusOf maps it). */
      providerStatus: string;
      /** When the provider emitted the event, in epoch seconds: newer never loses to older. */
      occurredAt: number;
    }
  /** A payment refunded (in part: `fraction` of it so far) or disputed. */
  | { type: 'payment_reversed'; eventId: string; paymentId: string; reason: 'refund' | 'dispute'; fraction: number }
  /** A type we do not act on. */
  | { type: 'ignored'; eventId: string; eventType: string };

/** What an invoice says was paid (a subscription's payment). */
export interface InvoicePayment {
  /** The provider's invoice (Stripe `in_…`): one payment per invoice, however often it is announced. */
  invoiceId: string;
  /** In the currency's minor unit. */
  amount: number;
  currency: string;
  /** When it was paid, epoch seconds (the provider's). */
  paidAt: number;
}

/** A subscription's payment as the account's purchase history lists it (packs are in the ledger). */
export interface SubscriptionPayment {
  invoiceId: string;
  accountId: string;
  amount: number;
  currency: string;
  /** ISO 8601. */
  paidAt: string;
}

/** How many subscription payments GET /billing lists (newest first): a few years of a monthly plan. */
export const SUBSCRIPTION_PAYMENTS_SHOWN = 36;

/** A pack bought: its record, keyed by the Checkout Session, so it is granted once. */
export interface Purchase {
  checkoutId: string;
  accountId: string;
  packId: string;
  credits: number;
  /** The payment its refunds and disputes name (Stripe PaymentIntent). */
  paymentId?: string;
  /** Credits already claimed back by reversals (taken or short). */
  reversedCredits: number;
  createdAt: string;
}

/** How an event ended: what the webhook answers and logs. */
export type BillingEventResult = 'applied' | 'duplicate' | 'stale' | 'ignored' | 'unknown_account';

/** A reversal's outcome: what was taken from the balance and what it lacked. */
export interface Reversal {
  taken: number;
  shortfall: number;
}

/** The credits a reversal of `fraction` of a payment claims in all (rounded up: a refund takes at least what it paid for). */
export function reversalDue(purchase: Pick<Purchase, 'credits'>, fraction: number): number {
  const bounded = Math.min(1, Math.max(0, fraction));
  return Math.min(purchase.credits, Math.ceil(purchase.credits * bounded));
}

export type ReversalEntry = (credits: number) => LedgerEntry;
