import { defineFunction } from '#spec/function-spec';

export const spec = defineFunction({
  name: 'stripe-webhook',
  purpose: "applies Stripe's signed events: purchases, subscription status, paid access, reversals",
  area: 'account',
  trigger: { kind: 'http', method: 'POST', path: '/billing/stripe-webhook' },
  access: { callers: ['public'], checks: 'stripe-signature' },
  needs: {
    // Billing (functions/domain/billing*.ts): the account item (balance, customer, subscription),
    // a payment customer's and a purchase's items, ledger entries; transactions of Update and Put.
    table: { actions: ['GetItem', 'PutItem', 'UpdateItem'] },
    stripe: ['webhookSecret'],
  },
});
