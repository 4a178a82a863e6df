import { defineFunction } from '#spec/function-spec';
import { RATE_LIMITED } from '#spec/needs';

export const spec = defineFunction({
  name: 'list-accounts',
  purpose: 'lists the accounts the signed-in holder belongs to, with their role in each',
  area: 'account',
  trigger: { kind: 'http', method: 'GET', path: '/accounts' },
  access: { callers: ['session'], capability: 'holder' },
  // Query HOLDER#<holder id>: the holder item and its memberships, read afresh.
  needs: { table: { actions: [...RATE_LIMITED, 'Query'], query: ['table'] } },
});
