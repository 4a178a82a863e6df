import { reversalDue, subscriptionStatusOf, type BillingCatalogue, type BillingEvent, type BillingEventResult } from './billing';
import { auditEntry, NO_ORIGIN, stripeActor, type AuditAction, type AuditDetails, type AuditOrigin, type AuditStamp, type AuditTarget } from '../shared/audit';
import { newLedgerEntryId } from '../shared/ids';
import type { LedgerEntry } from '../accounts/ledger';
import type { BillingStore, PaymentGateway } from './ports';
import type { Telemetry } from '../shared/telemetry';

export interface BillingEventDeps {
  gateway: Pick<PaymentGateway, 'readEvent'>;
  billing: BillingStore;
  catalogue: BillingCatalogue;
  telemetry: Telemetry;
  /** Time, from the caller (the domain never reads the system clock). */
  clock: () => Date;
}

/**
 * POST /billing/stripe-webhook: a signed event of the payment provider applied to its account.
 * Every rule is idempotent by construction (a purchase is keyed by its checkout, a reversal
 * raises a claimed total, a status carries its event's time), so a duplicate or a replay changes
 * nothing however it interleaves. An event for an account we do not know is answered as handled
 * (the provider's retries could never find it) and logged.
 */
export async function receiveBillingEvent(deps: BillingEventDeps, rawBody: string, signature: string | undefined, origin: AuditOrigin = NO_ORIGIN): Promise<BillingEventResult> {
  const event = await deps.gateway.readEvent(rawBody, signature);
  const result = await applyBillingEvent(deps, event, origin);
  const fields = { event_id: event.eventId, event_type: event.type, result };
  if (result === 'unknown_account') deps.telemetry.warn('Billing event for an account we do not know: ignored', fields);
  else deps.telemetry.info('Billing event received', fields);
  return result;
}

export async function applyBillingEvent(deps: BillingEventDeps, event: BillingEvent, origin: AuditOrigin = NO_ORIGIN): Promise<BillingEventResult> {
  const clockNow = deps.clock();
  const now = clockNow.toISOString();
  // Every change an event makes is Stripe's, named by the event's id.
  const stamp: AuditStamp = { actor: stripeActor(event.eventId), origin };
  const audit = (accountId: string, action: AuditAction, target: AuditTarget, details: AuditDetails) => auditEntry(stamp, accountId, action, target, details, clockNow);
  const paidAccess = (accountId: string) => audit(accountId, 'billing.paid_access_granted', { type: 'account', id: accountId }, { paid_access: { from: false, to: true } });
  switch (event.type) {
    case 'ignored':
      return 'ignored';
    case 'checkout_paid': {
      const accountId = await accountOf(deps, event);
      if (!accountId) return 'unknown_account';
      if (!event.purchase) return deps.billing.grantPaidAccess(accountId, now, paidAccess(accountId));
      const pack = deps.catalogue.packs.find((candidate) => candidate.packId === event.purchase?.packId);
      // The credits shown at checkout travel in its metadata: a pack re-priced since still gives what was bought.
      const credits = event.purchase.credits ?? pack?.credits;
      if (!credits) {
        deps.telemetry.warn('Paid checkout for a pack we do not know: nothing granted', { event_id: event.eventId, pack_id: event.purchase.packId });
        return 'ignored';
      }
      const entry: LedgerEntry = {
        entryId: newLedgerEntryId(),
        accountId,
        kind: 'purchase',
        amount: credits,
        reason: `purchase: ${event.purchase.packId} pack`,
        createdAt: now,
      };
      const outcome = await deps.billing.recordPurchase(
        {
          checkoutId: event.checkoutId,
          accountId,
          packId: event.purchase.packId,
          credits,
          ...(event.purchase.paymentId && { paymentId: event.purchase.paymentId }),
          reversedCredits: 0,
          createdAt: now,
        },
        entry,
        audit(accountId, 'billing.purchase_credited', { type: 'checkout', id: event.checkoutId }, { pack_id: event.purchase.packId, credits, ledger_entry_id: entry.entryId }),
      );
      return outcome === 'granted' ? 'applied' : outcome;
    }
    case 'payment_succeeded': {
      const accountId = await accountOf(deps, event);
      if (!accountId) return 'unknown_account';
      const access = await deps.billing.grantPaidAccess(accountId, now, paidAccess(accountId));
      // A free invoice (a trial's) is no payment to list.
      if (access !== 'applied' || !event.payment || event.payment.amount <= 0) return access;
      const { invoiceId, amount, currency, paidAt } = event.payment;
      const recorded = await deps.billing.recordSubscriptionPayment({ invoiceId, accountId, amount, currency, paidAt: new Date(paidAt * 1000).toISOString() });
      return recorded === 'recorded' ? 'applied' : 'duplicate';
    }
    case 'subscription_changed': {
      const status = subscriptionStatusOf(event.providerStatus);
      if (!status) return 'ignored';
      const accountId = await accountOf(deps, event);
      if (!accountId) return 'unknown_account';
      return deps.billing.setSubscriptionStatus(
        accountId,
        status,
        event.occurredAt,
        now,
        audit(accountId, 'billing.subscription_changed', { type: 'subscription', id: accountId }, { status, provider_status: event.providerStatus }),
      );
    }
    case 'payment_reversed': {
      const purchase = await deps.billing.purchaseByPayment(event.paymentId);
      // A subscription's payment (or one we never granted for): no credits to take back.
      if (!purchase) return 'ignored';
      const due = reversalDue(purchase, event.reason === 'dispute' ? 1 : event.fraction);
      const entry = (credits: number): LedgerEntry => ({
        entryId: newLedgerEntryId(),
        accountId: purchase.accountId,
        kind: 'reversal',
        amount: -credits,
        reason: `reversal: ${event.reason === 'dispute' ? 'disputed' : 'refunded'} ${purchase.packId} pack`,
        createdAt: now,
      });
      const reversal = await deps.billing.reversePurchase(purchase, due, entry, now, ({ taken, shortfall }) =>
        audit(purchase.accountId, 'billing.purchase_reversed', { type: 'checkout', id: purchase.checkoutId }, { pack_id: purchase.packId, reason: event.reason, taken, shortfall }),
      );
      if (reversal === 'already') return 'duplicate';
      if (reversal.shortfall > 0) {
        deps.telemetry.warn('Reversal short: the balance had fewer credits than the pack gave', {
          event_id: event.eventId,
          account_id: purchase.accountId,
          checkout_id: purchase.checkoutId,
          taken: reversal.taken,
          shortfall: reversal.shortfall,
        });
        deps.telemetry.count('ReversalShortfall', { value: reversal.shortfall });
      }
      return 'applied';
    }
  }
}

/** The account an event names: ours in its metadata first, else through its customer. */
async function accountOf(deps: BillingEventDeps, event: { accountId?: string; customerId?: string }): Promise<string | undefined> {
  if (event.accountId) return event.accountId;
  return event.customerId ? deps.billing.accountOfCustomer(event.customerId) : undefined;
}

