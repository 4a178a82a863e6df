import { defineFunction } from '#spec/function-spec';
import { RATE_LIMITED } from '#spec/needs';

export const spec = defineFunction({
  name: 'add-test-credits',
  purpose: 'adds test credits to the test balance',
  area: 'account',
  trigger: { kind: 'http', method: 'POST', path: '/billing/test-credits' },
  access: { callers: ['session'], capability: 'billing' },
  needs: { table: { actions: [...RATE_LIMITED, 'GetItem', 'PutItem'] } },
});
