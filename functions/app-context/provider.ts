import type { ReferenceImages } from '../adapters/reference-images';
import type { ObjectStorage } from '../adapters/s3/object-storage';
import { readSecret, SECRET_MAX_AGE_SECONDS } from '../adapters/secrets';
import { powertoolsTelemetry } from '../observability/telemetry';
import type { Config } from '../config';
import type { GenerationProvider } from '../domain/provider';
import { lazyProvider } from '../providers/lazy-provider';
import defaultReplicateModels from '../providers/replicate/default-models.json';
import { parseModelMap } from '../providers/replicate/model-map';
import { ReplicateProvider } from '../providers/replicate/replicate-provider';
import { SimulatedProvider } from '../providers/simulated/simulated-provider';

/** The configured generation provider. Building it makes no network call. */
export function buildProvider({ provider: config, region }: Config, storage: ObjectStorage, references: ReferenceImages): GenerationProvider {
  if (config.name === 'replicate') {
    const models = parseModelMap(config.modelsJson ? JSON.parse(config.modelsJson) : defaultReplicateModels);
    const replicate = (apiToken: string) =>
      new ReplicateProvider({ baseUrl: config.baseUrl, apiToken, timeoutMs: config.timeoutMs, models });
    const token = config.apiToken;
    if ('value' in token) return replicate(token.value);
    // On AWS the token stays in Secrets Manager, read on the first provider call (only the
    // functions that call the provider are allowed to read it) and again every few minutes,
    // so a rotated token is picked up without a redeploy.
    return lazyProvider('replicate', async () => replicate(await readSecret(region, token.secretArn)), {
      rebuildAfterMs: SECRET_MAX_AGE_SECONDS * 1000,
      onRebuildError: (error) =>
        powertoolsTelemetry.warn('provider token not refreshed; the previous one stays in use', { error: String(error) }),
    });
  }
  return new SimulatedProvider({
    storage,
    delayMs: config.delaySeconds * 1000,
    fetchReference: (url) => references.read(url),
  });
}
