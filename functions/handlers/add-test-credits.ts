import { rateLimiter } from '#app-context/rate-limiter';
import { stores } from '#app-context/stores';
import { toCreditsView } from '#contract/credits';
import { addTestCredits } from '#domain/billing/billing-account';
import { stampOf } from '#http/audit-origin';
import { httpHandler } from '#http/http-handler';
import { spec } from './add-test-credits.spec';

/** POST /api/v1/billing/test-credits (session, test mode): +1000 test credits. */
export const handler = httpHandler(
  spec,
  async ({ event, principal }) => toCreditsView(await addTestCredits(stores(), principal.partitionId, stampOf(principal, event))),
  { rateLimiter },
);
