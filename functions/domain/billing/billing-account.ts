import type { Account } from '../accounts/account';
import type { BillingCatalogue, CreditPack, SubscriptionPlan } from './billing';
import { UnauthorizedError, ValidationError } from '../shared/errors';
import { newLedgerEntryId } from '../shared/ids';
import { accountOfPartition, isTestPartition } from '../shared/partition';
import type { AccountStore } from '../accounts/ports';
import type { BillingStore, CheckoutRequest, PaymentGateway } from './ports';

/** The signed-in holder's billing use cases (GET /billing, checkout, portal, test credits). */

export interface BillingDeps {
  accounts: Pick<AccountStore, 'get' | 'grant'>;
  billing: Pick<BillingStore, 'customerOf' | 'attachCustomer'>;
  gateway: Pick<PaymentGateway, 'createCustomer' | 'createCheckout' | 'createPortal'>;
  catalogue: BillingCatalogue;
  /** Where checkout and the portal send the holder back (the console's billing page). */
  returnUrl: string;
  clock?: () => Date;
}

export interface BillingOverview {
  packs: readonly CreditPack[];
  plan?: SubscriptionPlan;
  account: Account;
}

/** What can be bought and where the account stands. `partitionId`: the session's scope (its mode). */
export async function getBilling(deps: Pick<BillingDeps, 'accounts' | 'catalogue'>, partitionId: string): Promise<BillingOverview> {
  return { packs: deps.catalogue.packs, ...(deps.catalogue.plan && { plan: deps.catalogue.plan }), account: await requireAccount(deps, partitionId) };
}

export type CheckoutChoice = { packId: string } | { plan: true };

/** A checkout page's URL for a pack or the plan. Live mode only: test mode has test credits. */
export async function startCheckout(deps: BillingDeps, partitionId: string, choice: CheckoutChoice): Promise<string> {
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
  return deps.gateway.createCheckout({
    accountId: account.accountId,
    customerId,
    item,
    successUrl: withQuery(deps.returnUrl, 'checkout=success'),
    cancelUrl: withQuery(deps.returnUrl, 'checkout=canceled'),
  });
}

/** The customer portal's URL (the account's payment customer is made on first use). */
export async function openPortal(deps: BillingDeps, partitionId: string): Promise<string> {
  const account = await requireAccount(deps, accountOfPartition(partitionId));
  return deps.gateway.createPortal(await customerFor(deps, account.accountId), deps.returnUrl);
}

export const TEST_CREDITS_GRANT = 1000;

/** +1000 credits on the test balance (a `grant`); only in test mode. */
export async function addTestCredits(deps: Pick<BillingDeps, 'accounts' | 'clock'>, partitionId: string): Promise<Account> {
  if (!isTestPartition(partitionId)) {
    throw new ValidationError('Test credits are for test mode: send Vidgen-Mode: test.', 'Vidgen-Mode');
  }
  await requireAccount(deps, partitionId);
  await deps.accounts.grant({
    entryId: newLedgerEntryId(),
    accountId: partitionId,
    kind: 'grant',
    amount: TEST_CREDITS_GRANT,
    reason: 'test credits',
    createdAt: (deps.clock ?? (() => new Date()))().toISOString(),
  });
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
  return deps.billing.attachCustomer(accountId, created, (deps.clock ?? (() => new Date()))().toISOString());
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
