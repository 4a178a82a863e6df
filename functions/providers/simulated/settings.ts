import { SIM_CONCURRENCY, SIM_DELAY } from '#config/service';
import type { ValuesOf } from '#config/setting';
import type { ProviderSettingsModule } from '../provider-module';
import { isCallbackSecret } from '../signed-callback';

export { SIMULATED_DEFAULTS } from './defaults';

const settings = {
  /** How long a job takes: the stage's `simDelaySeconds`, which test mode reads too (one setting). */
  delaySeconds: SIM_DELAY,
  /** How many jobs run at once (0: no limit), read by test mode too. */
  concurrency: SIM_CONCURRENCY,
};
export type SimulatedSettings = ValuesOf<typeof settings>;

/**
 * The simulated provider: no upstream, jobs kept in our bucket (provider-sim/). It runs every
 * stage's test mode, and a stage's live tasks when chosen. It has no deploy settings: its speed
 * is the stage's `simDelaySeconds` (SIM_DELAY), which test mode reads too.
 */
export const simulatedSettings: ProviderSettingsModule<'simulated', SimulatedSettings, 'callbackSecret'> = {
  name: 'simulated',
  settings,
  secrets: {
    // A Lambda's timers do not outlive its invocation: callbacks are for the local stack only.
    callbackSecret: {
      valueVariable: 'SIM_CALLBACK_SECRET',
      required: false,
      invalid: (value) => (isCallbackSecret(value) ? undefined : 'must be a Standard Webhooks secret: "whsec_" followed by base64'),
    },
  },
};
