import type { Account } from './account';
import { UnauthorizedError } from './errors';
import type { AccountStore } from './ports';

/** The caller's account. A key whose account is gone is as good as no key. */
export async function getCallerAccount(accounts: Pick<AccountStore, 'get'>, accountId: string): Promise<Account> {
  const account = await accounts.get(accountId);
  if (!account) throw new UnauthorizedError();
  return account;
}
