import { rateLimiter } from '#app-context/rate-limiter';
import { stores } from '#app-context/stores';
import { toAccountView } from '#contract/account';
import { getAccountOverview } from '#domain/accounts/get-account';
import { httpHandler } from '#http/http-handler';
import { spec } from './get-account.spec';

/** GET /api/v1/account: the caller's account, both balances and (for a session) the holder's email. */
export const handler = httpHandler(spec, async ({ principal }) => toAccountView(await getAccountOverview(stores().accounts, principal)), { rateLimiter });
