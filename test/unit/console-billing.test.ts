import type { CreditTransaction } from '#client';
import { billingHistory, checkoutOutcome, formatMoney } from '#console/billing';

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

  it('says how checkout ended when Stripe sends the holder back', () => {
    expect(checkoutOutcome('success')?.kind).toBe('ok');
    expect(checkoutOutcome('canceled')?.text).toContain('nothing was charged');
    expect(checkoutOutcome(null)).toBeUndefined();
    expect(checkoutOutcome('<script>')).toBeUndefined();
  });
});
