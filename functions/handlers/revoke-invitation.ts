import { rateLimiter } from '#app-context/rate-limiter';
import { stores } from '#app-context/stores';
import { revoke } from '#domain/accounts/invitations';
import { sessionActor } from '#domain/accounts/members';
import { accountOfPartition } from '#domain/shared/partition';
import { stampOf } from '#http/audit-origin';
import { httpHandler } from '#http/http-handler';
import { pathParameter } from '#http/request';
import { spec } from './revoke-invitation.spec';

/** DELETE /api/v1/account/members/invitations/{invitation_id}: withdraws an open invitation (owner, admin). */
export const handler = httpHandler(
  spec,
  async ({ event, principal }) => {
    const invitationId = pathParameter(event, 'invitation_id');
    await revoke(stores(), { accountId: accountOfPartition(principal.partitionId), actor: sessionActor(principal), invitationId }, stampOf(principal, event));
    return { invitation_id: invitationId, revoked: true };
  },
  { rateLimiter },
);
