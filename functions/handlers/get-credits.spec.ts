import { defineFunction } from '#spec/function-spec';
import { RATE_LIMITED } from '#spec/needs';

export const spec = defineFunction({
  name: 'get-credits',
  purpose: 'reads the caller account (a test key opens its test balance on first use)',
  area: 'account',
  trigger: { kind: 'http', method: 'GET', path: '/credits' },
  access: { callers: ['apiKey', 'session'], capability: 'read' },
  needs: { table: { actions: [...RATE_LIMITED, 'GetItem', 'PutItem'] } },
});
