import { SECRET_MAX_AGE_SECONDS } from '#adapters/secret-max-age';
import { lazyProvider } from '../lazy-provider';
import type { ProviderModule, SecretSource } from '../provider-module';
import defaultModels from './default-models.json';
import { MODEL_IDS, parseModelMap, type ReplicateModelMap } from './model-map';
import { ReplicateProvider } from './replicate-provider';
import { replicateSettings, type ReplicateSettings } from './settings';

export { REPLICATE_DEFAULTS, replicateSettings, type ReplicateSettings } from './settings';

const modelMap = ({ modelsJson }: ReplicateSettings): ReplicateModelMap =>
  parseModelMap(modelsJson === undefined ? defaultModels : JSON.parse(modelsJson));

export const replicate: ProviderModule<'replicate', ReplicateSettings, 'apiToken' | 'webhookSecret'> = {
  ...replicateSettings,
  models: (configured) => MODEL_IDS.filter((id) => modelMap(configured)[id] !== undefined),

  create(configured, { readSecretValue, telemetry }) {
    const models = modelMap(configured);
    const build = (apiToken: string, webhookSecret: string | undefined) =>
      new ReplicateProvider({
        baseUrl: configured.baseUrl,
        apiToken,
        timeoutMs: configured.timeoutMs,
        models,
        ...(webhookSecret !== undefined && { webhookSecret }),
      });
    const { apiToken: token, webhookSecret } = configured;
    if (!token) throw new Error('The replicate provider needs its API token.');
    if ('value' in token && (webhookSecret === undefined || 'value' in webhookSecret)) {
      return build(token.value, webhookSecret?.value);
    }
    // On AWS the token and the webhook secret stay in Secrets Manager, read on the first
    // provider call (only the functions that call the provider are allowed to read them) and
    // again every few minutes, so a rotated one is picked up without a redeploy.
    const reveal = (source: SecretSource) => ('value' in source ? Promise.resolve(source.value) : readSecretValue(source.secretArn));
    return lazyProvider(
      'replicate',
      async () => {
        const [apiToken, secret] = await Promise.all([reveal(token), webhookSecret && reveal(webhookSecret)]);
        return build(apiToken, secret);
      },
      {
        rebuildAfterMs: SECRET_MAX_AGE_SECONDS * 1000,
        onRebuildError: (error) => telemetry.warn('provider secrets not refreshed; the previous ones stay in use', { error: String(error) }),
      },
    );
  },
};
