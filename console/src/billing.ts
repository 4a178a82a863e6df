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

/** What checkout said on its way back (`?checkout=success|canceled`), in words. */
export function checkoutOutcome(value: string | null): { kind: 'ok' | 'warn'; text: string } | undefined {
  if (value === 'success') return { kind: 'ok', text: 'Payment received. Credits and access are added as soon as Stripe confirms it, usually within seconds: this page updates by itself.' };
  if (value === 'canceled') return { kind: 'warn', text: 'Checkout canceled: nothing was charged.' };
  return undefined;
}
