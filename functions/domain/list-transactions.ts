import { getCallerAccount } from './get-account';
import type { LedgerEntry } from './ledger';
import type { Page } from './list-tasks';
import type { AccountStore, LedgerStore } from './ports';

/**
 * A page of the caller's ledger (their mode's: a test key reads the test balance's), newest
 * first. Past the end: an empty page. The caller's account is read first, so a test key's
 * first call opens its test balance and lists its opening grant, as GET /credits would count it.
 */
export async function listTransactions(
  deps: { accounts: AccountStore; ledger: LedgerStore },
  accountId: string,
  page: number,
  limit: number,
): Promise<Page<LedgerEntry>> {
  await getCallerAccount(deps.accounts, accountId);
  const { entries, total } = await deps.ledger.listPage(accountId, page, limit);
  const totalPages = Math.ceil(total / limit);
  return { items: entries, page, limit, total, totalPages, hasMore: page < totalPages };
}
