import { billingAccount } from '#app-context/billing';
import { rateLimiter } from '#app-context/rate-limiter';
import { openPortal } from '#domain/billing/billing-account';
import { httpHandler } from '#http/http-handler';
import { spec } from './create-portal.spec';

/** POST /api/v1/billing/portal (session): the customer portal, to manage or cancel the subscription. */
export const handler = httpHandler(spec, async ({ event, principal }) => ({ url: await openPortal(billingAccount(event), principal.partitionId) }), { rateLimiter });
