import { billing } from '#app-context/billing';
import { originOf } from '#http/audit-origin';
import { successEnvelope } from '#contract/envelope';
import type { StripeWebhookAnswer } from '#contract/billing';
import { receiveBillingEvent } from '#domain/billing/billing-events';
import { jsonResponse } from '#http/envelope';
import { headerValue } from '#http/headers';
import { publicHandler } from '#http/public-handler';
import { spec } from './stripe-webhook.spec';

/**
 * POST /api/v1/billing/stripe-webhook (public: Stripe's signature is the credential). The raw
 * body is what the signature covers, so it is read as received, never parsed first. A verified
 * event is answered 200 whatever became of it (Stripe retries anything else for days); a forged,
 * stale or unreadable one gets 400 and changes nothing.
 */
export const handler = publicHandler(spec, async (event) => {
  const raw = event.body ?? '';
  const body = event.isBase64Encoded ? Buffer.from(raw, 'base64').toString('utf8') : raw;
  const result = await receiveBillingEvent(billing().events, body, headerValue(event, 'stripe-signature'), originOf(event));
  return jsonResponse(200, successEnvelope({ received: true, result } satisfies StripeWebhookAnswer));
});
