import * as z from 'zod';
import { IMAGE_MODEL_IDS, VIDEO_MODEL_IDS } from '#domain/catalogue';
import type { ProviderModule } from '../provider-module';
import { wholeNumber } from '../settings-fields';
import { isCallbackSecret } from '../signed-callback';
import { SimulatedProvider } from './simulated-provider';

export const SIMULATED_DEFAULTS = { delaySeconds: 10 } as const;

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
export const simulated: ProviderModule<'simulated', SimulatedSettings, 'callbackSecret'> = {
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
  models: () => [...VIDEO_MODEL_IDS, ...IMAGE_MODEL_IDS],

  create({ delaySeconds, callbackSecret: secret }, { storage, references, simulatedOutputs, telemetry }) {
    // Given by value only (deployed stages have none).
    const callbackSecret = secret && 'value' in secret ? secret.value : undefined;
    return new SimulatedProvider({
      storage,
      delayMs: delaySeconds * 1000,
      outputs: simulatedOutputs,
      fetchReference: (url) => references.read(url),
      ...(callbackSecret !== undefined && { callbackSecret }),
      // A dropped callback changes nothing: polling and the sweeper still end the task.
      onCallbackError: (error) => telemetry.warn('simulated provider callback dropped', { error: String(error) }),
    });
  },
};
