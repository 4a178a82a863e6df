import { parseCatalogue, STRIPE_SECRETS } from '#adapters/stripe/settings';
import type { BillingCatalogue } from '#domain/billing/billing';
import type { SecretSource } from '#providers/provider-module';
import { ConfigError, httpUrl, jsonText, readGroup, setting, text, type Env } from './setting';

/**
 * Billing's settings (functions/adapters/stripe/): read only by the functions that bill, so the
 * others never load them. The packs and the plan are JSON whose own schema (adapters/stripe/
 * settings.ts) the deploy and the functions share.
 */
export const BILLING = {
  packsJson: setting({ variable: 'BILLING_PACKS', context: 'billingPacks', kind: jsonText, doc: 'Credit packs (JSON; unset: no packs).' }),
  planJson: setting({ variable: 'BILLING_PLAN', context: 'billingPlan', kind: jsonText, doc: 'The plan (JSON; unset: no plan).' }),
  returnUrl: setting({
    variable: 'BILLING_RETURN_URL',
    context: 'billingReturnUrl',
    kind: httpUrl,
    doc: "Where checkout and the portal send the holder back (the console's billing page); unset: the API reference.",
  }),
  stripeApiBase: setting({ variable: 'STRIPE_API_BASE', kind: httpUrl, doc: "Stripe's API unless given (the local stack's Stripe simulator, a test's)." }),
};

/** Stripe's secrets by value (local use, tests) or by ARN (AWS: each billing function gets only the ARNs it reads). */
export const STRIPE_SECRET_SETTINGS = {
  secretKey: setting({ variable: STRIPE_SECRETS.secretKey.valueVariable, kind: text, doc: "Stripe's secret API key (never in a template)." }),
  secretKeyArn: setting({ variable: STRIPE_SECRETS.secretKey.arnVariable, kind: text, doc: "The Secrets Manager secret holding Stripe's API key." }),
  webhookSecret: setting({ variable: STRIPE_SECRETS.webhookSecret.valueVariable, kind: text, doc: "Stripe's webhook signing secret (never in a template)." }),
  webhookSecretArn: setting({ variable: STRIPE_SECRETS.webhookSecret.arnVariable, kind: text, doc: "The Secrets Manager secret holding Stripe's signing secret." }),
};

export interface BillingConfig {
  catalogue: BillingCatalogue;
  /** Where checkout and the portal send the holder back (the console's billing page); unset: the API reference. */
  returnUrl?: string;
  /** Stripe's API unless given (the local stack's Stripe simulator, a test's). */
  stripeApiBase?: string;
  /** Each secret where it is given; a function that reads one it was not given fails on that read (./billing's `reveal`). */
  secretKey?: SecretSource;
  webhookSecret?: SecretSource;
}

export function loadBillingConfig(env: Env = process.env): BillingConfig {
  const { packsJson, planJson, returnUrl, stripeApiBase } = readGroup(BILLING, env);
  let catalogue: BillingCatalogue;
  try {
    catalogue = parseCatalogue(packsJson, planJson);
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
  const secrets = readGroup(STRIPE_SECRET_SETTINGS, env);
  const secret = (spec: (typeof STRIPE_SECRETS)[keyof typeof STRIPE_SECRETS], value: string | undefined, secretArn: string | undefined): SecretSource | undefined => {
    if (value !== undefined) {
      if (!spec.looksRight(value)) throw new ConfigError(`${spec.valueVariable} must be ${spec.expected} (the value is not shown).`);
      return { value };
    }
    return secretArn ? { secretArn } : undefined;
  };
  const secretKey = secret(STRIPE_SECRETS.secretKey, secrets.secretKey, secrets.secretKeyArn);
  const webhookSecret = secret(STRIPE_SECRETS.webhookSecret, secrets.webhookSecret, secrets.webhookSecretArn);
  return {
    catalogue,
    ...(returnUrl && { returnUrl }),
    ...(stripeApiBase && { stripeApiBase }),
    ...(secretKey && { secretKey }),
    ...(webhookSecret && { webhookSecret }),
  };
}

/** Why a secret the function reads is missing (thrown on that read, not at cold start). */
export function missingStripeSecret(name: keyof typeof STRIPE_SECRETS): ConfigError {
  const spec = STRIPE_SECRETS[name];
  return new ConfigError(`Missing ${spec.valueVariable} or ${spec.arnVariable} (billing needs Stripe's).`);
}
