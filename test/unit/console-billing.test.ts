import type { CreditTransaction } from '#client';
import { AFTER_CHECKOUT_READS, afterCheckoutDelay, billingHistory, checkoutOutcome, formatMoney, parseCheckoutStart, purchaseArrived, purchaseHistory } from '#console/billing';

const entry = (type: CreditTransaction['type'], amount: number, id = `txn_${type}`): CreditTransaction => ({
  transaction_id: id,
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

  it('says on the way back from checkout whether the purchase has arrived, or that it stopped looking', () => {
    expect(checkoutOutcome('success', 'arrived')?.text).toContain('Your purchase has arrived');
    expect(checkoutOutcome('success', 'gave-up')).toMatchObject({ kind: 'warn', text: expect.stringContaining('not confirmed the payment yet') });
    expect(checkoutOutcome('canceled', 'gave-up')?.text).toContain('nothing was charged');
  });

  it('knows a pack has arrived when a purchase newer than the one noted at checkout is in the history', () => {
    const started = { mode: 'live', item: 'pack', latestPurchase: 'txn_old' } as const;
    const old = entry('purchase', 500, 'txn_old');
    expect(purchaseArrived(started, [old], 'none')).toBe(false);
    expect(purchaseArrived(started, [entry('purchase', 500, 'txn_new'), old], 'none')).toBe(true);
    expect(purchaseArrived({ ...started, latestPurchase: null }, [], 'none')).toBe(false);
    expect(purchaseArrived({ ...started, latestPurchase: null }, [entry('grant', 1000), old], 'none')).toBe(true);
    // Nothing noted (another tab, an old link): it cannot tell, so it never claims it.
    expect(purchaseArrived(undefined, [entry('purchase', 500, 'txn_new')], 'active')).toBe(false);
  });

  it('knows the plan has arrived when the subscription is active', () => {
    const started = { mode: 'live', item: 'plan', latestPurchase: null } as const;
    expect(purchaseArrived(started, [], 'none')).toBe(false);
    expect(purchaseArrived(started, [], 'active')).toBe(true);
  });

  it('reads back only a checkout noted in the same mode and shape', () => {
    const noted = JSON.stringify({ mode: 'live', item: 'pack', latestPurchase: 'txn_1' });
    expect(parseCheckoutStart(noted, 'live')).toEqual({ mode: 'live', item: 'pack', latestPurchase: 'txn_1' });
    expect(parseCheckoutStart(noted, 'test')).toBeUndefined();
    expect(parseCheckoutStart(null, 'live')).toBeUndefined();
    expect(parseCheckoutStart('{not json', 'live')).toBeUndefined();
    expect(parseCheckoutStart(JSON.stringify({ mode: 'live', item: 'car', latestPurchase: null }), 'live')).toBeUndefined();
  });

  it('reads again after checkout further apart each time, for about four minutes in all', () => {
    const delays = Array.from({ length: AFTER_CHECKOUT_READS }, (_, read) => afterCheckoutDelay(read));
    expect(delays).toEqual([2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000, 60_000]);
  });
});
