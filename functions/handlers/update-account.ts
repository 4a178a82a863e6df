import { rateLimiter } from '#app-context/rate-limiter';
import { stores } from '#app-context/stores';
import { parseUpdateAccount, toAccountView } from '#contract/account';
import { setOutputRetention } from '#domain/accounts/get-account';
import { stampOf } from '#http/audit-origin';
import { httpHandler } from '#http/http-handler';
import { spec } from './update-account.spec';

/** PATCH /api/v1/account: the account's output retention (days, or null for good); answers the account. */
export const handler = httpHandler(
  spec,
  async ({ event, principal, body }) => toAccountView(await setOutputRetention(stores().accounts, principal, parseUpdateAccount(body), new Date(), stampOf(principal, event))),
  { rateLimiter },
);
