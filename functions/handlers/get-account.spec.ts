import { defineFunction } from '#spec/function-spec';
import { RATE_LIMITED } from '#spec/needs';

export const spec = defineFunction({
  name: 'get-account',
  purpose: 'reads the caller account, both balances (opens the test balance on first use)',
  area: 'account',
  trigger: { kind: 'http', method: 'GET', path: '/account' },
  access: { callers: ['apiKey', 'session'], capability: 'read' },
  needs: { table: { actions: [...RATE_LIMITED, 'GetItem', 'PutItem'] } },
});
