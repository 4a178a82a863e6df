import { rateLimiter } from '#app-context/rate-limiter';
import { stores } from '#app-context/stores';
import { toAccountListView } from '#contract/teams';
import { listAccounts } from '#domain/accounts/list-accounts';
import { UnauthorizedError } from '#domain/shared/errors';
import { httpHandler } from '#http/http-handler';
import { spec } from './list-accounts.spec';

/** GET /api/v1/accounts: the signed-in holder's accounts and roles, the default first. */
export const handler = httpHandler(
  spec,
  async ({ principal }) => {
    // The spec takes sessions only; this narrows the type.
    if (principal.kind !== 'session') throw new UnauthorizedError();
    return toAccountListView(await listAccounts(stores().holders, principal.holderId));
  },
  { rateLimiter },
);
