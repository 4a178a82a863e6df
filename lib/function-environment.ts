import { STRIPE_SECRETS } from '#adapters/stripe/settings';
import { PROVIDER_SETTINGS_LIST, providerSettings } from '#providers/settings-registry';
import type { StripeSecretName } from '#spec/needs';
import type { DeploySettings } from './deploy-settings';
import { bundledFilesOf, environmentOf, type BundledSetting } from './settings';

/**
 * The environment variables the stack sets on functions: what functions/config/ reads, each
 * function only the groups its spec needs. A CDK test checks that every variable the settings
 * vocabulary declares is either set by some function's binders or listed in NOT_SET_ON_AWS, so
 * the two cannot drift apart.
 */
export type FunctionEnvName =
  | 'TABLE_NAME'
  | 'MEDIA_BUCKET'
  | 'PUBLIC_MEDIA_BASE_URL'
  | 'PROVIDER'
  | 'PROVIDER_ROUTES'
  | 'SIM_DELAY_SECONDS'
  | 'SIM_OUTPUTS'
  | 'TASK_TIMEOUT_SECONDS'
  | 'AUTH_CACHE_TTL_SECONDS'
  | 'DEFAULT_RATE_LIMIT'
  | 'COPY_WORKER_FUNCTION'
  | 'FFMPEG_PATH'
  | 'WEBHOOK_QUEUE_URL'
  | 'SUBMISSION_QUEUE_URL'
  | 'CALLBACK_BASE_URL'
  | 'NODE_OPTIONS'
  | 'POWERTOOLS_SERVICE_NAME'
  | 'POWERTOOLS_METRICS_NAMESPACE'
  | 'LOG_LEVEL'
  | 'DYNAMODB_ENDPOINT'
  | 'S3_ENDPOINT'
  | 'IDENTITY_ISSUER'
  | 'IDENTITY_CLIENT_ID'
  | 'SIGNUP_CREDITS'
  | 'CIRCUIT_FAILURE_THRESHOLD'
  | 'CIRCUIT_COOL_DOWN_SECONDS'
  | 'MAIL_FROM'
  | 'CONSOLE_URL';

/** Besides these, each deployed provider's variables (its module names them: functions/providers/). */
export type FunctionEnvironment = Partial<Record<FunctionEnvName, string>> & { readonly [providerVariable: string]: string | undefined };

/** Variables config.ts reads that the stack deliberately leaves unset, and why. */
export const NOT_SET_ON_AWS: Readonly<Record<string, string>> = {
  AWS_REGION: 'set by the Lambda runtime',
  AUTH_CACHE_TTL_SECONDS: "read by no function: on AWS it is the API authorizer's cache (context authCacheTtlSeconds), locally the local gateway's",
  DYNAMODB_ENDPOINT: 'DynamoDB Local only (declared empty in a -c samLocal=true synth)',
  S3_ENDPOINT: 's3rver only (declared empty in a -c samLocal=true synth)',
  API_BASE_URL: 'the local stack only: on AWS the API reference names the address the request came through',
  WEBHOOK_ALLOW_LOOPBACK: 'the local stack only: the deployed API never delivers to loopback addresses',
  WEBHOOK_RETRY_SCHEDULE: 'the deployed API uses the full schedule (CONFIG_DEFAULTS.webhookRetrySchedule, over 24 h)',
  DELIVERY_RETRY_SCHEDULE: 'the deployed API uses the full schedule (79 min of waits, OUTPUT_DELIVERY.retrySchedule)',
  PROVIDER_BUDGET_PER_SECOND: "the provider's default budget (10 creates a second for Replicate) unless a stage needs another",
  CALLBACK_SILENCE_SECONDS: 'the default: a job that calls back is polled after 2 minutes without news',
  SUBMISSION_GRACE_SECONDS: "the default: an unanswered create waits 10 minutes for its job's callback",
  RETENTION_DAY_SECONDS: 'the local stack\'s tests only: a retention day is 86,400 s on every stage',
  OUTPUT_ALLOWED_ORIGINS: 'the local stack only: on AWS provider outputs are copied from public addresses (or our own media) only',
  // Mail (issue 36): MAIL_FROM and CONSOLE_URL are bindMail's (mailEnvironment below).
  MAIL_CONFIGURATION_SET: 'not set on AWS yet: a configuration set for bounces and complaints is a follow-up (docs/operations.md, "Invitation mail (SES)")',
  // Billing: set per billing function by its binder (billingEnvironment below).
  BILLING_PACKS: 'billing functions only, from context billingPacks (unset: no packs)',
  BILLING_PLAN: 'billing functions only, from context billingPlan (unset: no plan)',
  BILLING_RETURN_URL: 'billing functions only, from context billingReturnUrl (unset: the API reference)',
  STRIPE_API_BASE: "the local stack and tests only (the Stripe simulator): on AWS, Stripe's own API",
  STRIPE_SECRET_KEY: 'never in the template: billing functions get STRIPE_SECRET_KEY_ARN and read the value from Secrets Manager',
  STRIPE_WEBHOOK_SECRET: 'never in the template: billing functions get STRIPE_WEBHOOK_SECRET_ARN and read the value from Secrets Manager',
  // Providers' secrets given by value: a deployed function gets its secret's ARN instead.
  ...Object.fromEntries(
    PROVIDER_SETTINGS_LIST.flatMap((module) =>
      Object.values(module.secrets).map((secret) => [
        secret.valueVariable,
        secret.deployed
          ? `never in the template: functions get ${secret.deployed.arnVariable} and read the value from Secrets Manager`
          : `the local stack only: the ${module.name} provider has no such secret on AWS`,
      ]),
    ),
  ),
};

/**
 * A function's environment, group by group: each binder (lib/binders.ts) sets the variables of
 * what its function's spec needs, with the grant. Pure, so the deploy-settings tests read them.
 */

/** Every function: its log lines, metrics and stack traces. */
export function observabilityEnvironment(settings: DeploySettings): FunctionEnvironment {
  return {
    // Stack traces point at functions/… lines through the bundle's source map.
    NODE_OPTIONS: '--enable-source-maps',
    // Powertools (functions/observability): the `service` on log lines and the metrics'
    // dimension, which the alarms and the dashboard select on.
    POWERTOOLS_SERVICE_NAME: `vidgen-${settings.stage}`,
    POWERTOOLS_METRICS_NAMESPACE: 'VidGen',
    LOG_LEVEL: 'INFO',
  };
}

/** `needs.table`: the stateful stack's table (and, in a samLocal synth, DynamoDB Local's endpoint, empty). */
export function tableEnvironment(settings: DeploySettings, tableName: string): FunctionEnvironment {
  // Empty means unset to functions/config/; sam local invoke --env-vars fills it in.
  return { TABLE_NAME: tableName, ...(settings.samLocal && { DYNAMODB_ENDPOINT: '' }) };
}

/** `needs.media` (and every function that runs the task lifecycle): the media bucket and where it is served from. */
export function mediaEnvironment(settings: DeploySettings, media: { bucketName: string; publicMediaBaseUrl: string }): FunctionEnvironment {
  return { MEDIA_BUCKET: media.bucketName, PUBLIC_MEDIA_BASE_URL: media.publicMediaBaseUrl, ...(settings.samLocal && { S3_ENDPOINT: '' }) };
}

/**
 * The task lifecycle (`needs.providers`, and the copy worker, which completes tasks): the
 * providers' settings and their secrets' ARNs (never a value), the simulated provider's (every
 * stage's test mode runs on it), the task timeout and the circuit breakers.
 */
export function providerEnvironment(settings: DeploySettings, providerSecretArns: Readonly<Record<string, string>>): FunctionEnvironment {
  const { provider, runtime } = settings;
  const env: Record<string, string> = {
    PROVIDER: provider.name,
    TASK_TIMEOUT_SECONDS: String(runtime.taskTimeoutSeconds),
    SIM_DELAY_SECONDS: String(runtime.simDelaySeconds),
    // The simulated provider (every stage's test mode) hands out ready-made samples: its
    // renderers need sharp and ffmpeg, which the bundles leave out.
    SIM_OUTPUTS: 'samples',
    // Every provider's circuit breaker (context circuitFailureThreshold, circuitCoolDownSeconds).
    CIRCUIT_FAILURE_THRESHOLD: String(runtime.circuitFailureThreshold),
    CIRCUIT_COOL_DOWN_SECONDS: String(runtime.circuitCoolDownSeconds),
  };
  if (settings.providerRoutes) env.PROVIDER_ROUTES = JSON.stringify(settings.providerRoutes);
  for (const deployed of [provider, ...settings.otherProviders]) {
    const module = providerSettings(deployed.name)!;
    for (const [field, secret] of Object.entries(module.secrets)) {
      if (!secret.deployed || !(field in deployed.secrets)) continue;
      const arn = providerSecretArns[secret.deployed.arnVariable];
      if (!arn) throw new Error(`The ${deployed.name} provider needs the secret ${secret.deployed.arnVariable} names.`);
      env[secret.deployed.arnVariable] = arn;
    }
    Object.assign(env, environmentOf(module.settings, deployed.settings));
  }
  return env;
}

/**
 * The task lifecycle's settings that ship beside the bundle instead (the deployed providers'
 * model maps, REPLICATE_MODELS.json, FAL_MODELS.json): a model map can outgrow Lambda's 4 KB
 * environment (docs/decisions.md, "Model maps in the bundle").
 */
export function providerBundledSettings(settings: DeploySettings): BundledSetting[] {
  return [settings.provider, ...settings.otherProviders].flatMap((deployed) => bundledFilesOf(providerSettings(deployed.name)!.settings, deployed.settings));
}

/** `needs.identity` (the authorizer's alone): the user pool whose access tokens are sessions, a new holder's credits, the default rate limit. */
export function identityEnvironment(settings: DeploySettings, identity: { issuer: string; clientId: string }): FunctionEnvironment {
  return {
    IDENTITY_ISSUER: identity.issuer,
    IDENTITY_CLIENT_ID: identity.clientId,
    SIGNUP_CREDITS: String(settings.runtime.signupCredits),
    DEFAULT_RATE_LIMIT: String(settings.runtime.defaultRateLimit),
  };
}

/**
 * `needs.mail` on a stage with a sender: MAIL_FROM, and CONSOLE_URL when the console has its own
 * domain (its CloudFront name would be a cycle: that distribution fronts the API).
 */
export function mailEnvironment(settings: DeploySettings): FunctionEnvironment {
  if (!settings.mail) return {};
  const consoleDomain = settings.console.domain?.domainName;
  return { MAIL_FROM: settings.mail.fromAddress, ...(consoleDomain && { CONSOLE_URL: `https://${consoleDomain}` }) };
}

/** `needs.stripe`: the catalogue and return page, and the ARNs of exactly the named secrets (functions/config/billing.ts reads each on use). */
export function billingEnvironment(settings: DeploySettings, secretArns: Readonly<Partial<Record<StripeSecretName, string>>>): FunctionEnvironment {
  const { billing } = settings;
  return {
    ...(billing.packsJson && { BILLING_PACKS: billing.packsJson }),
    ...(billing.planJson && { BILLING_PLAN: billing.planJson }),
    ...(billing.returnUrl && { BILLING_RETURN_URL: billing.returnUrl }),
    ...Object.fromEntries(Object.entries(secretArns).map(([name, arn]) => [STRIPE_SECRETS[name as StripeSecretName].arnVariable, arn])),
  };
}
