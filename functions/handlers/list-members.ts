import { rateLimiter } from '#app-context/rate-limiter';
import { stores } from '#app-context/stores';
import { memberListView } from '#contract/teams';
import { listAccountInvitations } from '#domain/accounts/invitations';
import { listMembers } from '#domain/accounts/members';
import { accountOfPartition } from '#domain/shared/partition';
import { httpHandler } from '#http/http-handler';
import { spec } from './list-members.spec';

/** GET /api/v1/account/members: the account's members and open invitations (owner, admin). */
export const handler = httpHandler(
  spec,
  async ({ principal }) => {
    const accountId = accountOfPartition(principal.partitionId);
    const [members, invitations] = await Promise.all([listMembers(stores().team, accountId), listAccountInvitations(stores(), accountId)]);
    return memberListView(members, invitations);
  },
  { rateLimiter },
);
