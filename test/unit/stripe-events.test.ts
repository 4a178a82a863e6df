import type Stripe from 'stripe';
import { readStripeEvent } from '#adapters/stripe/stripe-gateway';

/** Stripe's invoice events as the billing rules see them (https://docs.stripe.com/api/invoices/object). */
const invoiceEvent = (type: 'invoice.paid' | 'invoice.payment_succeeded', invoice: Record<string, unknown>) => ({
  id: 'evt_in',
  type: type as Stripe.Event['type'],
  created: 1_800_000_100,
  data: { object: { object: 'invoice', customer: 'cus_A', ...invoice } },
});

describe('a paid invoice', () => {
  it.each(['invoice.paid', 'invoice.payment_succeeded'] as const)('%s says what was paid and when: the subscription payment to list', (type) => {
    const event = invoiceEvent(type, { id: 'in_1', amount_paid: 2000, currency: 'usd', created: 1_800_000_000, status_transitions: { paid_at: 1_800_000_050 } });
    expect(readStripeEvent(event)).toEqual({
      type: 'payment_succeeded',
      eventId: 'evt_in',
      customerId: 'cus_A',
      payment: { invoiceId: 'in_1', amount: 2000, currency: 'usd', paidAt: 1_800_000_050 },
    });
  });

  it('falls back to when the invoice was made, and names no payment when the invoice does not say one', () => {
    expect(readStripeEvent(invoiceEvent('invoice.paid', { id: 'in_2', amount_paid: 500, currency: 'eur', created: 1_800_000_000 }))).toMatchObject({
      payment: { invoiceId: 'in_2', paidAt: 1_800_000_000 },
    });
    const bare = readStripeEvent(invoiceEvent('invoice.paid', { id: 'in_3' }));
    expect(bare).toEqual({ type: 'payment_succeeded', eventId: 'evt_in', customerId: 'cus_A' });
  });
});
