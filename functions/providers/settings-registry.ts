import type { ConfigurationOf, SomeProviderSettings } from './provider-module';
import { falSettings } from './fal/settings';
import { replicateSettings } from './replicate/settings';
import { simulatedSettings } from './simulated/settings';
import { simulatedBSettings } from './simulated-b/settings';

/**
 * Every provider's settings and secrets, for the code that reads configuration (functions/
 * config.ts, lib/): no provider's implementation comes with them (that list: registry.ts).
 */
export const PROVIDER_SETTINGS = [replicateSettings, falSettings, simulatedSettings, simulatedBSettings] as const;

export type ProviderName = (typeof PROVIDER_SETTINGS)[number]['name'];
/** One provider's settings and secrets, as functions/config/ read them. */
export type ProviderConfig = ConfigurationOf<(typeof PROVIDER_SETTINGS)[number]>;
export const PROVIDER_SETTINGS_LIST: readonly SomeProviderSettings[] = PROVIDER_SETTINGS;
export const PROVIDER_NAMES = PROVIDER_SETTINGS.map((module) => module.name) as readonly ProviderName[];

/** A provider's settings by name; undefined for a name this code base does not know. */
export function providerSettings(name: string): SomeProviderSettings | undefined {
  return PROVIDER_SETTINGS_LIST.find((module) => module.name === name);
}
