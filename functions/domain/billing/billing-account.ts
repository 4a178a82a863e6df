import type { Account } from '../accounts/account';
import { auditEntry, type AuditDetails, type AuditStamp } from '../shared/audit';
import type { AuditLog } from '../shared/ports';
import { grantAudit, type LedgerEntry } from '../accounts/ledger';
import { SUBSCRIPTION_PAYMENTS_SHOWN, type BillingCatalogue, type CreditPack, type SubscriptionPayment, type SubscriptionPlan } from './billing';
import { UnauthorizedError, ValidationError } from '../shared/errors';
import { newLedgerEntryId } from '../shared/ids';
import { accountOfPartition, isTestPartition } from '../shared/partition';
import type { AccountStore } from '../accounts/ports';
import type { BillingStore, CheckoutRequest, PaymentGateway } from './ports';

/** The signed-in holder's billing use cases (GET /billing, checkout, portal, test credits, the test subscription). */

export interface BillingDeps {
  accounts: Pick<AccountStore, 'get' | 'grant' | 'setTestSubscription'>;
  billing: Pick<BillingStore, 'customerOf' | 'attachCustomer' | 'listSubscriptionPayments'>;
  gateway: Pick<PaymentGateway, 'createCustomer' | 'createCheckout' | 'createPortal'>;
  catalogue: BillingCatalogue;
  /** Where a checkout started is recorded (its other half is Stripe's page). */
  auditLog: Pick<AuditLog, 'record'>;
  /** Where checkout and the portal send the holder back (the console's billing page). */
  returnUrl: string;
  /** Time, from the caller (the domain never reads the system clock). */
  clock: () => Date;
}

export interface BillingOverview {
  packs: readonly CreditPack[];
  plan?: SubscriptionPlan;
  account: Account;
  /** The latest payments of the subscription, newest first (none in test mode: nothing is paid there). */
  subscriptionPayments: SubscriptionPayment[];
}

/** What can be bought, where the account stands and what the subscription was paid. `partitionId`: the session's partition (its mode). */
export async function getBilling(deps: Pick<BillingDeps, 'accounts' | 'catalogue' | 'billing'>, partitionId: string): Promise<BillingOverview> {
  const [account, subscriptionPayments] = await Promise.all([
    requireAccount(deps, partitionId),
    isTestPartition(partitionId) ? Promise.resolve([]) : deps.billing.listSubscriptionPayments(partitionId, SUBSCRIPTION_PAYMENTS_SHOWN),
  ]);
  return { packs: deps.catalogue.packs, ...(deps.catalogue.plan && { plan: deps.catalogue.plan }), account, subscriptionPayments };
}

export type CheckoutChoice = { packId: string } | { plan: true };

/** A checkout page's URL for a pack or the plan. Live mode only: test mode has test credits. */
export async function startCheckout(deps: BillingDeps, partitionId: string, choice: CheckoutChoice, stamp: AuditStamp): Promise<string> {
  if (isTestPartition(partitionId)) {
    throw new ValidationError('Purchases are live mode only; in test mode use POST /billing/test-credits.', 'Vidgen-Mode');
  }
  const account = await requireAccount(deps, partitionId);
  let item: CheckoutRequest['item'];
  if ('packId' in choice) {
    const pack = deps.catalogue.packs.find((candidate) => candidate.packId === choice.packId);
    if (!pack) {
      const known = deps.catalogue.packs.map((candidate) => `"${candidate.packId}"`).join(', ') || 'none are configured';
      throw new ValidationError(`pack_id: no pack "${choice.packId}" (packs: ${known}).`, 'pack_id');
    }
    item = { kind: 'pack', packId: pack.packId, priceId: pack.priceId, credits: pack.credits };
  } else {
    const plan = deps.catalogue.plan;
    if (!plan) throw new ValidationError('plan: no subscription plan is offered.', 'plan');
    if (account.subscriptionStatus === 'active' || account.subscriptionStatus === 'past_due') {
      throw new ValidationError(`plan: the account already has a subscription (${account.subscriptionStatus}); manage it with POST /billing/portal.`, 'plan');
    }
    item = { kind: 'plan', priceId: plan.priceId };
  }
  const customerId = await customerFor(deps, account.accountId);
  const url = await deps.gateway.createCheckout({
    accountId: account.accountId,
    customerId,
    item,
    successUrl: withQuery(deps.returnUrl, 'checkout=success'),
    cancelUrl: withQuery(deps.returnUrl, 'checkout=canceled'),
  });
  // Recorded before the URL is handed out: a Put that fails answers 5xx, so no usable checkout lacks its entry.
  const details: AuditDetails = item.kind === 'pack' ? { pack_id: item.packId, credits: item.credits } : { plan: true };
  await deps.auditLog.record(auditEntry(stamp, account.accountId, 'billing.checkout_started', { type: 'account', id: account.accountId }, details, deps.clock()));
  return url;
}

/** The customer portal's URL (the account's payment customer is made on first use). */
export async function openPortal(deps: BillingDeps, partitionId: string): Promise<string> {
  const account = await requireAccount(deps, accountOfPartition(partitionId));
  return deps.gateway.createPortal(await customerFor(deps, account.accountId), deps.returnUrl);
}

export const TEST_CREDITS_GRANT = 1000;

/** +1000 credits on the test balance (a `grant`); only in test mode. */
export async function addTestCredits(deps: Pick<BillingDeps, 'accounts' | 'clock'>, partitionId: string, stamp: AuditStamp): Promise<Account> {
  if (!isTestPartition(partitionId)) {
    throw new ValidationError('Test credits are for test mode: send Vidgen-Mode: test.', 'Vidgen-Mode');
  }
  await requireAccount(deps, partitionId);
  const entry: LedgerEntry = {
    entryId: newLedgerEntryId(),
    accountId: partitionId,
    kind: 'grant',
    amount: TEST_CREDITS_GRANT,
    reason: 'test credits',
    createdAt: deps.clock().toISOString(),
  };
  await deps.accounts.grant(entry, grantAudit(stamp, 'credits.test_added', entry));
  return requireAccount(deps, partitionId);
}

/** The 400s of a test subscription's start and end in live mode, saying what live mode does instead. */
export const TEST_SUBSCRIPTION_REFUSED = {
  start: 'The test subscription is for test mode: send Vidgen-Mode: test. In live mode, subscribe with POST /billing/checkout { "plan": true }.',
  end: 'The test subscription is for test mode: send Vidgen-Mode: test. In live mode, a subscription ends in the portal: POST /billing/portal.',
} as const;

/**
 * Starts the test subscription: the test partition gets paid access and an active subscription, so
 * images and the subscription models run in test mode before any payment (play money, like test
 * credits). Without it a test key meets live's `paid_access_required`, which an integration can
 * rehearse (CONTRACT.md, "Test mode"). A repeat answers the same. Only in test mode.
 */
export function startTestSubscription(deps: Pick<BillingDeps, 'accounts' | 'clock'>, partitionId: string): Promise<Account> {
  return setTestSubscription(deps, partitionId, true);
}

/** Ends the test subscription: the test partition is back to the live account's access. A repeat answers the same. Only in test mode. */
export function endTestSubscription(deps: Pick<BillingDeps, 'accounts' | 'clock'>, partitionId: string): Promise<Account> {
  return setTestSubscription(deps, partitionId, false);
}

async function setTestSubscription(deps: Pick<BillingDeps, 'accounts' | 'clock'>, partitionId: string, active: boolean): Promise<Account> {
  if (!isTestPartition(partitionId)) throw new ValidationError(active ? TEST_SUBSCRIPTION_REFUSED.start : TEST_SUBSCRIPTION_REFUSED.end, 'Vidgen-Mode');
  // Opens the test balance on first use, so the write below finds its item.
  await requireAccount(deps, partitionId);
  await deps.accounts.setTestSubscription(partitionId, active, deps.clock().toISOString());
  return requireAccount(deps, partitionId);
}

/**
 * The account's one payment customer. Concurrent first uses may each ask the provider (which
 * answers them with one customer: the adapter sends an idempotency key per account); the store
 * keeps the first recorded and every caller uses that one.
 */
async function customerFor(deps: Pick<BillingDeps, 'billing' | 'gateway' | 'clock'>, accountId: string): Promise<string> {
  const existing = await deps.billing.customerOf(accountId);
  if (existing) return existing;
  const created = await deps.gateway.createCustomer(accountId);
  return deps.billing.attachCustomer(accountId, created, deps.clock().toISOString());
}

async function requireAccount(deps: Pick<BillingDeps, 'accounts'>, partitionId: string): Promise<Account> {
  const account = await deps.accounts.get(partitionId);
  // A session whose account is gone is as good as none.
  if (!account) throw new UnauthorizedError();
  return account;
}

function withQuery(url: string, query: string): string {
  return `${url}${url.includes('?') ? '&' : '?'}${query}`;
}
