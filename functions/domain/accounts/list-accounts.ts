import type { HolderStore } from './ports';
import { defaultFirst, type Role } from './roles';

/** One account of `GET /accounts`. */
export interface AccountChoice {
  accountId: string;
  role: Role;
}

/**
 * GET /accounts: every account the signed-in holder belongs to, the default first (the one a
 * request without `Vidgen-Account` acts on). Read afresh, never from the authorizer's cached
 * list, so the console's switcher shows a change at once.
 */
export async function listAccounts(holders: HolderStore, holderId: string): Promise<AccountChoice[]> {
  const found = await holders.withMemberships(holderId);
  return defaultFirst(found?.memberships ?? []).map(({ accountId, role }) => ({ accountId, role }));
}
