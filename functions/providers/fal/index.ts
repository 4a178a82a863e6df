import { createSafeFetcher } from '#adapters/safe-fetch';
import { SECRET_MAX_AGE_SECONDS } from '#adapters/secret-max-age';
import { lazyProvider } from '../lazy-provider';
import type { ProviderModule } from '../provider-module';
import { MODEL_IDS } from '../replicate/model-map';
import defaultModels from './default-models.json';
import { FalProvider } from './fal-provider';
import { parseFalModelMap, type FalModelMap } from './model-map';
import { falSettings, type FalSettings } from './settings';
import { FalWebhookVerifier } from './webhook-signature';

export { FAL_DEFAULTS, falSettings, type FalSettings } from './settings';

/** fal's key set is a few hundred bytes; its fetch is bounded like every outgoing call of ours. */
const JWKS_LIMITS = { maxBytes: 64 * 1024, timeoutMs: 3_000 };

const modelMap = ({ modelsJson }: FalSettings): FalModelMap => parseFalModelMap(modelsJson === undefined ? defaultModels : JSON.parse(modelsJson));

/** fal.ai (its settings: settings.ts). */
export const fal: ProviderModule<'fal', FalSettings, 'apiKey'> = {
  ...falSettings,
  models: (configured) => MODEL_IDS.filter((id) => modelMap(configured)[id] !== undefined),

  create(configured, { readSecretValue, telemetry }) {
    const models = modelMap(configured);
    // The configured JWKS address is ours to trust (a fake's on 127.0.0.1 in tests): refused otherwise only if not public.
    const fetcher = createSafeFetcher({ allowedOrigins: [new URL(configured.jwksUrl).origin], ...JWKS_LIMITS });
    const verifier = new FalWebhookVerifier({ fetchText: async () => (await fetcher.fetchBytes(configured.jwksUrl)).bytes.toString('utf8') });
    const build = (apiKey: string) => new FalProvider({ baseUrl: configured.baseUrl, apiKey, timeoutMs: configured.timeoutMs, models, verifier });
    const { apiKey } = configured;
    if (!apiKey) throw new Error('The fal provider needs its API key.');
    if ('value' in apiKey) return build(apiKey.value);
    // On AWS the key stays in Secrets Manager, read on the first call and again every few minutes (rotation).
    return lazyProvider('fal', async () => build(await readSecretValue(apiKey.secretArn)), {
      rebuildAfterMs: SECRET_MAX_AGE_SECONDS * 1000,
      onRebuildError: (error) => telemetry.warn('provider secrets not refreshed; the previous ones stay in use', { error: String(error) }),
    });
  },
};
