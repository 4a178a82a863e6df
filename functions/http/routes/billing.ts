import { billingResponse, checkoutRequest, redirectResponse, stripeWebhookResponse } from '#contract/billing';
import { creditsResponse } from '#contract/credits';
import { ok } from '#contract/examples';
import { TEST_SUBSCRIPTION_REFUSED } from '#domain/billing/billing-account';
import type { RouteDoc } from '../route';
import { json } from './operation-doc';

/** A signed-in holder's session token in the curl examples. */
const SESSION = '\\\n  -H "Authorization: Bearer $SESSION_TOKEN"';
const SESSION_ONLY = 'Session only (the console\'s signed-in holder): an API key gets 403 `forbidden`.';

/** Billing: what the console's Billing page calls (sessions), and Stripe's webhook. */
export const BILLING_DOCS: RouteDoc[] = [
  {
    handler: 'get-billing',
    doc: {
      operationId: 'getBilling',
      summary: 'Get the packs, the plan and your subscription',
      description: `The credit packs for sale and the subscription plan (amounts in the currency's minor unit), with the account's subscription status, paid access and the subscription's latest payments. ${SESSION_ONLY}`,
      tag: 'Account',
      success: {
        description: 'What can be bought and where the account stands.',
        ...json(
          billingResponse,
          ok({
            packs: [{ pack_id: 'starter', credits: 500, amount: 500, currency: 'usd' }],
            plan: { amount: 2000, currency: 'usd', interval: 'month' },
            subscription_status: 'active',
            paid_access: true,
            subscription_payments: [{ invoice_id: 'in_1QfZ2c2eZvKYlo2C', amount: 2000, currency: 'usd', paid_at: '2026-11-02T09:14:05.000Z' }],
          }),
        ),
      },
      errors: [401, 403, 429, 500],
      curl: `curl -s "{BASE}/billing" ${SESSION}`,
    },
  },
  {
    handler: 'create-checkout',
    doc: {
      operationId: 'createCheckout',
      summary: 'Buy a credit pack or subscribe',
      description: `A Stripe Checkout page for a pack (\`{ "pack_id": … }\`, one payment) or the plan (\`{ "plan": true }\`, a subscription); send the holder to \`url\`. The credits, the subscription and paid access arrive with Stripe's events, once paid. Live mode only. ${SESSION_ONLY}`,
      tag: 'Account',
      request: { body: { content: { 'application/json': { schema: checkoutRequest, example: { pack_id: 'starter' } } }, required: true } },
      success: { description: 'Where to pay.', ...json(redirectResponse, ok({ url: 'https://checkout.stripe.com/c/pay/cs_live_a1B2c3' })) },
      errors: [400, 401, 403, 429, 500, 502],
      errorNotes: {
        400: { description: 'An unknown `pack_id`, neither or both of `pack_id` and `plan`, a subscription already held, or a request in test mode.', example: 'pack_id: no pack "huge" (packs: "starter", "pro").' },
        502: { description: 'Stripe did not answer or refused; nothing was charged.', example: 'Stripe did not answer in time or failed; nothing was charged. Try again.' },
      },
      curl: `curl -s -X POST "{BASE}/billing/checkout" ${SESSION} \\\n  -H "Content-Type: application/json" -d '{"pack_id":"starter"}'`,
    },
  },
  {
    handler: 'create-portal',
    doc: {
      operationId: 'createBillingPortal',
      summary: 'Manage the subscription',
      description: `The Stripe customer portal for the account (change the card, cancel the subscription, see invoices); send the holder to \`url\`. ${SESSION_ONLY}`,
      tag: 'Account',
      success: { description: 'The portal.', ...json(redirectResponse, ok({ url: 'https://billing.stripe.com/p/session/live_a1B2c3' })) },
      errors: [401, 403, 429, 500, 502],
      curl: `curl -s -X POST "{BASE}/billing/portal" ${SESSION}`,
    },
  },
  {
    handler: 'add-test-credits',
    doc: {
      operationId: 'addTestCredits',
      summary: 'Add test credits',
      description: `Adds 1000 credits to the test balance (a \`grant\` in its transactions). Test mode only (\`Vidgen-Mode: test\`): live credits are bought. ${SESSION_ONLY}`,
      tag: 'Account',
      success: { description: 'The test balance after the grant.', ...json(creditsResponse, ok({ credits: 2000, paid_access: false, subscription_status: 'none' })) },
      errors: [400, 401, 403, 429, 500],
      errorNotes: { 400: { description: 'Not in test mode.', example: 'Test credits are for test mode: send Vidgen-Mode: test.' } },
      curl: `curl -s -X POST "{BASE}/billing/test-credits" ${SESSION} -H "Vidgen-Mode: test"`,
    },
  },
  {
    handler: 'start-test-subscription',
    doc: {
      operationId: 'startTestSubscription',
      summary: 'Start a test subscription',
      description: `Test mode then has paid access and an active subscription, so images and the "subscription required" models run there, on test credits and the simulated provider; nothing is charged. Without one, test mode has the live account's access and refuses as live does (\`paid_access_required\`). Starting it again answers the same. Test mode only (\`Vidgen-Mode: test\`): live mode subscribes with \`POST /billing/checkout\`. ${SESSION_ONLY}`,
      tag: 'Account',
      success: { description: 'The test balance and its access, as `GET /credits` shows them in test mode.', ...json(creditsResponse, ok({ credits: 1000, paid_access: true, subscription_status: 'active' })) },
      errors: [400, 401, 403, 429, 500],
      errorNotes: { 400: { description: 'Not in test mode.', example: TEST_SUBSCRIPTION_REFUSED.start } },
      curl: `curl -s -X POST "{BASE}/billing/test-subscription" ${SESSION} -H "Vidgen-Mode: test"`,
    },
  },
  {
    handler: 'end-test-subscription',
    doc: {
      operationId: 'endTestSubscription',
      summary: 'End the test subscription',
      description: `Test mode is back to the live account's access (\`subscription_status\` \`canceled\`, unless the live account has a subscription), so a test key is refused \`paid_access_required\` again where a live key would be. Ending it again, or one never started, answers the same. Test mode only (\`Vidgen-Mode: test\`). ${SESSION_ONLY}`,
      tag: 'Account',
      success: { description: 'The test balance and its access, as `GET /credits` shows them in test mode.', ...json(creditsResponse, ok({ credits: 1000, paid_access: false, subscription_status: 'canceled' })) },
      errors: [400, 401, 403, 429, 500],
      errorNotes: { 400: { description: 'Not in test mode.', example: TEST_SUBSCRIPTION_REFUSED.end } },
      curl: `curl -s -X DELETE "{BASE}/billing/test-subscription" ${SESSION} -H "Vidgen-Mode: test"`,
    },
  },
];

/** Called by Stripe, not by API clients: its signature is the credential. */
export const BILLING_WEBHOOK_DOCS: RouteDoc[] = [
  {
    handler: 'stripe-webhook',
    doc: {
      operationId: 'receiveStripeWebhook',
      summary: 'Stripe webhook (internal)',
      description:
        "Where Stripe sends its events; you never call it. No API key: the `Stripe-Signature` header must verify over the raw body with the endpoint's signing secret, within 5 minutes. A missing, forged or stale signature: 400, nothing changes. A verified event is answered 200 whatever it did (a duplicate or a replay changes nothing; an unknown type is ignored; an event for an account we do not know is logged).",
      tag: 'Internal',
      success: { description: 'Received (Stripe does not retry).', ...json(stripeWebhookResponse, ok({ received: true, result: 'applied' })) },
      errors: [400, 500],
      errorNotes: { 400: { description: 'The signature is missing, does not verify or is older than 5 minutes; or the body is not an event.', example: 'Stripe-Signature: does not verify, or is older than 5 minutes.' } },
      curl: `curl -s -X POST "{BASE}/billing/stripe-webhook" -H "Stripe-Signature: t=<time>,v1=<signature>" -H "Content-Type: application/json" -d @event.json`,
    },
  },
];
