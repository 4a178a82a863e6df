import { defineFunction } from '#spec/function-spec';
import { RATE_LIMITED } from '#spec/needs';

export const spec = defineFunction({
  name: 'list-invitations',
  purpose: "lists the open invitations to the signed-in holder's verified email address",
  area: 'account',
  trigger: { kind: 'http', method: 'GET', path: '/invitations' },
  access: { callers: ['session'], capability: 'holder' },
  // The identity provider asked afresh for the verified address (GetUser: no IAM), then Query gsi1 INVITEE#<address>.
  needs: { table: { actions: [...RATE_LIMITED, 'Query'], query: ['gsi1'] }, identity: true },
});
