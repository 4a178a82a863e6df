import { rateLimiter } from '#app-context/rate-limiter';
import { stores } from '#app-context/stores';
import { memberView, updateMemberBody } from '#contract/teams';
import { changeMemberRole, sessionActor } from '#domain/accounts/members';
import { accountOfPartition } from '#domain/shared/partition';
import { stampOf } from '#http/audit-origin';
import { httpHandler } from '#http/http-handler';
import { pathParameter } from '#http/request';
import { spec } from './update-member.spec';

/** PATCH /api/v1/account/members/{holder_id}: a member's new role; 409 `last_owner` if it would leave no owner. */
export const handler = httpHandler(
  spec,
  async ({ event, principal, body }) => {
    const { role } = updateMemberBody.parse(body);
    const change = { accountId: accountOfPartition(principal.partitionId), holderId: pathParameter(event, 'holder_id'), role, actor: sessionActor(principal) };
    return memberView(await changeMemberRole(stores().team, change, stampOf(principal, event), stores().clock()));
  },
  { rateLimiter },
);
