import type { CreditTransaction } from '#client';
import { billingHistory, checkoutOutcome, formatMoney, purchaseHistory } from '#console/billing';

const entry = (type: CreditTransaction['type'], amount: number): CreditTransaction => ({
  transaction_id: `txn_${type}`,
  type,
  amount,
  task_id: null,
  reason: null,
  created_at: '2025-01-01T00:00:00.000Z',
});

describe('the console\'s billing page', () => {
  it('prices in the currency\'s minor unit: cents for usd, whole yen for jpy', () => {
    expect(formatMoney(500, 'usd', 'en-US')).toBe('$5.00');
    expect(formatMoney(2000, 'eur', 'en-US')).toBe('€20.00');
    expect(formatMoney(500, 'jpy', 'en-US')).toBe('¥500');
  });

  it('still names an amount in a currency Intl does not know', () => {
    expect(formatMoney(1234, 'x1', 'en-US')).toBe('12.34 X1');
  });

  it('keeps purchases, grants and reversals from the ledger, not charges and refunds', () => {
    const ledger = [entry('charge', -50), entry('purchase', 500), entry('refund', 50), entry('reversal', -500), entry('grant', 1000)];
    expect(billingHistory(ledger).map((transaction) => transaction.type)).toEqual(['purchase', 'reversal', 'grant']);
  });

  it("lists the subscription's payments with the ledger's purchases, newest first", () => {
    const ledger = [
      { ...entry('purchase', 500), created_at: '2026-11-03T00:00:00.000Z', reason: 'purchase: starter pack' },
      { ...entry('charge', -25), created_at: '2026-11-04T00:00:00.000Z' },
      { ...entry('grant', 100), created_at: '2026-11-01T00:00:00.000Z' },
    ];
    const payments = [
      { invoice_id: 'in_2', amount: 2000, currency: 'usd', paid_at: '2026-12-02T00:00:00.000Z' },
      { invoice_id: 'in_1', amount: 2000, currency: 'usd', paid_at: '2026-11-02T00:00:00.000Z' },
    ];
    const lines = purchaseHistory(ledger, payments, 'en-US');
    expect(lines.map((line) => [line.kind, line.what, line.credits])).toEqual([
      ['subscription', 'Subscription payment', null],
      ['purchase', 'Credit pack bought', 500],
      ['subscription', 'Subscription payment', null],
      ['grant', 'Credits granted', 100],
    ]);
    expect(lines[0]!.details).toBe('$20.00 paid (invoice in_2)');
  });

  it('says how checkout ended when Stripe sends the holder back', () => {
    expect(checkoutOutcome('success')?.kind).toBe('ok');
    expect(checkoutOutcome('canceled')?.text).toContain('nothing was charged');
    expect(checkoutOutcome(null)).toBeUndefined();
    expect(checkoutOutcome('<script>')).toBeUndefined();
  });
});
