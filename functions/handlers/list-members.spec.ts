import { defineFunction } from '#spec/function-spec';
import { RATE_LIMITED } from '#spec/needs';

export const spec = defineFunction({
  name: 'list-members',
  purpose: "lists the account's members (with their emails) and open invitations",
  area: 'account',
  trigger: { kind: 'http', method: 'GET', path: '/account/members' },
  access: { callers: ['session'], capability: 'members' },
  // Query ACCOUNT#a begins_with MEMBER#, then one BatchGet of the holders for their emails; beside it, Query begins_with INVITATION#.
  needs: { table: { actions: [...RATE_LIMITED, 'Query', 'BatchGetItem'], query: ['table'] } },
});
