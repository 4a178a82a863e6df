import { defineFunction } from '#spec/function-spec';
import { RATE_LIMITED } from '#spec/needs';

export const spec = defineFunction({
  name: 'list-keys',
  purpose: "lists the account's API keys and what each spent this month",
  area: 'account',
  trigger: { kind: 'http', method: 'GET', path: '/keys' },
  access: { callers: ['session'], capability: 'keys' },
  needs: { table: { actions: [...RATE_LIMITED, 'BatchGetItem', 'Query'], query: ['gsi1'] } },
});
