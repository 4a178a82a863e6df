import { rateLimiter } from '#app-context/rate-limiter';
import { stores } from '#app-context/stores';
import { toCreditsView } from '#contract/credits';
import { startTestSubscription } from '#domain/billing/billing-account';
import { httpHandler } from '#http/http-handler';
import { spec } from './start-test-subscription.spec';

/** POST /api/v1/billing/test-subscription (session, test mode): test mode gets paid access and an active subscription. */
export const handler = httpHandler(spec, async ({ principal }) => toCreditsView(await startTestSubscription(stores(), principal.partitionId)), { rateLimiter });
