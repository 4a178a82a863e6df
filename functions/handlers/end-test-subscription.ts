import { rateLimiter } from '#app-context/rate-limiter';
import { stores } from '#app-context/stores';
import { toCreditsView } from '#contract/credits';
import { endTestSubscription } from '#domain/billing/billing-account';
import { httpHandler } from '#http/http-handler';
import { spec } from './end-test-subscription.spec';

/** DELETE /api/v1/billing/test-subscription (session, test mode): test mode is back to the live account's access. */
export const handler = httpHandler(spec, async ({ principal }) => toCreditsView(await endTestSubscription(stores(), principal.partitionId)), { rateLimiter });
