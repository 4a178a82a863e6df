import { defineFunction } from '#spec/function-spec';
import { RATE_LIMITED } from '#spec/needs';

export const spec = defineFunction({
  name: 'revoke-invitation',
  purpose: 'withdraws an open invitation to the account',
  area: 'account',
  trigger: { kind: 'http', method: 'DELETE', path: '/account/members/invitations/{invitation_id}' },
  access: { callers: ['session'], capability: 'members' },
  // Query INVITATION# (consistent); TransactGetItems the actor's member item (GetItem);
  // TransactWriteItems [Delete INVITATION#, ConditionCheck the actor, Put audit].
  needs: { table: { actions: [...RATE_LIMITED, 'Query', 'GetItem', 'DeleteItem', 'ConditionCheckItem', 'PutItem'], query: ['table'] } },
});
