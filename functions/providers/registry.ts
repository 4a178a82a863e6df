import type { SomeProviderModule } from './provider-module';
import { fal } from './fal';
import { replicate } from './replicate';
import { simulated } from './simulated';
import { simulatedB } from './simulated-b';

/**
 * Every provider this code base can talk to, implementation included: app-context/ builds them
 * from here. Their settings alone are listed in settings-registry.ts (what functions/config/
 * and lib/ read). A new provider is a folder with settings.ts and index.ts, and a line in each.
 */
export const PROVIDERS = [replicate, fal, simulated, simulatedB] as const;

export const PROVIDER_MODULES: readonly SomeProviderModule[] = PROVIDERS;

/** The module of a provider by name; undefined for a name this code base does not know. */
export function providerModule(name: string): SomeProviderModule | undefined {
  return PROVIDER_MODULES.find((module) => module.name === name);
}
