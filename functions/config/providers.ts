import type { ProviderRoutes } from '#domain/providers/choice';
import type { ProviderSecret, SecretSource, SomeProviderSettings } from '#providers/provider-module';
import { parseProviderRoutes, routedProviders } from '#providers/route-settings';
import { PROVIDER_NAMES, PROVIDER_SETTINGS_LIST, providerSettings, type ProviderConfig } from '#providers/settings-registry';
import { BUNDLE_DIR, ConfigError, givenValue, jsonText, oneOf, readGroup, setting, wholeNumber, type Env } from './setting';

/** Which providers new tasks go to. */
export const PROVIDERS = {
  provider: setting({ variable: 'PROVIDER', context: 'provider', kind: oneOf(PROVIDER_NAMES as unknown as readonly [string, ...string[]]), required: true, doc: 'The provider new live tasks are submitted to.' }),
  routesJson: setting({
    variable: 'PROVIDER_ROUTES',
    context: 'providerRoutes',
    kind: jsonText,
    doc: 'Per model, the providers new live tasks go to, in order (JSON: model id -> list of providers); unset: PROVIDER alone.',
  }),
  budgetPerSecond: setting({
    variable: 'PROVIDER_BUDGET_PER_SECOND',
    kind: wholeNumber(1),
    doc: "Creates a second PROVIDER allows us; unset: its module's default (10 for Replicate and fal).",
  }),
};

const optional = (env: Env, name: string) => givenValue(env[name]) as string | undefined;

/**
 * The generation providers this function may call, read only by the functions that call one
 * (app-context/provider.ts): their settings are validated with each provider's schema, which the
 * authorizer and the read-only routes have no reason to load.
 */
export interface ProviderSetup {
  /** The provider new live tasks are submitted to (PROVIDER). */
  provider: ProviderConfig;
  /**
   * The other providers whose settings are given (the simulated one always): a task that
   * recorded one is still followed on it after PROVIDER changed. Unset: none.
   */
  otherProviders?: ProviderConfig[];
  /**
   * Per model, the providers new live tasks go to, in order (PROVIDER_ROUTES, JSON); unset:
   * PROVIDER alone. Every provider named is configured (its secrets given) or the start fails.
   */
  routes?: ProviderRoutes;
  /** Creates a second PROVIDER allows us (PROVIDER_BUDGET_PER_SECOND, else its default); unset: not paced. */
  budgetPerSecond?: number;
}

/** `bundleDir`: where the files the deploy ships beside the bundle are (the model maps; a test passes its own). */
export function loadProviderSetup(env: Env = process.env, bundleDir: string = BUNDLE_DIR): ProviderSetup {
  const { provider: name, routesJson, budgetPerSecond: budget } = readGroup(PROVIDERS, env);
  const chosen = providerSettings(name)!;
  const routes = providerRoutes(routesJson);
  const routed = routes ? routedProviders(routes) : [];
  const otherProviders = PROVIDER_SETTINGS_LIST.filter((module) => module.name !== name && (!module.onlyWhereNamed || routed.includes(module.name)))
    .map((module) => providerConfig(module, env, bundleDir, routed.includes(module.name) ? routeNeed(routes!, module.name, name) : undefined))
    .filter((config) => config !== undefined);
  const budgetPerSecond = budget ?? chosen.budgetPerSecond;
  return {
    provider: providerConfig(chosen, env, bundleDir, `PROVIDER=${name}`)!,
    ...(otherProviders.length > 0 && { otherProviders }),
    ...(routes && { routes }),
    ...(budgetPerSecond !== undefined && { budgetPerSecond }),
  };
}

/** A provider's secret, as its value or as its Secrets Manager ARN; a bad value's message never shows it. */
function secretSource(env: Env, secret: ProviderSecret): SecretSource | undefined {
  const value = optional(env, secret.valueVariable);
  if (value !== undefined) {
    const problem = secret.invalid?.(value);
    if (problem) throw new ConfigError(`${secret.valueVariable} ${problem} (the value is not shown).`);
    return { value };
  }
  const secretArn = secret.deployed && optional(env, secret.deployed.arnVariable);
  return secretArn ? { secretArn } : undefined;
}

/** Why a routed provider must be configured, for the start-up error: the routes that name it. */
function routeNeed(routes: ProviderRoutes, provider: string, chosen: string): string {
  const models = Object.entries(routes).flatMap(([model, names]) => (names?.includes(provider) ? [model] : []));
  return `PROVIDER_ROUTES routes ${models.join(', ')} to ${provider}; PROVIDER=${chosen}`;
}

/**
 * One provider's settings and secrets. `neededBy` says why it must be configured (PROVIDER
 * chose it, or routes name it), for the error naming a missing secret; without it, a provider
 * whose required secrets are not given is not configured here (undefined).
 */
function providerConfig(module: SomeProviderSettings, env: Env, bundleDir: string, neededBy: string | undefined): ProviderConfig | undefined {
  const secrets: Record<string, SecretSource> = {};
  for (const [field, secret] of Object.entries(module.secrets)) {
    const source = secretSource(env, secret);
    if (source) secrets[field] = source;
    else if (secret.required) {
      if (neededBy === undefined) return undefined;
      const names = [secret.valueVariable, secret.deployed?.arnVariable].filter(Boolean).join(' or ');
      throw new ConfigError(`Missing ${names} (${neededBy}).`);
    }
  }
  const values = Object.fromEntries(Object.entries(readGroup(module.settings, env, bundleDir)).filter(([, value]) => value !== undefined));
  return { name: module.name, ...values, ...secrets } as ProviderConfig;
}

function providerRoutes(raw: string | undefined): ProviderRoutes | undefined {
  if (raw === undefined) return undefined;
  try {
    return parseProviderRoutes(raw);
  } catch (error) {
    throw new ConfigError(`PROVIDER_ROUTES ${(error as Error).message}; got '${raw}'.`);
  }
}
