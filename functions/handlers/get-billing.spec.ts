import { defineFunction } from '#spec/function-spec';
import { RATE_LIMITED } from '#spec/needs';

export const spec = defineFunction({
  name: 'get-billing',
  purpose: 'reads the packs, the plan and the caller account',
  area: 'account',
  trigger: { kind: 'http', method: 'GET', path: '/billing' },
  access: { callers: ['session'], capability: 'read' },
  needs: { table: { actions: [...RATE_LIMITED, 'GetItem', 'PutItem'] }, stripe: [] },
});
