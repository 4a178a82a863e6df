import { rateLimiter } from '#app-context/rate-limiter';
import { stores } from '#app-context/stores';
import { toCreditsView } from '#contract/credits';
import { getCallerAccount } from '#domain/accounts/get-account';
import { httpHandler } from '#http/http-handler';
import { spec } from './get-credits.spec';

/** GET /api/v1/credits: balance, paid-access flag and subscription status of the caller. */
export const handler = httpHandler(
  spec,
  async ({ principal }) =>
    toCreditsView(await getCallerAccount(stores().accounts, principal.partitionId)),
  { rateLimiter },
);
