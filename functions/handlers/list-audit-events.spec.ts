import { defineFunction } from '#spec/function-spec';
import { RATE_LIMITED } from '#spec/needs';

export const spec = defineFunction({
  name: 'list-audit-events',
  purpose: "reads a page of the account's audit log (JSON or CSV)",
  area: 'account',
  trigger: { kind: 'http', method: 'GET', path: '/audit-events' },
  // Owners and admins (CONTRACT.md, "Teams"); until members exist every session is its account's owner.
  access: { callers: ['session'], capability: 'members' },
  needs: { table: { actions: [...RATE_LIMITED, 'Query'], query: ['table'] } },
});
