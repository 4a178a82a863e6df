import type { ProviderSettingsModule } from '../provider-module';
import { simulatedSettings, type SimulatedSettings } from '../simulated/settings';

/**
 * A second simulated provider, to route a model to two providers and watch a start fail over
 * (the local stack; the magic words `sim:down:<name>` and `sim:lost:<name>` pick which one
 * misbehaves). Same settings and callback secret as `simulated`; its jobs are its own.
 */
export const simulatedBSettings: ProviderSettingsModule<'simulated-b', SimulatedSettings, 'callbackSecret'> = {
  ...simulatedSettings,
  name: 'simulated-b',
  onlyWhereNamed: true,
};
