import type { SubscriptionStatus } from '../accounts/account';
import type { AuditEntry } from '../shared/audit';
import type { LedgerEntry } from '../accounts/ledger';
import type { BillingEvent, Purchase, Reversal, ReversalEntry, SubscriptionPayment } from './billing';

/** What billing needs from the payment provider and from storage. */

/** What a Checkout asks the payment provider for: a pack (one payment) or the plan (a subscription). */
export interface CheckoutRequest {
  accountId: string;
  customerId: string;
  item: { kind: 'pack'; packId: string; priceId: string; credits: number } | { kind: 'plan'; priceId: string };
  /** Where the customer lands after paying, and after giving up. */
  successUrl: string;
  cancelUrl: string;
}

/** The payment provider (Stripe on AWS and, against its simulator, on the local stack). */
export interface PaymentGateway {
  /**
   * Verifies a webhook delivery's signature (and that it is recent) over the raw body, and reads
   * its event. Throws ValidationError for a missing, forged or stale signature or an unreadable body.
   */
  readEvent(rawBody: string, signature: string | undefined): Promise<BillingEvent>;
  /** A new customer for the account; the same one for concurrent calls about one account. */
  createCustomer(accountId: string): Promise<string>;
  /** A hosted checkout page's URL. */
  createCheckout(request: CheckoutRequest): Promise<string>;
  /** The hosted customer portal's URL (manage or cancel the subscription). */
  createPortal(customerId: string, returnUrl: string): Promise<string>;
}

/** The billing side of accounts: payment customers, purchases and subscription state. */
export interface BillingStore {
  customerOf(accountId: string): Promise<string | undefined>;
  /**
   * Records the account's customer if it has none yet and returns the account's customer: the
   * one given, or the one a concurrent caller recorded first. Throws NotFoundError without the account.
   */
  attachCustomer(accountId: string, customerId: string, now: string): Promise<string>;
  accountOfCustomer(customerId: string): Promise<string | undefined>;
  /**
   * The purchase, its credits (`entry`) and paid access, in one transaction, once per checkout:
   * 'duplicate' when the checkout was granted already.
   */
  recordPurchase(purchase: Purchase, entry: LedgerEntry, audit: AuditEntry): Promise<'granted' | 'duplicate' | 'unknown_account'>;
  purchaseByPayment(paymentId: string): Promise<Purchase | undefined>;
  /**
   * Raises the purchase's claimed-back credits to `due` and takes the difference off the
   * balance, never below zero (`entry` makes the ledger entry for what is taken); 'already'
   * when `due` was claimed before.
   */
  reversePurchase(purchase: Purchase, due: number, entry: ReversalEntry, now: string, audit: (reversal: Reversal) => AuditEntry): Promise<Reversal | 'already'>;
  /**
   * Sets the status from an event of `occurredAt` (epoch seconds) unless a newer event's (or an
   * equally old one's further along, statusRank) is stored: 'stale' then.
   */
  setSubscriptionStatus(accountId: string, status: SubscriptionStatus, occurredAt: number, now: string, audit: AuditEntry): Promise<'applied' | 'stale' | 'unknown_account'>;
  /** Paid access on, with its audit entry when it was off ('applied' either way, no entry when it was on); 'unknown_account' without the account. */
  grantPaidAccess(accountId: string, now: string, audit: AuditEntry): Promise<'applied' | 'unknown_account'>;
  /** Records a subscription's payment once per invoice: 'duplicate' when it was recorded already. */
  recordSubscriptionPayment(payment: SubscriptionPayment): Promise<'recorded' | 'duplicate'>;
  /** The account's latest subscription payments, newest first. */
  listSubscriptionPayments(accountId: string, limit: number): Promise<SubscriptionPayment[]>;
}
