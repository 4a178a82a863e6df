import { IMAGE_MODEL_IDS, VIDEO_MODEL_IDS } from '#domain/catalogue/catalogue';
import type { ProviderModule } from '../provider-module';
import { simulatedSettings, type SimulatedSettings } from './settings';
import { SimulatedProvider } from './simulated-provider';

export { SIMULATED_DEFAULTS, simulatedSettings, type SimulatedSettings } from './settings';

/** The simulated provider (its settings: settings.ts). */
export const simulated: ProviderModule<'simulated', SimulatedSettings, 'callbackSecret'> = {
  ...simulatedSettings,
  models: () => [...VIDEO_MODEL_IDS, ...IMAGE_MODEL_IDS],

  create({ name, delaySeconds, concurrency, callbackSecret: secret }, { storage, references, simulatedOutputs, telemetry }) {
    // Given by value only (deployed stages have none).
    const callbackSecret = secret && 'value' in secret ? secret.value : undefined;
    return new SimulatedProvider({
      name,
      storage,
      delayMs: delaySeconds * 1000,
      concurrency,
      outputs: simulatedOutputs,
      fetchReference: (url) => references.read(url),
      ...(callbackSecret !== undefined && { callbackSecret }),
      // A dropped callback changes nothing: polling and the sweeper still end the task.
      onCallbackError: (error) => telemetry.warn('simulated provider callback dropped', { error: String(error) }),
    });
  },
};
