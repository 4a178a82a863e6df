import { rateLimiter } from '#app-context/rate-limiter';
import { stores } from '#app-context/stores';
import { transactionPageView } from '#contract/transactions';
import { listTransactions } from '#domain/accounts/list-transactions';
import { httpHandler } from '#http/http-handler';
import { parsePagination } from '#http/request';
import { spec } from './list-transactions.spec';

/** GET /api/v1/credits/transactions: every grant, charge and refund of the caller's balance, newest first. */
export const handler = httpHandler(
  spec,
  async ({ event, principal }) => {
    const { page, limit } = parsePagination(event);
    return transactionPageView(await listTransactions(stores(), principal.partitionId, page, limit));
  },
  { rateLimiter },
);
