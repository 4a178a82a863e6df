import type { ReferenceImages } from '#adapters/reference-images';
import type { ObjectStorage } from '#adapters/s3/object-storage';
import type { SecretReader } from '#adapters/secrets';
import { powertoolsTelemetry } from '#observability/telemetry';
import type { ProviderConfig } from '#config';
import { loadProviderSetup, type ProviderSetup } from '#config/providers';
import type { LifecycleConfig } from '#config/service';
import type { GenerationProvider } from '#domain/providers/provider';
import type { ProviderParts } from '#providers/provider-module';
import { providerModule } from '#providers/registry';
import { providerSettings } from '#providers/settings-registry';
import type { ProviderRoutes } from '#domain/providers/choice';
import { simulated } from '#providers/simulated/index';
import { appLifecycleConfig } from './config';

/** What the functions that start and follow tasks read: the lifecycle's settings and the providers'. */
export type TaskConfig = LifecycleConfig & ProviderSetup;

let setup: ProviderSetup | undefined;

/** The providers' settings, read from the environment once per cold start by the functions that call one. */
export function appProviderSetup(): ProviderSetup {
  setup ??= loadProviderSetup();
  return setup;
}

/** This process's task configuration, each group read once. */
export function appTaskConfig(): TaskConfig {
  return { ...appLifecycleConfig(), ...appProviderSetup() };
}

/**
 * Secrets Manager, loaded on the first secret read: a provider reads its secret on its first
 * call, and a simulated stage or a function that only reads tasks may never make one.
 */
const readSecretLazily =
  (region: string): SecretReader =>
  async (secretArn) =>
    (await import('#adapters/secrets')).readSecret(region, secretArn);

/**
 * The configured generation provider, built by its module (functions/providers/registry.ts).
 * Building it makes no network call. `readSecretValue` reads Secrets Manager (a test passes its own).
 */
export function buildProvider(
  config: TaskConfig,
  storage: ObjectStorage,
  references: ReferenceImages,
  readSecretValue: SecretReader = readSecretLazily(config.region),
): GenerationProvider {
  return build(config.provider, partsFor(config, storage, references, readSecretValue));
}

/**
 * The other providers configured here, by name, each built on its first use: tasks that
 * recorded one are followed there after PROVIDER changed. `wrap` decorates each (metrics).
 */
export function buildOtherProviders(
  config: TaskConfig,
  storage: ObjectStorage,
  references: ReferenceImages,
  wrap: (provider: GenerationProvider) => GenerationProvider = (provider) => provider,
): (name: string) => GenerationProvider | undefined {
  const parts = partsFor(config, storage, references, readSecretLazily(config.region));
  const built = new Map<string, GenerationProvider>();
  return (name) => {
    const settings = config.otherProviders?.find((other) => other.name === name);
    if (!settings) return undefined;
    if (!built.has(name)) built.set(name, wrap(build(settings, parts)));
    return built.get(name);
  };
}

/** The provider of test-mode tasks: always a simulated one, so a test key never reaches the real upstream. */
export function buildTestProvider(config: TaskConfig, storage: ObjectStorage, references: ReferenceImages): GenerationProvider {
  // Its callbacks are signed with SIM_CALLBACK_SECRET only with PROVIDER=simulated (then it is the
  // configured provider itself): with another provider, test-mode tasks are followed by polls.
  return simulated.create({ name: 'simulated', delaySeconds: config.testModeDelaySeconds, concurrency: config.testModeConcurrency ?? 0 }, partsFor(config, storage, references, () => {
    throw new Error('The simulated provider reads no secret.');
  }));
}

function build(settings: ProviderConfig, parts: ProviderParts): GenerationProvider {
  const module = providerModule(settings.name);
  if (!module) throw new Error(`No provider module "${settings.name}".`);
  return module.create(settings, parts);
}

function partsFor(config: TaskConfig, storage: ObjectStorage, references: ReferenceImages, readSecretValue: SecretReader): ProviderParts {
  return { storage, references, simulatedOutputs: config.simulatedOutputs, readSecretValue, telemetry: powertoolsTelemetry };
}

/**
 * The routes, once each route's provider is known to serve its model (its model map): checked
 * at cold start, so a route no provider can take fails the deploy's first call loudly instead
 * of failing every start over to the next route.
 */
export function checkRoutes(config: TaskConfig): ProviderRoutes {
  const configured = [config.provider, ...(config.otherProviders ?? [])];
  for (const [model, names] of Object.entries(config.routes ?? {})) {
    for (const name of names ?? []) {
      const settings = configured.find((provider) => provider.name === name);
      if (!settings) throw new Error(`PROVIDER_ROUTES routes ${model} to "${name}", which is not configured here (its secrets are missing).`);
      const served = providerModule(name)!.models(settings);
      if (!served.some((id) => id === model)) {
        throw new Error(`PROVIDER_ROUTES routes ${model} to "${name}", whose model map does not serve it (it serves ${served.join(', ') || 'nothing'}).`);
      }
    }
  }
  return config.routes ?? {};
}

/** Creates a second each paced provider allows: PROVIDER_BUDGET_PER_SECOND for PROVIDER, each other's default. */
export function providerBudgets(config: TaskConfig): Record<string, number> {
  const budgets: Record<string, number> = {};
  for (const other of config.otherProviders ?? []) {
    const perSecond = providerSettings(other.name)?.budgetPerSecond;
    if (perSecond !== undefined) budgets[other.name] = perSecond;
  }
  if (config.budgetPerSecond !== undefined) budgets[config.provider.name] = config.budgetPerSecond;
  return budgets;
}
