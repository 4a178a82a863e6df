import * as z from 'zod';
import type { ProviderSettingsModule } from '../provider-module';
import { wholeNumber } from '../settings-fields';
import { isCallbackSecret } from '../signed-callback';
import { SIMULATED_DEFAULTS } from './defaults';

export { SIMULATED_DEFAULTS } from './defaults';

const settings = z.object({
  /** How long a job takes. */
  delaySeconds: wholeNumber(0).default(SIMULATED_DEFAULTS.delaySeconds),
});
export type SimulatedSettings = z.infer<typeof settings>;

/**
 * The simulated provider: no upstream, jobs kept in our bucket (provider-sim/). It runs every
 * stage's test mode, and a stage's live tasks when chosen. It has no deploy settings: its speed
 * is the stage's `simDelaySeconds`, which test mode reads too.
 */
export const simulatedSettings: ProviderSettingsModule<'simulated', SimulatedSettings, 'callbackSecret'> = {
  name: 'simulated',
  settings,
  variables: { delaySeconds: 'SIM_DELAY_SECONDS' },
  contextKeys: {},
  secrets: {
    // A Lambda's timers do not outlive its invocation: callbacks are for the local stack only.
    callbackSecret: {
      valueVariable: 'SIM_CALLBACK_SECRET',
      required: false,
      invalid: (value) => (isCallbackSecret(value) ? undefined : 'must be a Standard Webhooks secret: "whsec_" followed by base64'),
    },
  },
};
