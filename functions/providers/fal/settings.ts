import { httpUrl, jsonText, setting, wholeNumber, type ValuesOf } from '#config/setting';
import type { ProviderSettingsModule } from '../provider-module';

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

const settings = {
  baseUrl: setting({ variable: 'FAL_BASE_URL', context: 'falBaseUrl', kind: httpUrl, default: FAL_DEFAULTS.baseUrl as string, doc: "fal's queue API." }),
  jwksUrl: setting({ variable: 'FAL_JWKS_URL', context: 'falJwksUrl', kind: httpUrl, default: FAL_DEFAULTS.jwksUrl as string, doc: "fal's webhook signing keys." }),
  timeoutMs: setting({
    variable: 'FAL_TIMEOUT_MS',
    context: 'falTimeoutMs',
    kind: wholeNumber(1, MAX_TIMEOUT_MS),
    default: FAL_DEFAULTS.timeoutMs as number,
    doc: 'How long one call to fal may take.',
  }),
  /** JSON text of the model map (model-map.ts); the shipped default-models.json when unset. */
  modelsJson: setting({
    variable: 'FAL_MODELS',
    context: 'falModels',
    kind: jsonText,
    delivery: 'bundle',
    doc: 'Which fal endpoint serves each of our models (JSON, model-map.ts); unset: the shipped default-models.json.',
  }),
};
export type FalSettings = ValuesOf<typeof settings>;

/** fal.ai's settings and secret (its implementation: index.ts). */
export const falSettings: ProviderSettingsModule<'fal', FalSettings, 'apiKey'> = {
  name: 'fal',
  settings,
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
