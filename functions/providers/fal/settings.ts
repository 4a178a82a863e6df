import * as z from 'zod';
import type { ProviderSettingsModule } from '../provider-module';
import { httpUrl, jsonText, wholeNumber } from '../settings-fields';

/** As Replicate's: a start's provider calls share the function's 28 s with its account's races. */
const MAX_TIMEOUT_MS = 15_000;

export const FAL_DEFAULTS = {
  /** The queue API (https://docs.fal.ai/model-apis/model-endpoints/queue). */
  baseUrl: 'https://queue.fal.run',
  /** fal's webhook signing keys (https://docs.fal.ai/model-apis/model-endpoints/webhooks, "Verifying Your Webhook"). */
  jwksUrl: 'https://rest.fal.ai/.well-known/jwks.json',
  timeoutMs: 10_000,
  /**
   * fal limits concurrent running requests, not creates (extra ones wait in its queue); we still
   * pace creates so one burst of ours never meets a 429 (docs/tasks.md, "fal.ai").
   */
  budgetPerSecond: 10,
} as const;

const settings = z.object({
  baseUrl: httpUrl.default(FAL_DEFAULTS.baseUrl),
  jwksUrl: httpUrl.default(FAL_DEFAULTS.jwksUrl),
  timeoutMs: wholeNumber(1, MAX_TIMEOUT_MS).default(FAL_DEFAULTS.timeoutMs),
  /** JSON text of the model map (model-map.ts); the shipped default-models.json when unset. */
  modelsJson: jsonText.optional(),
});
export type FalSettings = z.infer<typeof settings>;

/** fal.ai's settings and secret (its implementation: index.ts). */
export const falSettings: ProviderSettingsModule<'fal', FalSettings, 'apiKey'> = {
  name: 'fal',
  settings,
  variables: { baseUrl: 'FAL_BASE_URL', jwksUrl: 'FAL_JWKS_URL', timeoutMs: 'FAL_TIMEOUT_MS', modelsJson: 'FAL_MODELS' },
  contextKeys: { baseUrl: 'falBaseUrl', jwksUrl: 'falJwksUrl', timeoutMs: 'falTimeoutMs', modelsJson: 'falModels' },
  secrets: {
    // Also keys our callback URLs' tokens: fal signs its webhooks with its own keys (JWKS), not a shared secret.
    apiKey: {
      valueVariable: 'FAL_KEY',
      deployed: { arnVariable: 'FAL_KEY_SECRET_ARN', context: 'falSecret', defaultName: 'fal-api-key' },
      required: true,
    },
  },
  budgetPerSecond: FAL_DEFAULTS.budgetPerSecond,
};
