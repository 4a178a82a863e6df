import { readSecret, type SecretReader } from '#adapters/secrets';
import { StripeGateway } from '#adapters/stripe/stripe-gateway';
import { loadBillingConfig, missingStripeSecret, type BillingConfig } from '#config/billing';
import type { SecretSource } from '#providers/provider-module';
import type { BillingDeps } from '#domain/billing/billing-account';
import type { BillingEventDeps } from '#domain/billing/billing-events';
import { powertoolsTelemetry } from '#observability/telemetry';
import { serverUrlOf } from '#openapi/server-url';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { appRegion } from './config';
import { stores, type Stores } from './stores';

/**
 * Billing's wiring: the Stripe gateway and the stores the billing use cases need. Read on first
 * use, so only the billing functions load Stripe's client and need its configuration.
 */
export interface BillingParts {
  config: BillingConfig;
  events: BillingEventDeps;
  /** Without `returnUrl`: a handler fills it in (the configured one, or the API reference). */
  account: Omit<BillingDeps, 'returnUrl'>;
}

export function buildBilling(config: BillingConfig, parts: Pick<Stores, 'accounts' | 'billing' | 'auditLog'>, readSecretValue: SecretReader): BillingParts {
  // Read on use: each billing function is given only the secrets it reads (the webhook never calls Stripe).
  const reveal = (source: SecretSource | undefined, name: 'secretKey' | 'webhookSecret') => () =>
    !source ? Promise.reject(missingStripeSecret(name)) : 'value' in source ? Promise.resolve(source.value) : readSecretValue(source.secretArn);
  const gateway = new StripeGateway({
    secretKey: reveal(config.secretKey, 'secretKey'),
    webhookSecret: reveal(config.webhookSecret, 'webhookSecret'),
    ...(config.stripeApiBase && { apiBase: config.stripeApiBase }),
  });
  const clock = () => new Date();
  return {
    config,
    events: { gateway, billing: parts.billing, catalogue: config.catalogue, telemetry: powertoolsTelemetry, clock },
    account: { accounts: parts.accounts, billing: parts.billing, gateway, catalogue: config.catalogue, auditLog: parts.auditLog, clock },
  };
}

let current: BillingParts | undefined;

/** This process's billing parts (one per cold start). */
export function billing(): BillingParts {
  current ??= buildBilling(loadBillingConfig(), stores(), (secretArn) => readSecret(appRegion(), secretArn));
  return current;
}

/**
 * The holder's billing use cases' dependencies for this request: the configured return URL, or
 * else the API reference at the address the request came through.
 */
export function billingAccount(event: APIGatewayProxyEvent): BillingDeps {
  const parts = billing();
  return { ...parts.account, returnUrl: parts.config.returnUrl ?? `${serverUrlOf(event) ?? ''}/docs` };
}
