import * as z from 'zod';
import { SECRET_MAX_AGE_SECONDS } from '#adapters/secrets';
import { lazyProvider } from '../lazy-provider';
import type { ProviderModule, SecretSource } from '../provider-module';
import { httpUrl, jsonText, wholeNumber } from '../settings-fields';
import { isCallbackSecret } from '../signed-callback';
import defaultModels from './default-models.json';
import { MODEL_IDS, parseModelMap, type ReplicateModelMap } from './model-map';
import { ReplicateProvider } from './replicate-provider';

/**
 * A start may spend 10 s winning its account's races plus the provider call, inside the
 * function's 28 s and API Gateway's 29 s: so Replicate gets at most 15 s.
 */
const MAX_TIMEOUT_MS = 15_000;

export const REPLICATE_DEFAULTS = {
  baseUrl: 'https://api.replicate.com',
  timeoutMs: 10_000,
  /** Replicate allows about 600 creates a minute. */
  budgetPerSecond: 10,
} as const;

const settings = z.object({
  baseUrl: httpUrl.default(REPLICATE_DEFAULTS.baseUrl),
  timeoutMs: wholeNumber(1, MAX_TIMEOUT_MS).default(REPLICATE_DEFAULTS.timeoutMs),
  /** JSON text of the model map (model-map.ts); the shipped default-models.json when unset. */
  modelsJson: jsonText.optional(),
});
export type ReplicateSettings = z.infer<typeof settings>;

const modelMap = ({ modelsJson }: ReplicateSettings): ReplicateModelMap =>
  parseModelMap(modelsJson === undefined ? defaultModels : JSON.parse(modelsJson));

export const replicate: ProviderModule<'replicate', ReplicateSettings, 'apiToken' | 'webhookSecret'> = {
  name: 'replicate',
  settings,
  variables: { baseUrl: 'REPLICATE_BASE_URL', timeoutMs: 'REPLICATE_TIMEOUT_MS', modelsJson: 'REPLICATE_MODELS' },
  contextKeys: { baseUrl: 'replicateBaseUrl', timeoutMs: 'replicateTimeoutMs', modelsJson: 'replicateModels' },
  secrets: {
    apiToken: {
      valueVariable: 'REPLICATE_API_TOKEN',
      deployed: { arnVariable: 'REPLICATE_API_TOKEN_SECRET_ARN', context: 'replicateSecret', defaultName: 'replicate-api-token' },
      required: true,
    },
    // Verifies its callbacks; without it no callbacks are requested (polling only).
    webhookSecret: {
      valueVariable: 'REPLICATE_WEBHOOK_SECRET',
      deployed: { arnVariable: 'REPLICATE_WEBHOOK_SECRET_ARN', context: 'replicateWebhookSecret', defaultName: 'replicate-webhook-secret' },
      required: false,
      invalid: (value) => (isCallbackSecret(value) ? undefined : 'must be a Standard Webhooks secret: "whsec_" followed by base64'),
    },
  },
  budgetPerSecond: REPLICATE_DEFAULTS.budgetPerSecond,
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
