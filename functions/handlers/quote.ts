import { quoteDeps } from '#app-context/quotes';
import { rateLimiter } from '#app-context/rate-limiter';
import { parseQuote, toQuoteView } from '#contract/quote';
import { spendingKeyOf } from '#domain/accounts/spending-key';
import { quoteStart } from '#domain/tasks/quote';
import { toHttpError } from '#http/error-mapping';
import { httpHandler } from '#http/http-handler';
import { spec } from './quote.spec';

/** POST /api/v1/quote: the price of a start and whether it would go ahead now; nothing charged. */
export const handler = httpHandler(
  spec,
  async ({ principal, body }) => {
    const quote = await quoteStart(quoteDeps(), principal.partitionId, parseQuote(body), spendingKeyOf(principal));
    // The reason is the code the start would answer with: the one error mapping says it.
    return toQuoteView(quote, quote.refusal && toHttpError(quote.refusal).code);
  },
  { rateLimiter },
);
