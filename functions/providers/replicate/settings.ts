import * as z from 'zod';
import type { ProviderSettingsModule } from '../provider-module';
import { httpUrl, jsonText, wholeNumber } from '../settings-fields';
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

const settings = z.object({
  baseUrl: httpUrl.default(REPLICATE_DEFAULTS.baseUrl),
  timeoutMs: wholeNumber(1, MAX_TIMEOUT_MS).default(REPLICATE_DEFAULTS.timeoutMs),
  /** JSON text of the model map (model-map.ts); the shipped default-models.json when unset. */
  modelsJson: jsonText.optional(),
});
export type ReplicateSettings = z.infer<typeof settings>;

/** Replicate's settings and secrets (its implementation: index.ts). */
export const replicateSettings: ProviderSettingsModule<'replicate', ReplicateSettings, 'apiToken' | 'webhookSecret'> = {
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
};
