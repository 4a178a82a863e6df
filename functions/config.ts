import { parseCatalogue, STRIPE_SECRETS } from '#adapters/stripe/settings';
import type { BillingCatalogue } from '#domain/billing';
import { DEFAULT_RATE_LIMIT_PER_MINUTE } from '#domain/rate-limit';
import type { ProviderSecret, SecretSource, SomeProviderSettings } from '#providers/provider-module';
import { parseProviderRoutes, routedProviders } from '#providers/route-settings';
import { PROVIDER_NAMES, PROVIDER_SETTINGS_LIST, providerSettings, type ProviderConfig } from '#providers/settings-registry';
import { DEFAULT_CIRCUIT_SETTINGS } from '#domain/circuit-breaker';
import type { ProviderRoutes } from '#domain/provider-routing';
import { SIMULATED_DEFAULTS } from '#providers/simulated/settings';

/**
 * Runtime configuration, read once per cold start from the environment. A required variable
 * that is missing or a value that does not parse stops the function at once with a message
 * naming the variable, instead of limping on with a silent default.
 */
export type { SecretSource } from '#providers/provider-module';
export type { ProviderConfig } from '#providers/settings-registry';

export const SIMULATED_OUTPUTS = ['rendered', 'samples'] as const;
export type SimulatedOutputs = (typeof SIMULATED_OUTPUTS)[number];

export interface Config {
  tableName: string;
  region: string;
  /** DynamoDB Local's URL on the local stack; unset on AWS. */
  dynamodbEndpoint?: string;
  /** How long an authorizer decision is cached (API Gateway and the local stack alike). */
  authCacheTtlSeconds: number;
  /** Requests per minute for keys without their own limit. */
  defaultRateLimit: number;
  mediaBucket: string;
  /** s3rver's URL on the local stack; unset on AWS. */
  s3Endpoint?: string;
  /** Where media objects are served from, without a trailing slash (the CDN on AWS). */
  publicMediaBaseUrl: string;
  /**
   * Origins besides our media's from which provider outputs may be copied although they are not
   * public addresses (a fake or self-hosted provider on this machine); empty on AWS.
   */
  outputOrigins: string[];
  /** The provider new live tasks are submitted to (PROVIDER). */
  provider: ProviderConfig;
  /**
   * The other providers whose settings are given (the simulated one always): a task that
   * recorded one is still followed on it after PROVIDER changed. Unset: none.
   */
  otherProviders?: ProviderConfig[];
  /**
   * Per model, the providers new live tasks go to, in order (PROVIDER_ROUTES, JSON); unset:
   * PROVIDER alone. Every provider named is configured (its secrets given) or the start fails.
   */
  routes?: ProviderRoutes;
  /** Each provider's circuit breaker (CIRCUIT_FAILURE_THRESHOLD, CIRCUIT_COOL_DOWN_SECONDS). */
  circuit: CircuitConfig;
  /** How long the simulated provider takes for test-mode tasks, which use it whatever `provider` is. */
  testModeDelaySeconds: number;
  /**
   * What the simulated provider hands out: media it renders showing the prompt (needs sharp and
   * ffmpeg, installed locally) or ready-made samples (AWS, where the renderers are not bundled).
   */
  simulatedOutputs: SimulatedOutputs;
  /** A task still processing after this long fails with `timeout`. */
  taskTimeoutSeconds: number;
  /** The Lambda that copies results (invoked asynchronously); unset: copy in this process. */
  copyWorkerFunction?: string;
  /** The ffmpeg that makes video thumbnails (the copy worker's layer on AWS); unset: @ffmpeg-installer's. */
  ffmpegPath?: string;
  webhooks: WebhookConfig;
  submissions: SubmissionConfig;
  /** The identity provider whose access tokens are sessions (IDENTITY_ISSUER, IDENTITY_CLIENT_ID); unset: sessions are refused. */
  identity?: IdentityConfig;
  /** The live credits a holder's account opens with on their first sign-in (SIGNUP_CREDITS). */
  signupCredits: number;
}

/** The Cognito user pool (or the local identity server) and its app client. */
export interface IdentityConfig {
  /** `https://cognito-idp.<region>.amazonaws.com/<pool id>`; its origin is the pool's API endpoint. */
  issuer: string;
  clientId: string;
}

export interface CircuitConfig {
  /** Consecutive failed creates that open a provider's circuit. */
  failureThreshold: number;
  /** How long an open circuit skips its provider before one probe. */
  coolDownSeconds: number;
}

/** How creates reach the provider (docs/tasks.md, "Submission" and "Provider callbacks"). */
export interface SubmissionConfig {
  /** The SQS queue of creates waiting for a turn; unset: an in-process queue (local stack, tests). */
  queueUrl?: string;
  /** Creates a second the configured provider allows us; unset: not paced (the simulated provider). */
  budgetPerSecond?: number;
  /**
   * The API's public base URL (ending in /api/v1) where the provider reaches our callback route;
   * unset: jobs are not asked to call back, and polls follow them as before.
   */
  callbackBaseUrl?: string;
  /** A job that calls back is polled only after this long without news. */
  callbackSilenceSeconds: number;
  /** How long a task whose create went unanswered waits for its job's callback before the refund. */
  graceSeconds: number;
}
export interface WebhookConfig {
  /** The SQS queue of deliveries; unset: an in-process queue (the local stack and tests only). */
  queueUrl?: string;
  /** Seconds before each retry of a failed delivery, in order; after the last, it is failed. */
  retrySchedule: number[];
  /** Accept http:// endpoints on loopback and deliver to loopback (a developer's receiver). */
  allowLoopback: boolean;
}

/** Defaults shared with the CDK stack, which sets the same variables on every function. */
export const CONFIG_DEFAULTS = {
  authCacheTtlSeconds: 60,
  defaultRateLimit: DEFAULT_RATE_LIMIT_PER_MINUTE,
  simDelaySeconds: SIMULATED_DEFAULTS.delaySeconds,
  taskTimeoutSeconds: 30 * 60,
  callbackSilenceSeconds: 120,
  submissionGraceSeconds: 600,
  circuitFailureThreshold: DEFAULT_CIRCUIT_SETTINGS.failureThreshold,
  circuitCoolDownSeconds: DEFAULT_CIRCUIT_SETTINGS.coolDownMs / 1000,
  /** A new holder's live balance: nothing until they buy credits (the test balance has its own 1000). */
  signupCredits: 0,
  /** Growing delays over more than 24 h (27.6 h in all): the deployed schedule. */
  webhookRetrySchedule: [5, 300, 1_800, 7_200, 18_000, 36_000, 36_000],
} as const;

/** What the local stack uses: the first retries within seconds, so they are seen while watching. */
export const LOCAL_WEBHOOK_RETRY_SCHEDULE = [2, 10, 30, 120, 600, 3_600, 21_600, 64_800] as const;

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function optional(env: Env, name: string): string | undefined {
  return env[name]?.trim() || undefined;
}

function required(env: Env, name: string): string {
  const value = optional(env, name);
  if (!value) throw new ConfigError(`Missing required environment variable ${name}.`);
  return value;
}

function wholeNumber(env: Env, name: string, fallback: number, min: number): number {
  const raw = optional(env, name);
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) {
    throw new ConfigError(`${name} must be a whole number >= ${min}; got "${raw}".`);
  }
  return value;
}

function url(env: Env, name: string, fallback?: string): string {
  const raw = fallback === undefined ? required(env, name) : (optional(env, name) ?? fallback);
  try {
    const parsed = new URL(raw);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('not http(s)');
  } catch {
    throw new ConfigError(`${name} must be an http(s) URL; got "${raw}".`);
  }
  return raw.replace(/\/+$/, '');
}

function origins(env: Env, name: string): string[] {
  const raw = optional(env, name);
  if (!raw) return [];
  return raw.split(',').map((part) => {
    try {
      const { origin, protocol } = new URL(part.trim());
      if (protocol !== 'http:' && protocol !== 'https:') throw new Error('not http(s)');
      return origin;
    } catch {
      throw new ConfigError(`${name} must be a comma-separated list of http(s) origins; got "${raw}".`);
    }
  });
}

function secondsList(env: Env, name: string, fallback: readonly number[]): number[] {
  const raw = optional(env, name);
  if (!raw) return [...fallback];
  const values = raw.split(',').map((part) => Number(part.trim()));
  if (!values.every((value) => Number.isFinite(value) && value >= 0)) {
    throw new ConfigError(`${name} must be a comma-separated list of seconds; got "${raw}".`);
  }
  return values;
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = optional(env, name);
  if (raw === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(`${name} must be one of ${allowed.map((value) => `"${value}"`).join(', ')}; got "${raw}".`);
  }
  return raw as T;
}

function flag(env: Env, name: string): boolean {
  const raw = optional(env, name);
  if (raw === undefined || raw === 'false') return false;
  if (raw === 'true') return true;
  throw new ConfigError(`${name} must be "true" or "false"; got "${raw}".`);
}

/** A provider's secret, as its value or as its Secrets Manager ARN; a bad value's message never shows it. */
function secretSource(env: Env, secret: ProviderSecret): SecretSource | undefined {
  const value = optional(env, secret.valueVariable);
  if (value !== undefined) {
    const problem = secret.invalid?.(value);
    if (problem) throw new ConfigError(`${secret.valueVariable} ${problem} (the value is not shown).`);
    return { value };
  }
  const secretArn = secret.deployed && optional(env, secret.deployed.arnVariable);
  return secretArn ? { secretArn } : undefined;
}

/**
 * One provider's settings and secrets. Undefined for a provider other than the chosen one
 * whose required secrets are not given: it is not configured here.
 */
function providerConfig(module: SomeProviderSettings, env: Env, chosen: boolean): ProviderConfig | undefined {
  const secrets: Record<string, SecretSource> = {};
  for (const [field, secret] of Object.entries(module.secrets)) {
    const source = secretSource(env, secret);
    if (source) secrets[field] = source;
    else if (secret.required) {
      if (!chosen) return undefined;
      const names = [secret.valueVariable, secret.deployed?.arnVariable].filter(Boolean).join(' or ');
      throw new ConfigError(`Missing ${names} (PROVIDER=${module.name}).`);
    }
  }
  const given = Object.fromEntries(Object.entries(module.variables).map(([field, variable]) => [field, optional(env, variable)]));
  const parsed = module.settings.safeParse(given);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const variable = module.variables[String(issue.path[0])]!;
    throw new ConfigError(`${variable} ${issue.message}; got "${optional(env, variable)}".`);
  }
  return { name: module.name, ...parsed.data, ...secrets } as ProviderConfig;
}

/** PROVIDER's settings, and those of every other provider configured here (each one routed must be). */
function providers(env: Env): Pick<Config, 'provider' | 'otherProviders' | 'routes'> {
  const name = required(env, 'PROVIDER');
  const chosen = providerSettings(name);
  if (!chosen) throw new ConfigError(`PROVIDER must be one of ${PROVIDER_NAMES.map((known) => `"${known}"`).join(', ')}; got "${name}".`);
  const routes = providerRoutes(env);
  const routed = routes ? routedProviders(routes) : [];
  const otherProviders = PROVIDER_SETTINGS_LIST.filter((module) => module.name !== name && (!module.onlyWhereNamed || routed.includes(module.name)))
    .map((module) => providerConfig(module, env, routed.includes(module.name)))
    .filter((config) => config !== undefined);
  return { provider: providerConfig(chosen, env, true)!, ...(otherProviders.length > 0 && { otherProviders }), ...(routes && { routes }) };
}

function providerRoutes(env: Env): ProviderRoutes | undefined {
  const raw = optional(env, 'PROVIDER_ROUTES');
  if (raw === undefined) return undefined;
  try {
    return parseProviderRoutes(raw);
  } catch (error) {
    throw new ConfigError(`PROVIDER_ROUTES ${(error as Error).message}; got '${raw}'.`);
  }
}

/**
 * API_BASE_URL: the API's public base URL (ending in /api/v1) where the request cannot tell it
 * trustworthily, as on the local stack (which sets it). Read on its own, not in loadConfig: the
 * public document endpoints need nothing else.
 */
export function configuredApiBaseUrl(env: Env = process.env): string | undefined {
  return optional(env, 'API_BASE_URL') && url(env, 'API_BASE_URL');
}

export function loadConfig(env: Env = process.env): Config {
  const dynamodbEndpoint = optional(env, 'DYNAMODB_ENDPOINT');
  const s3Endpoint = optional(env, 'S3_ENDPOINT');
  const copyWorkerFunction = optional(env, 'COPY_WORKER_FUNCTION');
  const ffmpegPath = optional(env, 'FFMPEG_PATH');
  const webhookQueueUrl = optional(env, 'WEBHOOK_QUEUE_URL');
  const configured = providers(env);
  return {
    tableName: required(env, 'TABLE_NAME'),
    region: required(env, 'AWS_REGION'),
    ...(dynamodbEndpoint && { dynamodbEndpoint }),
    authCacheTtlSeconds: wholeNumber(env, 'AUTH_CACHE_TTL_SECONDS', CONFIG_DEFAULTS.authCacheTtlSeconds, 0),
    defaultRateLimit: wholeNumber(env, 'DEFAULT_RATE_LIMIT', CONFIG_DEFAULTS.defaultRateLimit, 1),
    mediaBucket: required(env, 'MEDIA_BUCKET'),
    ...(s3Endpoint && { s3Endpoint }),
    publicMediaBaseUrl: url(env, 'PUBLIC_MEDIA_BASE_URL'),
    outputOrigins: origins(env, 'OUTPUT_ALLOWED_ORIGINS'),
    ...configured,
    testModeDelaySeconds: wholeNumber(env, 'SIM_DELAY_SECONDS', CONFIG_DEFAULTS.simDelaySeconds, 0),
    simulatedOutputs: oneOf(env, 'SIM_OUTPUTS', SIMULATED_OUTPUTS, 'rendered'),
    taskTimeoutSeconds: wholeNumber(env, 'TASK_TIMEOUT_SECONDS', CONFIG_DEFAULTS.taskTimeoutSeconds, 60),
    ...(copyWorkerFunction && { copyWorkerFunction }),
    ...(ffmpegPath && { ffmpegPath }),
    webhooks: {
      ...(webhookQueueUrl && { queueUrl: webhookQueueUrl }),
      retrySchedule: secondsList(env, 'WEBHOOK_RETRY_SCHEDULE', CONFIG_DEFAULTS.webhookRetrySchedule),
      allowLoopback: flag(env, 'WEBHOOK_ALLOW_LOOPBACK'),
    },
    submissions: submissions(env, configured.provider),
    circuit: {
      failureThreshold: wholeNumber(env, 'CIRCUIT_FAILURE_THRESHOLD', CONFIG_DEFAULTS.circuitFailureThreshold, 1),
      coolDownSeconds: wholeNumber(env, 'CIRCUIT_COOL_DOWN_SECONDS', CONFIG_DEFAULTS.circuitCoolDownSeconds, 1),
    },
    ...identity(env),
    signupCredits: wholeNumber(env, 'SIGNUP_CREDITS', CONFIG_DEFAULTS.signupCredits, 0),
  };
}

/** Both or neither: an issuer without its client (or the reverse) is a broken deploy. */
function identity(env: Env): Pick<Config, 'identity'> {
  const issuer = optional(env, 'IDENTITY_ISSUER');
  const clientId = optional(env, 'IDENTITY_CLIENT_ID');
  if (!issuer && !clientId) return {};
  if (!issuer || !clientId) throw new ConfigError('IDENTITY_ISSUER and IDENTITY_CLIENT_ID go together: set both or neither.');
  return { identity: { issuer: url(env, 'IDENTITY_ISSUER'), clientId } };
}

function submissions(env: Env, providerConfig: ProviderConfig): SubmissionConfig {
  const queueUrl = optional(env, 'SUBMISSION_QUEUE_URL');
  const callbackBaseUrl = optional(env, 'CALLBACK_BASE_URL') && url(env, 'CALLBACK_BASE_URL');
  const defaultBudget = providerSettings(providerConfig.name)?.budgetPerSecond;
  const budgetPerSecond = optional(env, 'PROVIDER_BUDGET_PER_SECOND')
    ? wholeNumber(env, 'PROVIDER_BUDGET_PER_SECOND', 0, 1)
    : defaultBudget;
  return {
    ...(queueUrl && { queueUrl }),
    ...(budgetPerSecond !== undefined && { budgetPerSecond }),
    ...(callbackBaseUrl && { callbackBaseUrl }),
    callbackSilenceSeconds: wholeNumber(env, 'CALLBACK_SILENCE_SECONDS', CONFIG_DEFAULTS.callbackSilenceSeconds, 1),
    graceSeconds: wholeNumber(env, 'SUBMISSION_GRACE_SECONDS', CONFIG_DEFAULTS.submissionGraceSeconds, 1),
  };
}

/** Billing (functions/adapters/stripe/): read only by the functions that bill, so the others never need it. */
export interface BillingConfig {
  catalogue: BillingCatalogue;
  /** Where checkout and the portal send the holder back (the console's billing page); unset: the API reference. */
  returnUrl?: string;
  /** Stripe's API unless given (the local stack's Stripe simulator, a test's). */
  stripeApiBase?: string;
  secretKey: SecretSource;
  webhookSecret: SecretSource;
}

export function loadBillingConfig(env: Env = process.env): BillingConfig {
  let catalogue: BillingCatalogue;
  try {
    catalogue = parseCatalogue(optional(env, 'BILLING_PACKS'), optional(env, 'BILLING_PLAN'));
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
  const secret = (spec: (typeof STRIPE_SECRETS)[keyof typeof STRIPE_SECRETS]): SecretSource => {
    const value = optional(env, spec.valueVariable);
    if (value !== undefined) {
      if (!spec.looksRight(value)) throw new ConfigError(`${spec.valueVariable} must be ${spec.expected} (the value is not shown).`);
      return { value };
    }
    const secretArn = optional(env, spec.arnVariable);
    if (!secretArn) throw new ConfigError(`Missing ${spec.valueVariable} or ${spec.arnVariable} (billing needs Stripe's).`);
    return { secretArn };
  };
  const returnUrl = optional(env, 'BILLING_RETURN_URL') && url(env, 'BILLING_RETURN_URL');
  const stripeApiBase = optional(env, 'STRIPE_API_BASE') && url(env, 'STRIPE_API_BASE');
  return {
    catalogue,
    ...(returnUrl && { returnUrl }),
    ...(stripeApiBase && { stripeApiBase }),
    secretKey: secret(STRIPE_SECRETS.secretKey),
    webhookSecret: secret(STRIPE_SECRETS.webhookSecret),
  };
}
