import { identityProvider } from '#app-context/identity';
import { rateLimiter } from '#app-context/rate-limiter';
import { stores } from '#app-context/stores';
import { accountChoiceView } from '#contract/teams';
import { accept } from '#domain/accounts/invitations';
import { UnauthorizedError } from '#domain/shared/errors';
import { stampOf } from '#http/audit-origin';
import { currentHolderOf } from '#http/current-holder';
import { httpHandler } from '#http/http-handler';
import { pathParameter } from '#http/request';
import { spec } from './accept-invitation.spec';

/** POST /api/v1/invitations/{invitation_id}/accept: joins the account, bound to the verified address the identity provider gives now. */
export const handler = httpHandler(
  spec,
  async ({ event, principal }) => {
    // The spec takes sessions only; this narrows the type.
    if (principal.kind !== 'session') throw new UnauthorizedError();
    const current = await currentHolderOf(identityProvider(), event, principal.holderId);
    return accountChoiceView(await accept(stores(), current, pathParameter(event, 'invitation_id'), stampOf(principal, event)));
  },
  { rateLimiter },
);
