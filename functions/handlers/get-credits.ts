import { appContext } from '../app-context';
import { toCreditsView } from '../domain/account';
import { UnauthorizedError } from '../domain/errors';
import { httpHandler } from '../http/http-handler';

/** GET /api/v1/credits: balance, paid-access flag and subscription status of the caller. */
export const handler = httpHandler(async ({ principal }) => {
  const account = await appContext().accounts.get(principal.accountId);
  // A key whose account is gone is as good as no key.
  if (!account) throw new UnauthorizedError();
  return toCreditsView(account);
});
