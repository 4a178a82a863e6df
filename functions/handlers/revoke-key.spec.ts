import { defineFunction } from '#spec/function-spec';
import { RATE_LIMITED } from '#spec/needs';

export const spec = defineFunction({
  name: 'revoke-key',
  purpose: 'revokes an API key',
  area: 'account',
  trigger: { kind: 'http', method: 'DELETE', path: '/keys/{key_id}' },
  access: { callers: ['session'], capability: 'keys' },
  needs: { table: { actions: [...RATE_LIMITED, 'GetItem', 'BatchGetItem', 'PutItem'] } },
});
