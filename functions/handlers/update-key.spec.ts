import { defineFunction } from '#spec/function-spec';
import { RATE_LIMITED } from '#spec/needs';

export const spec = defineFunction({
  name: 'update-key',
  purpose: "changes an API key's name, scopes or spend limit",
  area: 'account',
  trigger: { kind: 'http', method: 'PATCH', path: '/keys/{key_id}', jsonBody: true },
  access: { callers: ['session'], capability: 'keys' },
  needs: { table: { actions: [...RATE_LIMITED, 'GetItem', 'BatchGetItem', 'PutItem'] } },
});
