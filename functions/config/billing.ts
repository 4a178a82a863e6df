import { parseCatalogue, STRIPE_SECRETS } from '#adapters/stripe/settings';
import type { BillingCatalogue } from '#domain/billing/billing';
import type { SecretSource } from '#providers/provider-module';
import { ConfigError, optional, url, type Env } from './env';

/** Billing (functions/adapters/stripe/): read only by the functions that bill, so the others never load it. */
export interface BillingConfig {
  catalogue: BillingCatalogue;
  /** Where checkout and the portal send the holder back (the console's billing page); unset: the API reference. */
  returnUrl?: string;
  /** Stripe's API unless given (the local stack's Stripe simulator, a test's). */
  stripeApiBase?: string;
  secretKey: SecretSource;
  webhookSecret: SecretSource;
}

export function loadBillingConfig(env: Env = process.env): BillingConfig {
  let catalogue: BillingCatalogue;
  try {
    catalogue = parseCatalogue(optional(env, 'BILLING_PACKS'), optional(env, 'BILLING_PLAN'));
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
  const secret = (spec: (typeof STRIPE_SECRETS)[keyof typeof STRIPE_SECRETS]): SecretSource => {
    const value = optional(env, spec.valueVariable);
    if (value !== undefined) {
      if (!spec.looksRight(value)) throw new ConfigError(`${spec.valueVariable} must be ${spec.expected} (the value is not shown).`);
      return { value };
    }
    const secretArn = optional(env, spec.arnVariable);
    if (!secretArn) throw new ConfigError(`Missing ${spec.valueVariable} or ${spec.arnVariable} (billing needs Stripe's).`);
    return { secretArn };
  };
  const returnUrl = optional(env, 'BILLING_RETURN_URL') && url(env, 'BILLING_RETURN_URL');
  const stripeApiBase = optional(env, 'STRIPE_API_BASE') && url(env, 'STRIPE_API_BASE');
  return {
    catalogue,
    ...(returnUrl && { returnUrl }),
    ...(stripeApiBase && { stripeApiBase }),
    secretKey: secret(STRIPE_SECRETS.secretKey),
    webhookSecret: secret(STRIPE_SECRETS.webhookSecret),
  };
}
