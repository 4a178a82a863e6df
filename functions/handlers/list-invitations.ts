import { identityProvider } from '#app-context/identity';
import { rateLimiter } from '#app-context/rate-limiter';
import { stores } from '#app-context/stores';
import { receivedInvitationListView } from '#contract/teams';
import { listMine } from '#domain/accounts/invitations';
import { UnauthorizedError } from '#domain/shared/errors';
import { currentHolderOf } from '#http/current-holder';
import { httpHandler } from '#http/http-handler';
import { spec } from './list-invitations.spec';

/** GET /api/v1/invitations: the signed-in holder's open invitations, matched by their verified address as the identity provider says now. */
export const handler = httpHandler(
  spec,
  async ({ event, principal }) => {
    // The spec takes sessions only; this narrows the type.
    if (principal.kind !== 'session') throw new UnauthorizedError();
    return receivedInvitationListView(await listMine(stores(), await currentHolderOf(identityProvider(), event, principal.holderId)));
  },
  { rateLimiter },
);
