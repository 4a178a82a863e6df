import { httpUrl, jsonText, setting, wholeNumber, type ValuesOf } from '#config/setting';
import type { ProviderSettingsModule } from '../provider-module';
import { isCallbackSecret } from '../signed-callback';

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

const settings = {
  baseUrl: setting({ variable: 'REPLICATE_BASE_URL', context: 'replicateBaseUrl', kind: httpUrl, default: REPLICATE_DEFAULTS.baseUrl as string, doc: "Replicate's API." }),
  timeoutMs: setting({
    variable: 'REPLICATE_TIMEOUT_MS',
    context: 'replicateTimeoutMs',
    kind: wholeNumber(1, MAX_TIMEOUT_MS),
    default: REPLICATE_DEFAULTS.timeoutMs as number,
    doc: 'How long one call to Replicate may take.',
  }),
  /** JSON text of the model map (model-map.ts); the shipped default-models.json when unset. */
  modelsJson: setting({
    variable: 'REPLICATE_MODELS',
    context: 'replicateModels',
    kind: jsonText,
    delivery: 'bundle',
    doc: 'Which Replicate model serves each of our models (JSON, model-map.ts); unset: the shipped default-models.json.',
  }),
};
export type ReplicateSettings = ValuesOf<typeof settings>;

/** Replicate's settings and secrets (its implementation: index.ts). */
export const replicateSettings: ProviderSettingsModule<'replicate', ReplicateSettings, 'apiToken' | 'webhookSecret'> = {
  name: 'replicate',
  settings,
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
};
