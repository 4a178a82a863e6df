import { defineFunction } from '#spec/function-spec';
import { RATE_LIMITED } from '#spec/needs';

export const spec = defineFunction({
  name: 'create-portal',
  purpose: "opens the Stripe customer portal for the account's customer",
  area: 'account',
  trigger: { kind: 'http', method: 'POST', path: '/billing/portal' },
  access: { callers: ['session'], capability: 'billing' },
  needs: { table: { actions: [...RATE_LIMITED, 'GetItem', 'PutItem'] }, stripe: ['secretKey'] },
});
