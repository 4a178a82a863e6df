import { defineFunction } from '#spec/function-spec';
import { RATE_LIMITED } from '#spec/needs';

export const spec = defineFunction({
  name: 'remove-member',
  purpose: 'removes a member from the account (an account always keeps an owner)',
  area: 'account',
  trigger: { kind: 'http', method: 'DELETE', path: '/account/members/{holder_id}' },
  access: { callers: ['session'], capability: 'members' },
  // BatchGet TEAM and the two member items; TransactWriteItems [Update TEAM, Delete member,
  // ConditionCheck actor, Delete membership, Update holder, Put audit].
  needs: { table: { actions: [...RATE_LIMITED, 'GetItem', 'BatchGetItem', 'PutItem', 'DeleteItem', 'ConditionCheckItem'] } },
});
