import { defineFunction } from '#spec/function-spec';
import { RATE_LIMITED } from '#spec/needs';

export const spec = defineFunction({
  name: 'update-account',
  purpose: 'sets how long the account keeps outputs (session; owner or admin)',
  area: 'account',
  trigger: { kind: 'http', method: 'PATCH', path: '/account', jsonBody: true },
  // CONTRACT.md, "Teams": retention is a members-row setting (owner, admin); keys never.
  access: { callers: ['session'], capability: 'members' },
  needs: { table: { actions: [...RATE_LIMITED, 'GetItem', 'PutItem', 'UpdateItem'] } },
});
