import { billingAccount } from '#app-context/billing';
import { rateLimiter } from '#app-context/rate-limiter';
import { parseCheckout } from '#contract/billing';
import { startCheckout } from '#domain/billing/billing-account';
import { stampOf } from '#http/audit-origin';
import { httpHandler } from '#http/http-handler';
import { spec } from './create-checkout.spec';

/** POST /api/v1/billing/checkout (session, live mode): a checkout page for a pack or the plan. */
export const handler = httpHandler(
  spec,
  async ({ event, principal, body }) => ({ url: await startCheckout(billingAccount(event), principal.partitionId, parseCheckout(body), stampOf(principal, event)) }),
  { rateLimiter },
);
