import type { ReferenceImages } from '../adapters/reference-images';
import type { ObjectStorage } from '../adapters/s3/object-storage';
import { readSecret, SECRET_MAX_AGE_SECONDS, type SecretReader } from '../adapters/secrets';
import { powertoolsTelemetry } from '../observability/telemetry';
import type { Config, SecretSource, SimulatedOutputs } from '../config';
import type { GenerationProvider } from '../domain/provider';
import { lazyProvider } from '../providers/lazy-provider';
import defaultReplicateModels from '../providers/replicate/default-models.json';
import { parseModelMap } from '../providers/replicate/model-map';
import { ReplicateProvider } from '../providers/replicate/replicate-provider';
import { SimulatedProvider } from '../providers/simulated/simulated-provider';

/**
 * The configured generation provider. Building it makes no network call. `readSecretValue`
 * reads Secrets Manager (a test passes its own).
 */
export function buildProvider(
  { provider: config, region, simulatedOutputs }: Config,
  storage: ObjectStorage,
  references: ReferenceImages,
  readSecretValue: SecretReader = (secretArn) => readSecret(region, secretArn),
): GenerationProvider {
  if (config.name === 'replicate') {
    const models = parseModelMap(config.modelsJson ? JSON.parse(config.modelsJson) : defaultReplicateModels);
    const replicate = (apiToken: string, webhookSecret: string | undefined) =>
      new ReplicateProvider({
        baseUrl: config.baseUrl,
        apiToken,
        timeoutMs: config.timeoutMs,
        models,
        ...(webhookSecret !== undefined && { webhookSecret }),
      });
    const { apiToken: token, webhookSecret } = config;
    if ('value' in token && (webhookSecret === undefined || 'value' in webhookSecret)) {
      return replicate(token.value, webhookSecret?.value);
    }
    // On AWS the token and the webhook secret stay in Secrets Manager, read on the first
    // provider call (only the functions that call the provider are allowed to read them) and
    // again every few minutes, so a rotated one is picked up without a redeploy.
    const reveal = (source: SecretSource) => ('value' in source ? Promise.resolve(source.value) : readSecretValue(source.secretArn));
    return lazyProvider(
      'replicate',
      async () => {
        const [apiToken, secret] = await Promise.all([reveal(token), webhookSecret && reveal(webhookSecret)]);
        return replicate(apiToken, secret);
      },
      {
        rebuildAfterMs: SECRET_MAX_AGE_SECONDS * 1000,
        onRebuildError: (error) =>
          powertoolsTelemetry.warn('provider secrets not refreshed; the previous ones stay in use', { error: String(error) }),
      },
    );
  }
  return simulatedProvider({ delaySeconds: config.delaySeconds, outputs: simulatedOutputs, callbackSecret: config.callbackSecret }, storage, references);
}

/** The provider of test-mode tasks: always a simulated one, so a test key never reaches the real upstream. */
export function buildTestProvider(config: Config, storage: ObjectStorage, references: ReferenceImages): GenerationProvider {
  // Its callbacks are signed with SIM_CALLBACK_SECRET, read only with PROVIDER=simulated: with
  // another provider, test-mode tasks are followed by polls.
  const callbackSecret = config.provider.name === 'simulated' ? config.provider.callbackSecret : undefined;
  return simulatedProvider(
    { delaySeconds: config.testModeDelaySeconds, outputs: config.simulatedOutputs, callbackSecret },
    storage,
    references,
  );
}

function simulatedProvider(
  { delaySeconds, outputs, callbackSecret }: { delaySeconds: number; outputs: SimulatedOutputs; callbackSecret: string | undefined },
  storage: ObjectStorage,
  references: ReferenceImages,
): GenerationProvider {
  return new SimulatedProvider({
    storage,
    delayMs: delaySeconds * 1000,
    outputs,
    fetchReference: (url) => references.read(url),
    ...(callbackSecret !== undefined && { callbackSecret }),
    // A dropped callback changes nothing: polling and the sweeper still end the task.
    onCallbackError: (error) => powertoolsTelemetry.warn('simulated provider callback dropped', { error: String(error) }),
  });
}
