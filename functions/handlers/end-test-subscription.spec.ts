import { defineFunction } from '#spec/function-spec';
import { RATE_LIMITED } from '#spec/needs';

export const spec = defineFunction({
  name: 'end-test-subscription',
  purpose: "ends the test scope's test subscription",
  area: 'account',
  trigger: { kind: 'http', method: 'DELETE', path: '/billing/test-subscription' },
  access: { callers: ['session'], capability: 'billing' },
  // GetItem and PutItem open the test balance on first use; the UpdateItem of the rate window also sets the subscription.
  needs: { table: { actions: [...RATE_LIMITED, 'GetItem', 'PutItem'] } },
});
