import * as z from 'zod';
import { PLAN_INTERVALS, type BillingCatalogue } from '#domain/billing/billing';

/**
 * What operators configure for billing: the credit packs and the plan (Stripe price ids and
 * what each gives), as JSON in a deploy setting (cdk context `billingPacks`, `billingPlan`)
 * and, at run time, in BILLING_PACKS and BILLING_PLAN. One schema for both, so a typo stops
 * `cdk synth` with the same message a function would give.
 */

const currency = z.string().regex(/^[a-z]{3}$/, 'must be a lower-case ISO 4217 code such as "usd"');
const minorUnits = z.number().int().min(1, 'must be a whole number of minor units >= 1');

const pack = z.object({
  pack_id: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,39}$/, 'must be 1-40 lower-case letters, digits, "_" or "-"'),
  price_id: z.string().startsWith('price_', 'must be a Stripe price id ("price_…")'),
  credits: z.number().int().min(1).max(1_000_000_000),
  amount: minorUnits,
  currency,
});

const plan = z.object({
  price_id: z.string().startsWith('price_', 'must be a Stripe price id ("price_…")'),
  amount: minorUnits,
  currency,
  interval: z.enum(PLAN_INTERVALS),
});

export const packsSetting = z
  .array(pack)
  .max(20)
  .refine((packs) => new Set(packs.map((entry) => entry.pack_id)).size === packs.length, 'must not repeat a pack_id');
export const planSetting = plan;

export type PacksSetting = z.infer<typeof packsSetting>;
export type PlanSetting = z.infer<typeof planSetting>;

/** The catalogue from the two settings' JSON texts (unset: no packs, no plan). Throws a message naming the setting. */
export function parseCatalogue(packsJson: string | undefined, planJson: string | undefined, names = { packs: 'BILLING_PACKS', plan: 'BILLING_PLAN' }): BillingCatalogue {
  const packs = packsJson ? parseJson(packsSetting, packsJson, names.packs) : [];
  const chosenPlan = planJson ? parseJson(planSetting, planJson, names.plan) : undefined;
  return {
    packs: packs.map((entry) => ({ packId: entry.pack_id, priceId: entry.price_id, credits: entry.credits, amount: entry.amount, currency: entry.currency })),
    ...(chosenPlan && { plan: { priceId: chosenPlan.price_id, amount: chosenPlan.amount, currency: chosenPlan.currency, interval: chosenPlan.interval } }),
  };
}

export class BillingSettingsError extends Error {}

function parseJson<T>(schema: z.ZodType<T>, text: string, name: string): T {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new BillingSettingsError(`${name} must be JSON text; got "${text}".`);
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path.length > 0 ? ` (at ${issue.path.join('.')})` : '';
    throw new BillingSettingsError(`${name}${where} ${issue.message}.`);
  }
  return parsed.data;
}

/** Stripe's secret API key and webhook signing secret: their variables, and where they live on AWS. */
export const STRIPE_SECRETS = {
  secretKey: {
    valueVariable: 'STRIPE_SECRET_KEY',
    arnVariable: 'STRIPE_SECRET_KEY_ARN',
    context: 'stripeSecretKeySecret',
    defaultName: 'stripe-secret-key',
    looksRight: (value: string) => /^(sk|rk)_(test|live)_/.test(value),
    expected: 'a Stripe secret or restricted key ("sk_live_…", "sk_test_…", "rk_…")',
  },
  webhookSecret: {
    valueVariable: 'STRIPE_WEBHOOK_SECRET',
    arnVariable: 'STRIPE_WEBHOOK_SECRET_ARN',
    context: 'stripeWebhookSecret',
    defaultName: 'stripe-webhook-secret',
    looksRight: (value: string) => value.startsWith('whsec_'),
    expected: 'a Stripe webhook signing secret ("whsec_…")',
  },
} as const;
