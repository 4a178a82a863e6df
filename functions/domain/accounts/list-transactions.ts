import { getCallerAccount } from './get-account';
import type { LedgerEntry } from './ledger';
import type { Page } from '../shared/page';
import type { AccountStore, LedgerStore } from './ports';

/**
 * A page of the caller's ledger (their mode's: a test key reads the test balance's), newest
 * first. Past the end: an empty page. A ledger with no entry at all may be a test balance not
 * opened yet: the caller's account is read then (which opens it, as GET /credits would) and the
 * page read again, so a test key's first call lists its opening grant. Any other ledger holds
 * at least its opening grant, and costs no account read.
 */
export async function listTransactions(
  deps: { accounts: AccountStore; ledger: LedgerStore },
  accountId: string,
  page: number,
  limit: number,
): Promise<Page<LedgerEntry>> {
  let listed = await deps.ledger.listPage(accountId, page, limit);
  if (listed.total === 0) {
    await getCallerAccount(deps.accounts, accountId);
    listed = await deps.ledger.listPage(accountId, page, limit);
  }
  const { entries, total } = listed;
  const totalPages = Math.ceil(total / limit);
  return { items: entries, page, limit, total, totalPages, hasMore: page < totalPages };
}
