import { defineFunction } from '#spec/function-spec';
import { RATE_LIMITED } from '#spec/needs';

export const spec = defineFunction({
  name: 'create-checkout',
  purpose: "opens a Stripe Checkout for a pack or the plan, making the account's Stripe customer once",
  area: 'account',
  trigger: { kind: 'http', method: 'POST', path: '/billing/checkout', jsonBody: true },
  access: { callers: ['session'], capability: 'billing' },
  needs: { table: { actions: [...RATE_LIMITED, 'GetItem', 'PutItem'] }, stripe: ['secretKey'] },
});
