import { defineFunction } from '#spec/function-spec';
import { RATE_LIMITED } from '#spec/needs';

export const spec = defineFunction({
  name: 'update-member',
  purpose: "changes a member's role (an account always keeps an owner)",
  area: 'account',
  trigger: { kind: 'http', method: 'PATCH', path: '/account/members/{holder_id}', jsonBody: true },
  access: { callers: ['session'], capability: 'members' },
  // BatchGet TEAM and the two member items; TransactWriteItems [Update TEAM, Update member,
  // ConditionCheck actor, Update membership, Put audit]; the answer's Query and BatchGet.
  needs: { table: { actions: [...RATE_LIMITED, 'GetItem', 'BatchGetItem', 'PutItem', 'ConditionCheckItem', 'Query'], query: ['table'] } },
});
