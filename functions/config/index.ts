import { loadProviderSetup, type ProviderSetup } from './providers';
import { loadServiceConfig, type ServiceConfig } from './service';
import type { Env } from './setting';

/**
 * The whole configuration of a function that starts and follows tasks: what every function
 * reads (./service.ts) and the providers it calls (./providers.ts). Code that needs less reads
 * less: the authorizer and the read-only routes import `#config/service` alone.
 */
export type Config = ServiceConfig & ProviderSetup;

export function loadConfig(env: Env = process.env): Config {
  return { ...loadServiceConfig(env), ...loadProviderSetup(env) };
}

export { ConfigError } from './setting';
export { CONFIG_DEFAULTS, configuredApiBaseUrl, LOCAL_WEBHOOK_RETRY_SCHEDULE, SIMULATED_OUTPUTS } from './service';
export type { CircuitConfig, IdentityConfig, ServiceConfig, SimulatedOutputs, SubmissionConfig, WebhookConfig } from './service';
export type { ProviderSetup } from './providers';
export type { SecretSource } from '#providers/provider-module';
export type { ProviderConfig } from '#providers/settings-registry';
