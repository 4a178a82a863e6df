import type { CreditTransaction } from '#client';

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
