import { principalRateLimiter, type RateLimiter } from '#domain/accounts/rate-limit';
import { stores } from './stores';

/**
 * The API handlers' rate limiter: each principal's window, counted in the table. The stores are
 * reached on the first request, not at import, so a cold start still builds them once, lazily.
 */
export const rateLimiter: RateLimiter = {
  consume: (principal) => principalRateLimiter(stores().rateCounter, Date.now, stores().apiKeys).consume(principal),
};
