import { invitationDeps } from '#app-context/invitations';
import { rateLimiter } from '#app-context/rate-limiter';
import { invitationView, inviteMemberBody } from '#contract/teams';
import { invite } from '#domain/accounts/invitations';
import { sessionActor } from '#domain/accounts/members';
import { accountOfPartition } from '#domain/shared/partition';
import { stampOf } from '#http/audit-origin';
import { httpHandler } from '#http/http-handler';
import { spec } from './invite-member.spec';

/** POST /api/v1/account/members: invites an address with a role (owner, admin); the mail follows the commit. */
export const handler = httpHandler(
  spec,
  async ({ event, principal, body }) => {
    const { email, role } = inviteMemberBody.parse(body);
    const request = { accountId: accountOfPartition(principal.partitionId), actor: sessionActor(principal), email, role };
    return invitationView(await invite(invitationDeps(), request, stampOf(principal, event)));
  },
  { rateLimiter },
);
