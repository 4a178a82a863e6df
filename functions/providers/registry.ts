import type { ConfigurationOf, SomeProviderModule } from './provider-module';
import { replicate } from './replicate';
import { simulated } from './simulated';

/**
 * Every provider this code base can talk to. functions/config.ts, app-context/ and lib/ loop
 * over this list: a new provider is a folder exporting its ProviderModule, and a line here.
 */
export const PROVIDERS = [replicate, simulated] as const;

export type ProviderName = (typeof PROVIDERS)[number]['name'];
/** One provider's settings and secrets, as functions/config.ts read them. */
export type ProviderConfig = ConfigurationOf<(typeof PROVIDERS)[number]>;
export const PROVIDER_MODULES: readonly SomeProviderModule[] = PROVIDERS;
export const PROVIDER_NAMES = PROVIDERS.map((module) => module.name) as readonly ProviderName[];

/** The module of a provider by name; undefined for a name this code base does not know. */
export function providerModule(name: string): SomeProviderModule | undefined {
  return PROVIDER_MODULES.find((module) => module.name === name);
}
