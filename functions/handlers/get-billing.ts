import { billing } from '#app-context/billing';
import { rateLimiter } from '#app-context/rate-limiter';
import { toBillingView } from '#contract/billing';
import { getBilling } from '#domain/billing/billing-account';
import { httpHandler } from '#http/http-handler';
import { spec } from './get-billing.spec';

/** GET /api/v1/billing (session): packs, the plan, and the account's subscription and paid access. */
export const handler = httpHandler(spec, async ({ principal }) => toBillingView(await getBilling(billing().account, principal.partitionId)), { rateLimiter });
