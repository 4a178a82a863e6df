import { defineFunction } from '#spec/function-spec';
import { RATE_LIMITED } from '#spec/needs';

export const spec = defineFunction({
  name: 'accept-invitation',
  purpose: 'makes the signed-in holder a member of the account an invitation to their verified address is for',
  area: 'account',
  trigger: { kind: 'http', method: 'POST', path: '/invitations/{invitation_id}/accept' },
  access: { callers: ['session'], capability: 'holder' },
  // GetUser (no IAM); Query gsi1 INVITEE#; TransactGetItems the member item (GetItem);
  // TransactWriteItems [Delete INVITATION#, Put member, Put membership, Update TEAM, Update holder, Put audit].
  needs: { table: { actions: [...RATE_LIMITED, 'Query', 'GetItem', 'PutItem', 'DeleteItem'], query: ['gsi1'] }, identity: true },
});
