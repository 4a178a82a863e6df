import type { ProviderModule, SomeProviderModule } from '../provider-module';
import { simulated } from '../simulated/index';
import type { SimulatedSettings } from '../simulated/settings';
import { simulatedBSettings } from './settings';

export { simulatedBSettings } from './settings';

/** The first one's implementation, built under its own name (its jobs report as simulated-b's). */
const simulatedImplementation: SomeProviderModule = simulated;

/** The second simulated provider (its settings: settings.ts). */
export const simulatedB: ProviderModule<'simulated-b', SimulatedSettings, 'callbackSecret'> = {
  ...simulatedBSettings,
  models: (configured) => simulatedImplementation.models(configured),
  create: (configured, parts) => simulatedImplementation.create(configured, parts),
};
