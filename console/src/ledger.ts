import type { QueryClient } from '@tanstack/react-query';
import type { CreditTransaction, TransactionPage, VidgenClient } from '#client';
import type { Mode } from './context';

/** The API's largest page of transactions. */
export const LEDGER_PAGE_SIZE = 50;

/**
 * The ledger's cache: one query per page of 50 (`['ledger', mode, 'page', n]`), shared by the
 * Overview's chart, Usage and Billing's history, so a page one of them read moments ago is not
 * read again for another (each read counts against the holder's 60 a minute). What is built from
 * pages lives under the same prefix: invalidating `ledgerKey(mode)` after anything that writes
 * to the ledger (a start, a cancel, test credits, a purchase) refreshes all of it.
 */
export const ledgerKey = (mode: Mode) => ['ledger', mode] as const;

export function ledgerPage(client: () => Promise<VidgenClient>, mode: Mode, page: number) {
  return {
    queryKey: [...ledgerKey(mode), 'page', page] as const,
    queryFn: async (): Promise<TransactionPage> => (await client()).listTransactions({ page, limit: LEDGER_PAGE_SIZE }),
  };
}

/**
 * The ledger from its newest entry, through the shared pages (a fresh one is not read again),
 * until a page says `enough`, there are no more, or `maxPages` are read. Pages read moments
 * apart may overlap by an entry that moved down a page: it is listed once. `complete`: the whole
 * ledger was read.
 */
export async function readLedger(
  queries: QueryClient,
  client: () => Promise<VidgenClient>,
  mode: Mode,
  maxPages: number,
  enough: (page: TransactionPage) => boolean = () => false,
): Promise<{ transactions: CreditTransaction[]; complete: boolean }> {
  const seen = new Set<string>();
  const transactions: CreditTransaction[] = [];
  for (let page = 1; page <= maxPages; page += 1) {
    const answer = await queries.fetchQuery(ledgerPage(client, mode, page));
    for (const transaction of answer.transactions) {
      if (seen.has(transaction.transaction_id)) continue;
      seen.add(transaction.transaction_id);
      transactions.push(transaction);
    }
    if (!answer.pagination.has_more) return { transactions, complete: true };
    if (enough(answer)) break;
  }
  return { transactions, complete: false };
}
