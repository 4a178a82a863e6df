import { rateLimiter } from '#app-context/rate-limiter';
import { stores } from '#app-context/stores';
import { removeMember, sessionActor } from '#domain/accounts/members';
import { accountOfPartition } from '#domain/shared/partition';
import { stampOf } from '#http/audit-origin';
import { httpHandler } from '#http/http-handler';
import { pathParameter } from '#http/request';
import { spec } from './remove-member.spec';

/** DELETE /api/v1/account/members/{holder_id}: removes a member (oneself too); 409 `last_owner` if it would leave no owner. */
export const handler = httpHandler(
  spec,
  async ({ event, principal }) => {
    const holderId = pathParameter(event, 'holder_id');
    await removeMember(stores().team, { accountId: accountOfPartition(principal.partitionId), holderId, actor: sessionActor(principal) }, stampOf(principal, event), stores().clock());
    return { holder_id: holderId, removed: true };
  },
  { rateLimiter },
);
