import * as z from 'zod';
import { SUBSCRIPTION_STATUSES } from '#domain/accounts/account';
import { PLAN_INTERVALS, SUBSCRIPTION_PAYMENTS_SHOWN } from '#domain/billing/billing';
import type { BillingOverview, CheckoutChoice } from '#domain/billing/billing-account';
import { ValidationError } from '#domain/shared/errors';
import { successEnvelopeSchema } from './envelope';
import { jsonObject } from './fields';

/** Billing (session only; the webhook is Stripe's): packs, the plan, checkout and the portal. */

const amount = z.number().int().meta({ description: "In the currency's minor unit (cents for usd)." });
const currency = z.string().meta({ description: 'ISO 4217, lower case.', examples: ['usd'] });

export const billingView = z
  .object({
    packs: z
      .array(
        z.object({
          pack_id: z.string().meta({ examples: ['starter'] }),
          credits: z.number().int().meta({ description: 'Credits the pack adds to the live balance.' }),
          amount,
          currency,
        }),
      )
      .meta({ description: 'Credit packs for sale (live mode).' }),
    plan: z
      .object({ amount, currency, interval: z.enum(PLAN_INTERVALS) })
      .nullable()
      .meta({ description: 'The subscription plan (paid access and an active subscription while it is paid); null when none is offered.' }),
    subscription_status: z.enum(SUBSCRIPTION_STATUSES),
    paid_access: z.boolean(),
    subscription_payments: z
      .array(
        z.object({
          invoice_id: z.string().meta({ description: "Stripe's invoice (`in_…`).", examples: ['in_1QfZ2c2eZvKYlo2C'] }),
          amount,
          currency,
          paid_at: z.string().meta({ description: 'When it was paid (ISO 8601).' }),
        }),
      )
      .meta({
        description: `The subscription's latest payments (at most ${SUBSCRIPTION_PAYMENTS_SHOWN}), newest first; empty in test mode. Credit packs bought are the \`purchase\` entries of \`GET /credits/transactions\`.`,
      }),
  })
  .meta({ id: 'Billing' });
export const billingResponse = successEnvelopeSchema('BillingResponse', billingView);

export function toBillingView(overview: BillingOverview): z.infer<typeof billingView> {
  return {
    packs: overview.packs.map((pack) => ({ pack_id: pack.packId, credits: pack.credits, amount: pack.amount, currency: pack.currency })),
    plan: overview.plan ? { amount: overview.plan.amount, currency: overview.plan.currency, interval: overview.plan.interval } : null,
    subscription_status: overview.account.subscriptionStatus,
    paid_access: overview.account.paidAccess,
    subscription_payments: overview.subscriptionPayments.map((payment) => ({
      invoice_id: payment.invoiceId,
      amount: payment.amount,
      currency: payment.currency,
      paid_at: payment.paidAt,
    })),
  };
}

export const checkoutBody = jsonObject({
  pack_id: z.string({ error: 'must be a string' }).min(1, 'must not be empty').max(100, 'must be at most 100 characters').optional(),
  plan: z.literal(true, { error: 'must be true' }).optional(),
});
export const checkoutRequest = checkoutBody.meta({ id: 'CheckoutRequest', description: 'Either `{ "pack_id": … }` or `{ "plan": true }`.' });

export function parseCheckout(body: unknown): CheckoutChoice {
  const parsed = checkoutBody.parse(body);
  if (parsed.pack_id !== undefined && parsed.plan) throw new ValidationError('pack_id: send either pack_id or plan, not both.', 'pack_id');
  if (parsed.pack_id !== undefined) return { packId: parsed.pack_id };
  if (parsed.plan) return { plan: true };
  throw new ValidationError('pack_id: send { "pack_id": … } to buy a pack or { "plan": true } to subscribe.', 'pack_id');
}

export const redirectView = z
  .object({ url: z.string().meta({ description: 'Send the holder here (Stripe Checkout or the customer portal; locally, the simulated pages).' }) })
  .meta({ id: 'BillingRedirect' });
export const redirectResponse = successEnvelopeSchema('BillingRedirectResponse', redirectView);

export const stripeWebhookAnswer = z
  .object({
    received: z.literal(true),
    result: z.enum(['applied', 'duplicate', 'stale', 'ignored', 'unknown_account']).meta({
      description:
        '`applied`: the account changed; `duplicate`: already applied (a repeat or a replay), nothing changed; `stale`: a subscription event older than the one applied, nothing changed; `ignored`: a type or payment we do not act on; `unknown_account`: no account of ours (logged for operators).',
    }),
  })
  .meta({ id: 'StripeWebhookAnswer' });
export const stripeWebhookResponse = successEnvelopeSchema('StripeWebhookResponse', stripeWebhookAnswer);
export type StripeWebhookAnswer = z.infer<typeof stripeWebhookAnswer>;
