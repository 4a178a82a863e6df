import type { Billing, CreditTransaction } from '#client';

/** The ledger entries that are about paying, not spending: packs bought, credits granted, packs taken back. */
export const BILLING_KINDS: ReadonlySet<CreditTransaction['type']> = new Set(['purchase', 'grant', 'reversal']);

export const BILLING_KIND_LABEL: Readonly<Record<string, string>> = {
  purchase: 'Credit pack bought',
  grant: 'Credits granted',
  reversal: 'Refund or dispute: credits taken back',
};

export function billingHistory(transactions: readonly CreditTransaction[]): CreditTransaction[] {
  return transactions.filter((transaction) => BILLING_KINDS.has(transaction.type));
}

/** One line of the purchase history: a ledger entry (packs, grants, reversals) or a subscription payment. */
export interface HistoryLine {
  key: string;
  kind: CreditTransaction['type'] | 'subscription';
  at: string;
  what: string;
  /** Signed credits, or null for a payment that gives none (the subscription). */
  credits: number | null;
  details: string;
}

/**
 * The purchase history: the ledger's purchases, grants and reversals and the subscription's
 * payments (GET /billing), newest first. A subscription pays for access, not credits, so it
 * is in no ledger: without its payments the history missed them.
 */
export function purchaseHistory(transactions: readonly CreditTransaction[], payments: Billing['subscription_payments'], locale?: string): HistoryLine[] {
  const lines: HistoryLine[] = [
    ...billingHistory(transactions).map((entry) => ({
      key: entry.transaction_id,
      kind: entry.type,
      at: entry.created_at,
      what: BILLING_KIND_LABEL[entry.type] ?? entry.type,
      credits: entry.amount,
      details: entry.reason ?? '—',
    })),
    ...payments.map((payment) => ({
      key: payment.invoice_id,
      kind: 'subscription' as const,
      at: payment.paid_at,
      what: 'Subscription payment',
      credits: null,
      details: `${formatMoney(payment.amount, payment.currency, locale)} paid (invoice ${payment.invoice_id})`,
    })),
  ];
  return lines.sort((a, b) => Date.parse(b.at) - Date.parse(a.at));
}

/**
 * An amount in the currency's minor unit (as Stripe and GET /billing give it) in the reader's
 * words: 500 usd is "$5.00", 500 jpy is "¥500" (the currency says how many decimals it has).
 */
export function formatMoney(amount: number, currency: string, locale?: string): string {
  try {
    const format = new Intl.NumberFormat(locale, { style: 'currency', currency: currency.toUpperCase() });
    return format.format(amount / 10 ** (format.resolvedOptions().maximumFractionDigits ?? 2));
  } catch {
    // A code Intl does not know: still say what it is.
    return `${(amount / 100).toFixed(2)} ${currency.toUpperCase()}`;
  }
}

/** After a successful checkout: still reading the billing again, seen the purchase, or stopped reading without seeing it. */
export type CheckoutWatch = 'waiting' | 'arrived' | 'gave-up';

/** What checkout said on its way back (`?checkout=success|canceled`), and what the page has seen since, in words. */
export function checkoutOutcome(value: string | null, watch: CheckoutWatch = 'waiting'): { kind: 'ok' | 'warn'; text: string } | undefined {
  if (value === 'success') {
    if (watch === 'arrived') return { kind: 'ok', text: 'Payment received. Your purchase has arrived: it is in your balance, access and history below.' };
    if (watch === 'gave-up') return { kind: 'warn', text: 'Payment received, but Stripe has not confirmed the payment yet (or it came before this page could tell). It usually takes seconds: if your purchase is not shown below, check again in a minute.' };
    return { kind: 'ok', text: 'Payment received. Credits and access are added as soon as Stripe confirms it, usually within seconds: this page updates by itself.' };
  }
  if (value === 'canceled') return { kind: 'warn', text: 'Checkout canceled: nothing was charged.' };
  return undefined;
}

/**
 * What the holder set out to buy, noted (in the tab's sessionStorage) before leaving for Stripe's
 * checkout, so the page can tell on the way back when the purchase has arrived and stop reading.
 */
export interface CheckoutStart {
  mode: 'live' | 'test';
  item: 'pack' | 'plan';
  /** The newest purchase in the history when checkout began; null when there was none. */
  latestPurchase: string | null;
}

/** The newest purchase in a history listed newest first. */
export function latestPurchase(entries: readonly CreditTransaction[]): string | null {
  return entries.find((entry) => entry.type === 'purchase')?.transaction_id ?? null;
}

/** A noted checkout start read back; anything else (none, another mode, a stale shape) is undefined. */
export function parseCheckoutStart(raw: string | null, mode: CheckoutStart['mode']): CheckoutStart | undefined {
  if (!raw) return undefined;
  try {
    const value = JSON.parse(raw) as Partial<CheckoutStart>;
    const latest = value.latestPurchase;
    if (value.mode !== mode || (value.item !== 'pack' && value.item !== 'plan') || (latest !== null && typeof latest !== 'string')) return undefined;
    return { mode, item: value.item, latestPurchase: latest };
  } catch {
    return undefined;
  }
}

/** Whether what `start` set out to buy shows: a purchase newer than the one noted, or, for the plan, an active subscription. */
export function purchaseArrived(start: CheckoutStart | undefined, entries: readonly CreditTransaction[], subscriptionStatus: string): boolean {
  if (!start) return false;
  if (start.item === 'plan') return subscriptionStatus === 'active';
  const latest = latestPurchase(entries);
  return latest !== null && latest !== start.latestPurchase;
}

/**
 * After checkout the page reads balance, access and history again after 2, 4, 8, 16, 32, 60, 60
 * and 60 s (about four minutes), unless the purchase shows first: at most 3 requests a round,
 * against the holder's 60 a minute, and never forever.
 */
export const AFTER_CHECKOUT_READS = 8;

export function afterCheckoutDelay(read: number): number {
  return Math.min(2_000 * 2 ** read, 60_000);
}
