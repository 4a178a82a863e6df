import { defineFunction } from '#spec/function-spec';
import { RATE_LIMITED } from '#spec/needs';

export const spec = defineFunction({
  name: 'create-key',
  purpose: 'makes an API key (counted against the per-account limit)',
  area: 'account',
  trigger: { kind: 'http', method: 'POST', path: '/keys', jsonBody: true },
  access: { callers: ['session'], capability: 'keys' },
  needs: { table: { actions: [...RATE_LIMITED, 'PutItem'] } },
});
