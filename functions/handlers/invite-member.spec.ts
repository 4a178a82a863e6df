import { defineFunction } from '#spec/function-spec';
import { RATE_LIMITED } from '#spec/needs';

export const spec = defineFunction({
  name: 'invite-member',
  purpose: 'invites an email address to join the account with a role (7 days) and mails the invitation',
  area: 'account',
  trigger: { kind: 'http', method: 'POST', path: '/account/members', jsonBody: true },
  access: { callers: ['session'], capability: 'members' },
  // Query MEMBER# and BatchGet the holders (a member's address is refused); TransactGetItems the
  // actor's member item (GetItem); TransactWriteItems [Update INVITES#<day>, Put INVITATION#,
  // ConditionCheck the actor, Put audit]. Then the mail (SES SendEmail, or the log without a sender).
  needs: { table: { actions: [...RATE_LIMITED, 'Query', 'BatchGetItem', 'GetItem', 'PutItem', 'ConditionCheckItem'], query: ['table'] }, mail: true },
});
