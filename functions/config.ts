import { DEFAULT_RATE_LIMIT_PER_MINUTE } from './domain/rate-limit';
import { isCallbackSecret } from './providers/signed-callback';

/**
 * Runtime configuration, read once per cold start from the environment. A required variable
 * that is missing or a value that does not parse stops the function at once with a message
 * naming the variable, instead of limping on with a silent default.
 */
/** A secret given as its value (local use, tests) or as the Secrets Manager secret holding it (AWS). */
export type SecretSource = { value: string } | { secretArn: string };

export const SIMULATED_OUTPUTS = ['rendered', 'samples'] as const;
export type SimulatedOutputs = (typeof SIMULATED_OUTPUTS)[number];

export type ProviderConfig =
  | {
      name: 'simulated';
      delaySeconds: number;
      /** Signs the simulated provider's callbacks ("whsec_..."); unset: it sends none. */
      callbackSecret?: string;
    }
  | {
      name: 'replicate';
      baseUrl: string;
      apiToken: SecretSource;
      timeoutMs: number;
      /** JSON text of the model mapping; the shipped default-models.json when unset. */
      modelsJson?: string;
      /** Replicate's webhook signing secret; unset: no callbacks are requested (polling only). */
      webhookSecret?: SecretSource;
    };

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
  provider: ProviderConfig;
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
  webhooks: WebhookConfig;
  submissions: SubmissionConfig;
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
  simDelaySeconds: 10,
  replicateBaseUrl: 'https://api.replicate.com',
  replicateTimeoutMs: 10_000,
  taskTimeoutSeconds: 30 * 60,
  /** Replicate allows about 600 creates a minute. */
  replicateBudgetPerSecond: 10,
  callbackSilenceSeconds: 120,
  submissionGraceSeconds: 600,
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

function replicateToken(env: Env): SecretSource {
  const value = optional(env, 'REPLICATE_API_TOKEN');
  if (value) return { value };
  const secretArn = optional(env, 'REPLICATE_API_TOKEN_SECRET_ARN');
  if (secretArn) return { secretArn };
  throw new ConfigError('Missing REPLICATE_API_TOKEN or REPLICATE_API_TOKEN_SECRET_ARN (PROVIDER=replicate).');
}

/** A Standard Webhooks secret ("whsec_..."); the message for a bad one never shows the value. */
function callbackSecret(env: Env, name: string): string | undefined {
  const value = optional(env, name);
  if (value !== undefined && !isCallbackSecret(value)) {
    throw new ConfigError(`${name} must be a Standard Webhooks secret: "whsec_" followed by base64 (the value is not shown).`);
  }
  return value;
}

function replicateWebhookSecret(env: Env): SecretSource | undefined {
  const value = callbackSecret(env, 'REPLICATE_WEBHOOK_SECRET');
  if (value) return { value };
  const secretArn = optional(env, 'REPLICATE_WEBHOOK_SECRET_ARN');
  return secretArn ? { secretArn } : undefined;
}

function provider(env: Env): ProviderConfig {
  const name = required(env, 'PROVIDER');
  if (name === 'simulated') {
    const secret = callbackSecret(env, 'SIM_CALLBACK_SECRET');
    return {
      name,
      delaySeconds: wholeNumber(env, 'SIM_DELAY_SECONDS', CONFIG_DEFAULTS.simDelaySeconds, 0),
      ...(secret && { callbackSecret: secret }),
    };
  }
  if (name === 'replicate') {
    const modelsJson = optional(env, 'REPLICATE_MODELS');
    const webhookSecret = replicateWebhookSecret(env);
    return {
      name,
      baseUrl: url(env, 'REPLICATE_BASE_URL', CONFIG_DEFAULTS.replicateBaseUrl),
      apiToken: replicateToken(env),
      timeoutMs: wholeNumber(env, 'REPLICATE_TIMEOUT_MS', CONFIG_DEFAULTS.replicateTimeoutMs, 1),
      ...(modelsJson && { modelsJson }),
      ...(webhookSecret && { webhookSecret }),
    };
  }
  throw new ConfigError(`PROVIDER must be "simulated" or "replicate"; got "${name}".`);
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
  const webhookQueueUrl = optional(env, 'WEBHOOK_QUEUE_URL');
  const providerConfig = provider(env);
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
    provider: providerConfig,
    testModeDelaySeconds: wholeNumber(env, 'SIM_DELAY_SECONDS', CONFIG_DEFAULTS.simDelaySeconds, 0),
    simulatedOutputs: oneOf(env, 'SIM_OUTPUTS', SIMULATED_OUTPUTS, 'rendered'),
    taskTimeoutSeconds: wholeNumber(env, 'TASK_TIMEOUT_SECONDS', CONFIG_DEFAULTS.taskTimeoutSeconds, 60),
    ...(copyWorkerFunction && { copyWorkerFunction }),
    webhooks: {
      ...(webhookQueueUrl && { queueUrl: webhookQueueUrl }),
      retrySchedule: secondsList(env, 'WEBHOOK_RETRY_SCHEDULE', CONFIG_DEFAULTS.webhookRetrySchedule),
      allowLoopback: flag(env, 'WEBHOOK_ALLOW_LOOPBACK'),
    },
    submissions: submissions(env, providerConfig),
  };
}

function submissions(env: Env, providerConfig: ProviderConfig): SubmissionConfig {
  const queueUrl = optional(env, 'SUBMISSION_QUEUE_URL');
  const callbackBaseUrl = optional(env, 'CALLBACK_BASE_URL') && url(env, 'CALLBACK_BASE_URL');
  const defaultBudget = providerConfig.name === 'replicate' ? CONFIG_DEFAULTS.replicateBudgetPerSecond : undefined;
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
